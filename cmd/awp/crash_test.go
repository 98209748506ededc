package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

// Crash tests (docs/protocol/acks-and-resume.md–§7): a burst of msgs in one thread between two real
// `awp run` processes over loopback tcp, with one of them killed -9 in the
// middle and restarted on the same data directory. Nothing acked or
// durably queued may be lost, nothing may arrive twice, and the thread
// keeps the sender's order.
//
// `make test` runs one iteration of each; AWP_LONG=1 (`make test-long`)
// runs crashIterationsLong with random kill points. AWP_CRASH_SEED=N
// replays one run's kill points.

const (
	crashMsgs           = 3000 // msgs per burst
	crashMsgsLong       = 3000 // per iteration under AWP_LONG
	crashIterationsLong = 20
	crashWorkers        = 16 // concurrent senders
	// Every crashCLIEvery-th msg goes through an `awp send` process, the
	// others through the same /v0/send endpoint from the test process
	// (spawning thousands of processes per iteration would dominate the
	// run time on a small machine without testing anything more).
	crashCLIEvery     = 3
	crashCLIEveryLong = 8
)

// crashPlan is one iteration's parameters.
type crashPlan struct {
	msgs, cliEvery int
	killAt         int           // kill once this many msgs of the burst were queued
	downFor        time.Duration // how long the killed side stays down
}

// crashPlans returns the iterations to run and logs the seed.
func crashPlans(t *testing.T) []crashPlan {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("AWP_CRASH_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("AWP_CRASH_SEED=%q: %v", s, err)
		}
		seed = v
	}
	t.Logf("kill points from AWP_CRASH_SEED=%d", seed)
	r := rand.New(rand.NewPCG(seed, 0x617770))
	n, msgs, cliEvery := 1, crashMsgs, crashCLIEvery
	if os.Getenv("AWP_LONG") == "1" {
		n, msgs, cliEvery = crashIterationsLong, crashMsgsLong, crashCLIEveryLong
	}
	plans := make([]crashPlan, n)
	for i := range plans {
		p := crashPlan{msgs: msgs, cliEvery: cliEvery, killAt: msgs / 2}
		if n > 1 || os.Getenv("AWP_CRASH_SEED") != "" {
			// Anywhere from the first msgs to the very end of the burst.
			p.killAt = 1 + r.IntN(msgs-1)
			p.downFor = time.Duration(r.IntN(1500)) * time.Millisecond
		}
		plans[i] = p
	}
	return plans
}

func TestCrashReceiver(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real peers and kills them")
	}
	for i, p := range crashPlans(t) {
		t.Run(fmt.Sprintf("iter%02d_kill%d", i, p.killAt), func(t *testing.T) { crashReceiver(t, p) })
	}
}

func TestCrashSender(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real peers and kills them")
	}
	for i, p := range crashPlans(t) {
		t.Run(fmt.Sprintf("iter%02d_kill%d", i, p.killAt), func(t *testing.T) { crashSender(t, p) })
	}
}

// crashText names msg i of a burst.
func crashText(i int) string { return fmt.Sprintf("m-%05d", i) }

// sendOutcome is what one send reported.
type sendOutcome struct {
	tried, ok bool
	id        string
	err       string
}

// burst sends msgs to one thread through a pool of workers.
type burst struct {
	d        *daemon
	to, th   string
	cliEvery int

	mu  sync.Mutex // guards out and okN
	out []sendOutcome
	okN int
}

func newBurst(d *daemon, to, th string, n, cliEvery int) *burst {
	return &burst{d: d, to: to, th: th, cliEvery: cliEvery, out: make([]sendOutcome, n)}
}

