package main

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"runtime/trace"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/awp-tray/awp-tray/internal/gctune"

	"tailscale.com/tailcfg"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/transport"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// childMsg is one JSON line a child prints on stdout. Fields are used by
// the events that need them; the parent decodes every line into it.
type childMsg struct {
	Event string `json:"event"`
	Err   string `json:"err,omitempty"`

	Addr string `json:"addr,omitempty"` // ready: the receiver's listen address
	Key  string `json:"key,omitempty"`  // ready: the node's key

	N        int     `json:"n,omitempty"`
	SendS    float64 `json:"send_s,omitempty"`    // all Send calls returned
	AckedS   float64 `json:"acked_s,omitempty"`   // first Send (or connect) until the last line is acked
	ConnectS float64 `json:"connect_s,omitempty"` // Connect returned (handshake)

	StartNS    int64  `json:"start_ns,omitempty"`    // blob: Send called
	SentNS     int64  `json:"sent_ns,omitempty"`     // blob: Send returned (staged, committed)
	CompleteNS int64  `json:"complete_ns,omitempty"` // blob: receiver's Blobs() shows it complete
	Size       int64  `json:"size,omitempty"`
	Sha256     string `json:"sha256,omitempty"`
	Corrupt    bool   `json:"corrupt,omitempty"`

	RSSMB    float64 `json:"rss_mb,omitempty"`       // done: peak RSS (VmHWM), MiB
	RSSNowMB float64 `json:"rss_now_mb,omitempty"`   // rss: resident memory now (VmRSS), MiB
	HeapMB   float64 `json:"heap_mb,omitempty"`      // rss: the Go heap in use, MiB
	HeapFree float64 `json:"heap_free_mb,omitempty"` // rss: Go heap free and not yet returned to the system, MiB
	Mem      string  `json:"mem,omitempty"`          // done, with --memprofile: where the memory was at the peak

	Samples [][2]int64 `json:"samples,omitempty"` // lat: timed msgs, Send and event times (Unix ns)

	Fleet *fleetResult `json:"fleet,omitempty"` // fleet: the figures

	CPUS float64 `json:"cpu_s,omitempty"` // every event: the process's CPU time (user + system) so far
}

