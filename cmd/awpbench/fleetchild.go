package main

// The fleet child: -fleet-n nodes in one process, meshed on loopback TCP,
// timed until presence has reached them all.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/awp-tray/awp-tray/internal/graph"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/presence"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// runFleet is the fleet mode of a child: n nodes in this process.
func (c *child) runFleet(n int, heartbeat, window time.Duration) error {
	if n < fleetDegree+1 {
		return fmt.Errorf("fleet: %d nodes: want at least %d", n, fleetDegree+1)
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 6))
	f := &fleet{nodes: make([]*peer.Node, n)}
	defer f.close()
	if err := f.start(c.data, c.nosync, heartbeat); err != nil {
		return err
	}
	edges, diameter := regularGraph(n, fleetDegree, rng)
	f.t0 = time.Now()
	f.logf("%d nodes up; connecting %d edges (diameter %d)", n, len(edges), diameter)
	if err := f.connect(edges); err != nil {
		return err
	}
	up := time.Now()
	f.logf("mesh up")
	if err := f.waitFull(); err != nil {
		return err
	}
	f.logf("every node holds every other's document")
	res := fleetResult{Nodes: n, Edges: len(edges), Diameter: diameter, InitialS: time.Since(up).Seconds(),
		HeartbeatS: heartbeat.Seconds(), WindowS: window.Seconds()}
	converge, err := f.converge()
	if err != nil {
		return err
	}
	res.ConvergeS = converge.Seconds()
	f.logf("node 0's change everywhere in %.3f s", res.ConvergeS)
	f.traffic(heartbeat, window, &res)
	for _, nd := range f.nodes {
		if got := len(nd.Presence()); got < n-1 {
			res.DroppedOrigins += n - 1 - got
		}
	}
	if res.DroppedOrigins > 0 {
		return fmt.Errorf("fleet: %d documents missing at the end", res.DroppedOrigins)
	}
	res.RSSMB = peakRSSMB()
	c.emit(childMsg{Event: "fleet", Fleet: &res})
	c.emit(childMsg{Event: "done", RSSMB: res.RSSMB})
	return nil
}

// fleet is the fleet child's nodes.
type fleet struct {
	nodes []*peer.Node
	t0    time.Time // when the nodes were up, for the log
}

// logf writes a line on stderr: the parent shows it with an error.
func (f *fleet) logf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "fleet %6.1fs: "+format+"\n", append([]any{time.Since(f.t0).Seconds()}, a...)...)
}

// close closes the nodes started, all at once.
func (f *fleet) close() {
	var wg sync.WaitGroup
	for _, nd := range f.nodes {
		if nd != nil {
			wg.Go(func() { nd.Close() })
		}
	}
	wg.Wait()
}

// start starts every node, each with its own data dir below data, at
// presence detail "peers".
func (f *fleet) start(data string, nosync bool, heartbeat time.Duration) error {
	for i := range f.nodes {
		k, err := key.NewPrivate()
		if err != nil {
			return err
		}
		hb := heartbeat
		if i == 0 {
			// The node whose change is timed keeps NOTES §1's heartbeat, so
			// no tick publishes its change before the 2 s debounce does.
			hb = fleetRealHeartbeat
		}
		nd, err := peer.New(peer.Config{Key: k, DataDir: filepath.Join(data, strconv.Itoa(i)), Name: fmt.Sprintf("fleet-%03d", i),
			Listen: []string{"tcp://127.0.0.1:0"}, Presence: presence.DetailPeers, PresenceHeartbeat: hb, NoSync: nosync})
		if err != nil {
			return err
		}
		if err := nd.Start(); err != nil {
			nd.Close()
			return err
		}
		f.nodes[i] = nd
	}
	return nil
}