// run sends msg i for every i in idx, crashWorkers at a time, until idx is
// done or stop is closed (msgs not begun by then are left untried). When
// okAt > 0, reached is closed once okAt msgs were queued (or the burst
// ended). It returns when every worker has finished.
func (b *burst) run(idx []int, stop <-chan struct{}, okAt int, reached chan<- struct{}) {
	work := make(chan int)
	var wg sync.WaitGroup
	var once sync.Once
	signal := func() {
		if reached != nil {
			once.Do(func() { close(reached) })
		}
	}
	defer signal()
	cl := b.d.client()
	defer cl.CloseIdle()
	for range crashWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				o := b.send(cl, i)
				b.mu.Lock()
				b.out[i] = o
				if o.ok {
					b.okN++
				}
				hit := okAt > 0 && b.okN >= okAt
				b.mu.Unlock()
				if hit {
					signal()
				}
			}
		}()
	}
feed:
	for _, i := range idx {
		select {
		case work <- i:
		case <-stop:
			break feed
		}
	}
	close(work)
	wg.Wait()
}

// send queues msg i, through `awp send` or the local API.
func (b *burst) send(cl interface {
	Send(context.Context, peer.SendRequest) (peer.SendResult, error)
}, i int) sendOutcome {
	ctx, cancel := context.WithTimeout(context.Background(), cliWait)
	defer cancel()
	if b.cliEvery > 0 && i%b.cliEvery == 0 {
		out, errs, code, err := awpExec(ctx, "send", "--data", b.d.dir, "--to", b.to, "--th", b.th, "--text", crashText(i))
		if err != nil || code != 0 {
			return sendOutcome{tried: true, err: fmt.Sprintf("awp send: exit %d (%v): %s", code, err, strings.TrimSpace(errs))}
		}
		var r peer.SendResult
		if err := json.Unmarshal([]byte(out), &r); err != nil || r.ID == "" || r.Th != b.th {
			return sendOutcome{tried: true, err: fmt.Sprintf("awp send printed %q (%v)", out, err)}
		}
		return sendOutcome{tried: true, ok: true, id: r.ID}
	}
	r, err := cl.Send(ctx, peer.SendRequest{To: key.MustParsePublic(b.to), Th: b.th, Parts: []json.RawMessage{textPartJSON(crashText(i))}})
	if err != nil {
		return sendOutcome{tried: true, err: "send: " + err.Error()}
	}
	if r.ID == "" || r.Th != b.th {
		return sendOutcome{tried: true, err: fmt.Sprintf("send result %+v", r)}
	}
	return sendOutcome{tried: true, ok: true, id: r.ID}
}

func (b *burst) outcomes() []sendOutcome {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.out)
}

// crashPair starts a receiver and a sender, connects the sender to the
// receiver (so it keeps dialing it, also after a restart) and opens the
// thread with msg 0. It returns the thread id and msg 0's id.
func crashPair(t *testing.T) (snd, rcv *daemon, th, id0 string) {
	t.Helper()
	rcv = newDaemon(t, "receiver")
	snd = newDaemon(t, "sender")
	if got := strings.TrimSpace(awpOK(t, "connect", "--data", snd.dir, rcv.Listen()[0])); got != rcv.Key() {
		t.Fatalf("connect printed %q, want the receiver's key %s", got, rcv.Key())
	}
	res := awpJSON[peer.SendResult](t, "send", "--data", snd.dir, "--to", rcv.Key(), "--subject", "crash", "--text", crashText(0))
	if res.ID == "" || !strings.HasPrefix(res.Th, "thr_") {
		t.Fatalf("send printed %+v", res)
	}
	return snd, rcv, res.Th, res.ID
}

// burstRange returns 1..n-1 (msg 0 opened the thread).
func burstRange(n int) []int {
	idx := make([]int, 0, n-1)
	for i := 1; i < n; i++ {
		idx = append(idx, i)
	}
	return idx
}