// childMain runs one node and its side of a workload (the hidden "node"
// subcommand). It reports on stdout as JSON lines and reads commands
// ("connect ADDR", "stop") on stdin.
func childMain(args []string) int {
	gctune.Node() // the children are nodes as `awp run` runs them
	fs := flag.NewFlagSet("awpbench node", flag.ContinueOnError)
	role := fs.String("role", "", "receiver or sender")
	mode := fs.String("mode", "", "msgs, resume, blob or serve")
	data := fs.String("data", "", "data directory")
	keyFile := fs.String("key", "", "file holding this node's key seed (hex)")
	var peerKey, trust key.PublicKey // parsed by the flag package: a bad key is a usage error
	fs.TextVar(&peerKey, "peer", key.PublicKey{}, "sender: the receiver's public key")
	addr := fs.String("addr", "", "sender: address to connect to (msgs, blob)")
	n := fs.Int("n", 0, "sender: messages to send (msgs, resume)")
	rounds := fs.Int("rounds", 1, "sender, msgs mode: send n msgs this many times, each round in a new thread after a \"go\" on stdin (1: once, at once)")
	workers := fs.Int("workers", 128, "sender: goroutines calling Send")
	blob := fs.String("blob", "", "sender: file to send as a blob")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of this child")
	traceFile := fs.String("trace", "", "write an execution trace of this child")
	nosync := fs.Bool("nosync", false, "turn off fsync in the node (diagnosis only: not durable)")
	warm := fs.Bool("warm", false, "fault in the node's blob buffers at start and keep them (`awp run --warm-buffers`)")
	listen := fs.String("listen", "tcp://127.0.0.1:0", "receiver: address to listen on (tcp://…, wg://…, tailcat)")
	fs.TextVar(&trust, "trust", key.PublicKey{}, "receiver: a key to trust before listening (wg: the sender's, so its tunnel handshake is accepted)")
	derpMap := fs.String("derp-map", "", "tailcat: file holding the DERP map (JSON) of the in-process relay")
	rawBytes := fs.Int64("raw-bytes", 0, "raw mode: bytes to stream after the warm-up")
	heartbeat := fs.Duration("heartbeat", 0, "fleet mode: the presence heartbeat")
	window := fs.Duration("window", 0, "fleet mode: how long to measure the steady-state traffic")
	memprofile := fs.String("memprofile", "", "write a heap profile of this child at its peak resident memory")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	out := json.NewEncoder(os.Stdout)
	var outMu sync.Mutex
	emit := func(m childMsg) {
		m.CPUS = cpuSeconds()
		outMu.Lock()
		defer outMu.Unlock()
		_ = out.Encode(m)
	}
	for _, rec := range []struct {
		path  string
		start func(io.Writer) error
		stop  func()
	}{
		{*cpuprofile, pprof.StartCPUProfile, pprof.StopCPUProfile},
		{*traceFile, trace.Start, trace.Stop},
	} {
		if rec.path == "" {
			continue
		}
		stop, err := record(rec.path, rec.start, rec.stop)
		if err != nil {
			emit(childMsg{Event: "error", Err: err.Error()})
			return 1
		}
		defer stop()
	}
	c := &child{role: *role, mode: *mode, data: *data, keyFile: *keyFile, peerKey: peerKey, addr: *addr,
		n: *n, rounds: max(*rounds, 1), workers: max(*workers, 1), blob: *blob, nosync: *nosync, warm: *warm, emit: emit, stdin: bufio.NewScanner(os.Stdin),
		listen: *listen, trust: trust, derpMap: *derpMap, rawBytes: *rawBytes, heartbeat: *heartbeat, window: *window}
	if *memprofile != "" {
		c.mem = startMemWatch(*memprofile)
	}
	if err := c.run(); err != nil {
		emit(childMsg{Event: "error", Err: err.Error()})
		return 1
	}
	return 0
}

type child struct {
	role, mode, data, keyFile, addr, blob string
	listen, derpMap                       string
	peerKey, trust                        key.PublicKey
	n, rounds, workers                    int
	rawBytes                              int64
	heartbeat, window                     time.Duration
	nosync, warm                          bool
	emit                                  func(childMsg)
	stdin                                 *bufio.Scanner
	node                                  *peer.Node
	mem                                   *memWatch // -memprofile
}

// command waits for the next stdin line; EOF reads as "stop".
func (c *child) command() string {
	if c.stdin.Scan() {
		return strings.TrimSpace(c.stdin.Text())
	}
	return "stop"
}

func (c *child) run() error {
	if c.mode == "fleet" { // its nodes make their own keys
		return c.runFleet(c.n, c.heartbeat, c.window)
	}
	seed, err := os.ReadFile(c.keyFile)
	if err != nil {
		return err
	}
	raw, err := hex.DecodeString(strings.TrimSpace(string(seed)))
	if err != nil {
		return fmt.Errorf("key file: %w", err)
	}
	k, err := key.FromSeed(raw)
	if err != nil {
		return err
	}
	tc, err := c.tailcatOptions()
	if err != nil {
		return err
	}
	if c.mode == "raw" {
		return c.runRaw(k, tc)
	}
	if c.mode == "scale" {
		return c.runScale(k)
	}

	cfg := peer.Config{Key: k, DataDir: c.data, Name: "awpbench-" + c.role, NoSync: c.nosync, WarmBuffers: c.warm}
	if c.role == "receiver" {
		cfg.Listen = []string{c.listen}
		if !c.trust.IsZero() {
			cfg.Trust = []key.PublicKey{c.trust} // applied before the listeners start
		}
	}
	cfg.Tailcat = tc
	nd, err := peer.New(cfg)
	if err != nil {
		return err
	}
	c.node = nd
	if err := nd.Start(); err != nil {
		nd.Close()
		return err
	}
	var werr error
	switch {
	case c.mode == "idle":
		werr = c.idle()
	case c.mode == "latency":
		werr = c.latency()
	case c.role == "receiver":
		werr = c.receiver()
	case c.role == "sender":
		werr = c.sender()
	default:
		werr = fmt.Errorf("unknown role %q", c.role)
	}
	cerr := nd.Close()
	if werr != nil {
		return werr
	}
	if cerr != nil {
		return cerr
	}
	c.emit(childMsg{Event: "done", RSSMB: peakRSSMB(), Mem: c.memAccount()})
	return nil
}