// connect dials every edge, fleetConnectParallel at a time.
func (f *fleet) connect(edges [][2]int) error {
	ctx, cancel := context.WithTimeout(context.Background(), fleetPhase)
	defer cancel()
	sem := make(chan struct{}, fleetConnectParallel)
	var wg sync.WaitGroup
	var firstErr error
	var mu sync.Mutex
	for _, e := range edges {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if _, err := f.nodes[e[0]].Connect(ctx, f.nodes[e[1]].ListenAddrs()[0]); err != nil {
				mu.Lock()
				firstErr = cmpErr(firstErr, fmt.Errorf("connect %d-%d: %w", e[0], e[1], err))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return firstErr
}

// waitFull waits until every node holds every other node's document.
func (f *fleet) waitFull() error {
	ctx, cancel := context.WithTimeout(context.Background(), fleetPhase)
	defer cancel()
	n := len(f.nodes)
	full := func() bool {
		for _, nd := range f.nodes {
			if len(nd.Presence()) < n-1 {
				return false
			}
		}
		return true
	}
	if err := waitFor(ctx, 20*time.Millisecond, full); err != nil {
		held := 0
		for _, nd := range f.nodes {
			held += len(nd.Presence())
		}
		return fmt.Errorf("fleet: documents never reached everyone: %d of %d held after %s: %w", held, n*(n-1), fleetPhase, err)
	}
	return nil
}

// converge makes one change at node 0, from presence "peers" to "full",
// and returns the time until every other node holds the document it
// publishes (NOTES §1's 2 s debounce included).
func (f *fleet) converge() (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), fleetPhase)
	defer cancel()
	nodes := f.nodes
	origin := nodes[0].Key()
	before, _ := nodes[0].PresenceSeq(origin)
	tc := time.Now()
	if err := nodes[0].SetPresenceDetail(presence.DetailFull); err != nil {
		return 0, err
	}
	converged := func() bool {
		cur, ok := nodes[0].PresenceSeq(origin)
		if !ok || cur <= before {
			return false
		}
		for _, nd := range nodes[1:] {
			if s, _ := nd.PresenceSeq(origin); s < cur {
				return false
			}
		}
		return true
	}
	if err := waitFor(ctx, 2*time.Millisecond, converged); err != nil {
		cur, _ := nodes[0].PresenceSeq(origin)
		var missing []string
		for i, nd := range nodes[1:] {
			if s, _ := nd.PresenceSeq(origin); s < cur {
				missing = append(missing, fmt.Sprintf("%d (seq %d)", i+1, s))
			}
		}
		return 0, fmt.Errorf("fleet: node 0's change (seq %d, before %d) missing after %s at %d nodes: %v: %w",
			cur, before, fleetPhase, len(missing), missing, err)
	}
	return time.Since(tc), nil
}

// traffic measures the steady state into res: a heartbeat round for the
// change's relays to end, then the presence every node sends over the
// window.
func (f *fleet) traffic(heartbeat, window time.Duration, res *fleetResult) {
	time.Sleep(heartbeat)
	start := make([]int64, len(f.nodes))
	var l0 int64
	for i, nd := range f.nodes {
		l, b := nd.PresenceTraffic()
		start[i], l0 = b, l0+l
	}
	time.Sleep(window)
	for i, nd := range f.nodes {
		l, b := nd.PresenceTraffic()
		res.Lines += l
		res.Bytes += b - start[i]
		res.MaxNodeBytes = max(res.MaxNodeBytes, b-start[i])
	}
	res.Lines -= l0
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// waitFor polls cond every d until it holds or ctx ends.
func waitFor(ctx context.Context, d time.Duration, cond func() bool) error {
	t := time.NewTicker(d)
	defer t.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

// regularGraph returns the edges of a random connected graph on n nodes in
// which every node has degree neighbours (the pairing model, drawn again
// until it has no loops, no double edges and is connected, with a diameter
// presence covers: at most wire.MaxHops), and its diameter.
func regularGraph(n, degree int, rng *rand.Rand) ([][2]int, int) {
	for {
		stubs := make([]int, 0, n*degree)
		for i := range n {
			for range degree {
				stubs = append(stubs, i)
			}
		}
		rng.Shuffle(len(stubs), func(i, j int) { stubs[i], stubs[j] = stubs[j], stubs[i] })
		adj := make([]map[int]bool, n)
		for i := range adj {
			adj[i] = map[int]bool{}
		}
		ok := true
		var edges [][2]int
		for i := 0; i+1 < len(stubs); i += 2 {
			a, b := stubs[i], stubs[i+1]
			if a == b || adj[a][b] {
				ok = false
				break
			}
			adj[a][b], adj[b][a] = true, true
			edges = append(edges, [2]int{a, b})
		}
		if !ok {
			continue
		}
		diameter := 0
		for s := range n {
			for _, d := range graph.Hops(adj, s) {
				if d < 0 {
					ok = false
				}
				diameter = max(diameter, d)
			}
		}
		if ok && diameter <= wire.MaxHops {
			return edges, diameter
		}
	}
}