// waitAllAcked waits until the sender's thread holds only out lines, all
// acknowledged, and the receiver holds as many lines; it returns both.
func waitAllAcked(t *testing.T, snd, rcv *daemon, th string, minOut int) (sent, got []shownLine) {
	t.Helper()
	eventually(t, "every msg delivered and acked", func() (bool, string) {
		sent = showLines(t, snd, th, "")
		acked := 0
		for _, l := range sent {
			if l.Dir == "out" && l.Acked {
				acked++
			}
		}
		if len(sent) < minOut || acked != len(sent) {
			return false, fmt.Sprintf("sender has %d lines (want at least %d), %d acked", len(sent), minOut, acked)
		}
		got = showLines(t, rcv, th, "")
		if len(got) != len(sent) {
			return false, fmt.Sprintf("receiver has %d lines, sender %d (all acked)", len(got), len(sent))
		}
		return true, ""
	})
	return sent, got
}

// checkSameThread checks that the receiver holds exactly the sender's out
// lines, each once, in the sender's order, and that the ids increase.
func checkSameThread(t *testing.T, sent, got []shownLine, senderKey string) {
	t.Helper()
	seen := map[string]int{}
	texts := map[string]int{}
	for i, l := range got {
		if l.Dir != "in" || l.From != senderKey || l.Line.T != "msg" {
			t.Errorf("receiver line %d: dir %q from %s t %q, want an in msg from the sender", i, l.Dir, l.From, l.Line.T)
		}
		seen[l.Line.ID]++
		texts[l.text()]++
	}
	for id, c := range seen {
		if c != 1 {
			t.Errorf("receiver holds id %s %d times", id, c)
		}
	}
	for tx, c := range texts {
		if c != 1 {
			t.Errorf("receiver holds text %q %d times", tx, c)
		}
	}
	for i, l := range sent {
		if l.Dir != "out" {
			t.Errorf("sender line %d: dir %q, want out", i, l.Dir)
		}
		if i > 0 && l.Line.ID <= sent[i-1].Line.ID {
			t.Errorf("sender's ids do not increase at line %d: %s after %s", i, l.Line.ID, sent[i-1].Line.ID)
		}
	}
	if len(got) != len(sent) {
		t.Fatalf("receiver has %d lines, sender %d", len(got), len(sent))
	}
	bad := 0
	for i := range sent {
		if sent[i].Line.ID != got[i].Line.ID {
			if bad++; bad <= 5 {
				t.Errorf("line %d: receiver has %s (%s), sender %s (%s): not in send order",
					i, got[i].Line.ID, got[i].text(), sent[i].Line.ID, sent[i].text())
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d lines out of order", bad)
	}
}

// crashReceiver kills the receiver in the middle of the burst.
func crashReceiver(t *testing.T, p crashPlan) {
	snd, rcv, th, id0 := crashPair(t)
	listen := rcv.Listen()
	if len(listen) != 1 || !strings.HasPrefix(listen[0], "tcp://127.0.0.1:") {
		t.Fatalf("receiver listens on %q", listen)
	}

	b := newBurst(snd, rcv.Key(), th, p.msgs, p.cliEvery)
	reached := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.run(burstRange(p.msgs), nil, p.killAt, reached)
	}()
	<-reached
	rcv.kill9()
	// Acks already received by the sender came from lines the receiver
	// had stored durably: each of them must survive the kill.
	before := showLines(t, snd, th, "")
	var ackedBefore []string
	for _, l := range before {
		if l.Acked {
			ackedBefore = append(ackedBefore, l.Line.ID)
		}
	}
	t.Logf("receiver killed after %d msgs queued; the sender holds %d lines, %d acked", p.killAt, len(before), len(ackedBefore))
	time.Sleep(p.downFor)
	// Same data directory, same address: the sender redials by itself.
	rcv.restart("--listen", listen[0])
	<-done

	outs := b.outcomes()
	ids := map[string]int{id0: 0}
	for i, o := range outs[1:] {
		if !o.ok {
			t.Fatalf("msg %d: %s (the sender never stopped)", i+1, o.err)
		}
		ids[o.id] = i + 1
	}
	sent, got := waitAllAcked(t, snd, rcv, th, p.msgs)
	if len(sent) != p.msgs {
		t.Errorf("sender holds %d lines, sent %d", len(sent), p.msgs)
	}
	checkSameThread(t, sent, got, snd.Key())
	have := map[string]string{}
	for _, l := range got {
		have[l.Line.ID] = l.text()
	}
	for _, id := range ackedBefore {
		if _, ok := have[id]; !ok {
			t.Errorf("line %s was acked before the kill but the receiver lost it", id)
		}
	}
	for id, i := range ids {
		if tx, ok := have[id]; !ok || tx != crashText(i) {
			t.Errorf("msg %d (%s): receiver has %q, %v", i, id, tx, ok)
		}
	}
}

// crashSender kills the sender in the middle of the burst.
func crashSender(t *testing.T, p crashPlan) {
	snd, rcv, th, id0 := crashPair(t)

	b := newBurst(snd, rcv.Key(), th, p.msgs, p.cliEvery)
	reached := make(chan struct{})
	stop := make(chan struct{})
	done := make(chan struct{})
	idx := burstRange(p.msgs)
	go func() {
		defer close(done)
		b.run(idx, stop, p.killAt, reached)
	}()
	<-reached
	snd.kill9()
	close(stop)
	<-done
	outs := b.outcomes()
	var okN, failed int
	var untried []int
	for _, i := range idx {
		switch o := outs[i]; {
		case o.ok:
			okN++
		case o.tried:
			failed++
		default:
			untried = append(untried, i)
		}
	}
	t.Logf("sender killed: %d msgs queued, %d sends failed (queued or not), %d not tried", okN, failed, len(untried))
	time.Sleep(p.downFor)

	// The restarted sender redials the receiver it dialed before the kill.
	snd.restart()
	eventually(t, "the restarted sender reconnects", func() (bool, string) {
		ps := awpJSON[[]peer.PeerInfo](t, "peers", "--data", snd.dir, "--json")
		for _, pi := range ps {
			if pi.Key.String() == rcv.Key() && pi.Up {
				return true, ""
			}
		}
		return false, fmt.Sprintf("peers: %+v", ps)
	})
	// The rest of the burst, to the restarted sender.
	b.run(untried, nil, 0, nil)
	outs = b.outcomes()
	for _, i := range untried {
		if !outs[i].ok {
			t.Fatalf("msg %d after the restart: %s", i, outs[i].err)
		}
	}

	sent, got := waitAllAcked(t, snd, rcv, th, 1+okN+len(untried))
	checkSameThread(t, sent, got, snd.Key())
	have := map[string]string{}
	for _, l := range got {
		have[l.Line.ID] = l.text()
	}
	if tx := have[id0]; tx != crashText(0) {
		t.Errorf("msg 0 (%s): receiver has %q", id0, tx)
	}
	lost := 0
	for _, i := range idx {
		o := outs[i]
		if !o.ok {
			continue // failed mid-kill: may or may not have been queued
		}
		if tx, ok := have[o.id]; !ok || tx != crashText(i) {
			if lost++; lost <= 5 {
				t.Errorf("msg %d (%s) was queued (send returned) but the receiver has %q, %v", i, o.id, tx, ok)
			}
		}
	}
	if lost > 0 {
		t.Errorf("%d queued msgs lost", lost)
	}
	// Every line the sender holds is one of the burst's msgs.
	for _, l := range sent {
		tx := l.text()
		n, err := strconv.Atoi(strings.TrimPrefix(tx, "m-"))
		if err != nil || !strings.HasPrefix(tx, "m-") || n < 0 || n >= p.msgs {
			t.Errorf("sender holds an unexpected line %s %q", l.Line.ID, tx)
			continue
		}
		if o := outs[n]; n > 0 && o.ok && o.id != l.Line.ID {
			t.Errorf("msg %d: send returned id %s, the sender holds it as %s", n, o.id, l.Line.ID)
		}
	}
}