// tailcatOptions reads -derp-map (the parent's in-process relay), if given.
func (c *child) tailcatOptions() (transport.TailcatOptions, error) {
	if c.derpMap == "" {
		return transport.TailcatOptions{}, nil
	}
	b, err := os.ReadFile(c.derpMap)
	if err != nil {
		return transport.TailcatOptions{}, err
	}
	var dm tailcfg.DERPMap
	if err := json.Unmarshal(b, &dm); err != nil {
		return transport.TailcatOptions{}, fmt.Errorf("derp map: %w", err)
	}
	return transport.TailcatOptions{DERPMap: &dm}, nil
}

// memAccount is where the memory was at the peak (-memprofile), or "".
func (c *child) memAccount() string {
	if c.mem == nil {
		return ""
	}
	return c.mem.finish()
}

// receiver announces its address, then serves until told to stop. In blob
// mode it also reports when a received blob is complete.
func (c *child) receiver() error {
	addrs := c.node.ListenAddrs()
	if len(addrs) == 0 {
		return errors.New("no listen address")
	}
	c.emit(childMsg{Event: "ready", Addr: addrs[0], Key: c.node.Key().String()})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	if c.mode == "blob" {
		wg.Go(func() { c.watchBlob(stop) })
	}
	for c.command() != "stop" {
	}
	close(stop)
	wg.Wait()
	return nil
}

// watchBlob waits until an inbound blob is complete (its sha256 checked by
// the node) or corrupt: told by the node's blob events, published right
// after the commit that completes it (polling Blobs() every millisecond, as
// before 2026-11-30 08:10, cost the receiving node ~3% of its CPU during
// the transfer). A poll every 50 ms covers events a full subscriber queue
// would drop.
func (c *child) watchBlob(stop <-chan struct{}) {
	events, cancel := c.node.Subscribe(4096)
	defer cancel()
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	done := func(b peer.BlobInfo) bool {
		if b.Dir != "in" || !(b.Complete || b.Corrupt) {
			return false
		}
		c.emit(childMsg{Event: "blob", CompleteNS: time.Now().UnixNano(), Size: b.Received,
			Sha256: b.Sha256, Corrupt: b.Corrupt})
		return true
	}
	for {
		select {
		case <-stop:
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			if ev.Type == peer.EventBlob && ev.Blob != nil && done(*ev.Blob) {
				return
			}
		case <-t.C:
			bs, err := c.node.Blobs()
			if err != nil {
				c.emit(childMsg{Event: "error", Err: err.Error()})
				return
			}
			for _, b := range bs {
				if done(b) {
					return
				}
			}
		}
	}
}

