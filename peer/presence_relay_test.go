package peer

import (
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/presence"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// TestPresenceRelaySkipsHolders: a relay forwards a new document to the
// neighbours that did not send it a copy meanwhile, not to the origin, and
// not at all once a newer document replaced it; the timer that fires later
// sends nothing more.
func TestPresenceRelaySkipsHolders(t *testing.T) {
	n := newTestNode(t, "relay", func(c *Config) { c.Logger = nil; c.Listen = nil; c.PresenceHeartbeat = time.Hour })
	hello := &wire.Hello{Caps: []string{"presence"}}
	origin, _ := key.NewPrivate()
	var ss []*session
	for i := range 5 {
		k, _ := key.NewPrivate()
		if i == 4 {
			k = origin // the origin is also a neighbour
		}
		s := &session{n: n.Node, peer: k.Public(), hello: hello}
		s.wq.init(1<<20, nil)
		ss = append(ss, s)
		n.mu.Lock()
		n.sessions[s.peer] = s
		n.mu.Unlock()
	}
	t.Cleanup(func() {
		n.mu.Lock()
		for _, s := range ss {
			delete(n.sessions, s.peer)
		}
		n.mu.Unlock()
	})
	a, b, c, d := ss[0], ss[1], ss[2], ss[3]
	queued := func() []int {
		out := make([]int, len(ss))
		for i, s := range ss {
			s.wq.mu.Lock()
			out[i] = len(s.wq.items)
			s.wq.mu.Unlock()
		}
		return out
	}
	doc := func(seq int64) []byte {
		raw, err := presence.Sign(origin, presence.Doc{Seq: seq, TS: n.stamp(), Peers: []presence.PeerEntry{}})
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	d5 := doc(5)
	n.onPresence(a, &wire.Presence{Hops: 2, Doc: d5})
	n.onPresence(b, &wire.Presence{Hops: 3, Doc: d5}) // a copy: b holds it
	n.relayPresence(origin.Public(), 5)
	if got := queued(); got[0] != 0 || got[1] != 0 || got[2] != 1 || got[3] != 1 || got[4] != 0 {
		t.Fatalf("lines queued to a, b, c, d, origin: %v; want [0 0 1 1 0]", got)
	}
	time.Sleep(presence.RelayWaitMax + 100*time.Millisecond) // the relay's own timer
	if got := queued(); got[2] != 1 || got[3] != 1 {
		t.Fatalf("the timer sent again: %v", got)
	}
	// A newer document from c: everyone but c and the origin gets it.
	n.onPresence(c, &wire.Presence{Hops: 2, Doc: doc(6)})
	n.relayPresence(origin.Public(), 6)
	if got := queued(); got[0] != 1 || got[1] != 1 || got[2] != 1 || got[3] != 2 || got[4] != 0 {
		t.Fatalf("after seq 6: %v; want [1 1 1 2 0]", got)
	}
	// A document replaced before its relay is not relayed.
	n.onPresence(d, &wire.Presence{Hops: 2, Doc: doc(7)})
	n.onPresence(d, &wire.Presence{Hops: 2, Doc: doc(8)})
	before := queued()
	n.relayPresence(origin.Public(), 7)
	if got := queued(); got[0] != before[0] || got[1] != before[1] || got[2] != before[2] {
		t.Fatalf("a replaced document was relayed: %v → %v", before, got)
	}
	if seq, ok := n.PresenceSeq(origin.Public()); !ok || seq != 8 {
		t.Fatalf("PresenceSeq = %d, %v; want 8", seq, ok)
	}
}
