package peer

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer/wire"
)

func TestKeepalive(t *testing.T) {
	fast := func(c *Config) {
		c.KeepaliveInterval = 60 * time.Millisecond
		c.KeepaliveTimeout = 400 * time.Millisecond
	}
	a := newTestNode(t, "a", fast)
	b := newTestNode(t, "b", fast)
	connect(t, a, b)
	// Idle but alive: keepalive lines keep the session up well past the timeout.
	time.Sleep(time.Second)
	if a.sessionFor(b.Key()) == nil || b.sessionFor(a.Key()) == nil {
		t.Fatal("an idle, alive session was dropped")
	}
	sendText(t, a, b.Key(), "", "still here")

	// A peer that goes silent without closing (its writer is stalled) is
	// dropped once the timeout passes.
	ev, cancel := a.Subscribe(16)
	defer cancel()
	s := b.sessionFor(a.Key())
	s.wq.mu.Lock() // b's writer can no longer take anything: b falls silent
	defer s.wq.mu.Unlock()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case e := <-ev:
			if e.Type == EventPeerDown && e.Peer == b.Key() {
				return
			}
		case <-deadline:
			t.Fatal("a silent peer's session was never dropped")
		}
	}
}

// TestPingPong: the node answers a ping with its pong at once, bounds the
// pongs of a ping flood (a peer that floods and does not read cannot grow
// the queue ahead of content), and a probe of a session whose peer
// announces pings but stays silent finds it dead, one that answers alive.
func TestPingPong(t *testing.T) {
	a := newTestNode(t, "a")
	p := dialRaw(t, a)
	p.sendHello(p.hello(map[string]any{"caps": []string{"chat", TypeKeepalive, capPing}}))
	p.finishHandshake()
	testsync.Eventually(t, "a's session with the raw peer", func() bool { return a.sessionFor(p.priv.Public()) != nil })
	s := a.sessionFor(p.priv.Public())

	// A silent peer (announcing pings) fails a probe.
	if s.probe(200 * time.Millisecond) {
		t.Fatal("a silent peer passed a probe")
	}
	// One that answers passes. The failed probe's ping is still unread
	// ahead of this one's: every ping is answered until the probe ends
	// (a pong to the stale ping alone does not pass it).
	done := make(chan bool, 1)
	go func() { done <- s.probe(10 * time.Second) }()
answer:
	for {
		f := p.read()
		if u, ok := f.(*wire.Unknown); ok && u.T == TypeKeepalive && strings.Contains(string(u.Raw()), `"ping"`) {
			var k struct{ Ping string }
			json.Unmarshal(u.Raw(), &k)
			if k.Ping == "" {
				continue
			}
			p.line(p.obj(TypeKeepalive, map[string]any{"pong": k.Ping}))
			select {
			case ok := <-done:
				if !ok {
					t.Fatal("a peer that answered failed the probe")
				}
				break answer
			case <-time.After(2 * time.Second):
				// That pong answered an earlier ping: read on.
			}
		}
	}

	// A flood of pings gets at most the burst, and the node serves on.
	start := time.Now()
	for i := range 1000 {
		p.line(p.obj(TypeKeepalive, map[string]any{"ping": fmt.Sprint("p", i)}))
	}
	th := "thr_pingflood"
	id, m := p.msg(th, "after the flood")
	p.line(m)
	pongs := 0
	for _, l := range p.untilAck(th, id) {
		if strings.Contains(string(l), `"pong"`) {
			pongs++
		}
	}
	if max := pongBurst + int(time.Since(start)/pongEvery) + 1; pongs == 0 || pongs > max {
		t.Fatalf("%d pongs for 1000 pings, want 1 to %d", pongs, max)
	}
}