func (c *child) sender() error {
	ctx := context.Background()
	switch c.mode {
	case "msgs":
		if err := c.connectTimed(ctx); err != nil {
			return err
		}
		for range c.rounds {
			if c.rounds > 1 {
				// The parent alternates this pair's rounds with another's.
				if cmd := c.command(); cmd != "go" {
					return fmt.Errorf("want go, got %q", cmd)
				}
			}
			start := time.Now()
			th, err := c.sendMany(ctx)
			if err != nil {
				return err
			}
			sent := time.Since(start)
			if err := c.resultAcked(th, start, childMsg{SendS: sent.Seconds()}); err != nil {
				return err
			}
		}
	case "resume":
		start := time.Now()
		th, err := c.sendMany(ctx)
		if err != nil {
			return err
		}
		c.emit(childMsg{Event: "queued", N: c.n, SendS: time.Since(start).Seconds()})
		cmd := c.command()
		a, ok := strings.CutPrefix(cmd, "connect ")
		if !ok {
			return fmt.Errorf("want connect ADDR, got %q", cmd)
		}
		t0 := time.Now()
		if err := c.connect(ctx, a); err != nil {
			return err
		}
		connected := time.Since(t0)
		if err := c.resultAcked(th, t0, childMsg{ConnectS: connected.Seconds()}); err != nil {
			return err
		}
	case "blob":
		if err := c.connectTimed(ctx); err != nil {
			return err
		}
		start := time.Now()
		if _, err := c.node.Send(ctx, peer.SendRequest{To: c.peerKey, Subject: "blob",
			Blobs: []peer.BlobFile{{Path: c.blob}}}); err != nil {
			return err
		}
		c.emit(childMsg{Event: "sent", StartNS: start.UnixNano(), SentNS: time.Now().UnixNano()})
		for c.command() != "stop" {
		}
	default:
		return fmt.Errorf("sender: unknown mode %q", c.mode)
	}
	return nil
}

// resultAcked waits until the c.n msgs of th are acked and reports r as
// the "result", with the seconds from start until then (AckedS).
func (c *child) resultAcked(th string, start time.Time, r childMsg) error {
	if err := c.waitAcked(th, c.n, 10*time.Minute); err != nil {
		return err
	}
	r.Event, r.N, r.AckedS = "result", c.n, time.Since(start).Seconds()
	c.emit(r)
	return nil
}

// connectTimed connects to c.addr and reports how long that took
// ("connected").
func (c *child) connectTimed(ctx context.Context) error {
	t0 := time.Now()
	if err := c.connect(ctx, c.addr); err != nil {
		return err
	}
	c.emit(childMsg{Event: "connected", ConnectS: time.Since(t0).Seconds()})
	return nil
}

func (c *child) connect(ctx context.Context, addr string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute) // tailcat on a loaded host can take a while
	defer cancel()
	k, err := c.node.Connect(ctx, addr)
	if err != nil {
		return err
	}
	if k != c.peerKey {
		return fmt.Errorf("connected to %s, want %s", k, c.peerKey)
	}
	return nil
}

// sendMany sends c.n short text msgs in one new thread from c.workers
// goroutines and returns the thread.
func (c *child) sendMany(ctx context.Context) (string, error) {
	th := wire.NewThread()
	part := []json.RawMessage{wire.TextPart("a typical short message of about sixty bytes or so")}
	var next atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	for range c.workers {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(c.n) || firstErr.Load() != nil {
					return
				}
				r := peer.SendRequest{To: c.peerKey, Th: th, Parts: part}
				if i == 1 {
					r.Subject = "awpbench"
				}
				if _, err := c.node.Send(ctx, r); err != nil {
					firstErr.CompareAndSwap(nil, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err, _ := firstErr.Load().(error); err != nil {
		return "", err
	}
	return th, nil
}

// waitAcked polls every 2 ms until line n of my thread th is acked.
func (c *child) waitAcked(th string, n int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		ls, err := c.node.LinesAfter(th, key.PublicKey{}, uint64(n-1), 1)
		if err == nil && len(ls) == 1 && ls[0].Acked {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("line %d of %s not acked after %s", n, th, timeout)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// record starts a profile or trace into a new file at path; the function
// it returns stops it and closes the file.
func record(path string, start func(io.Writer) error, stop func()) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := start(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		stop()
		f.Close()
	}, nil
}
