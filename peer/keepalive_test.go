package peer

import (
	"testing"
	"time"
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
			if e.Type == EventPeerDown && e.Peer == b.Key().String() {
				return
			}
		case <-deadline:
			t.Fatal("a silent peer's session was never dropped")
		}
	}
}
