package peer

import (
	"crypto/ed25519"
	"fmt"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/presence"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// BenchmarkPresenceRelay100 measures how many presence documents one node
// verifies, keeps and relays to 100 peers per second, and, in the same run,
// how many ed25519 verifications per second this machine does (the limit:
// each document costs one verification plus 100 line writes).
func BenchmarkPresenceRelay100(b *testing.B) {
	n := newTestNode(b, "relay", func(c *Config) { c.Logger = nil; c.Listen = nil })
	hello := &wire.Hello{Caps: []string{"presence"}}
	var sessions []*session
	for i := 0; i < 101; i++ {
		k, _ := key.NewPrivate()
		s := &session{n: n.Node, peer: k.Public(), hello: hello}
		s.wq.init(1<<30, nil)
		sessions = append(sessions, s)
		n.sessions[s.peer] = s
	}
	from := sessions[0]
	origin, _ := key.NewPrivate()
	docs := make([][]byte, b.N)
	now := time.Now()
	for i := range docs {
		raw, err := presence.Sign(origin, presence.Doc{Name: "origin", Seq: int64(i + 1), TS: wire.FormatTime(now), Peers: []presence.PeerEntry{{Key: origin.Public().String(), Up: true}}})
		if err != nil {
			b.Fatal(err)
		}
		docs[i] = raw
	}
	drain := func() {
		for _, s := range sessions {
			s.wq.mu.Lock()
			s.wq.items, s.wq.bytes = nil, 0
			s.wq.mu.Unlock()
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := &wire.Presence{Hops: 1, Doc: docs[i]}
		n.onPresence(from, p)
		// The relay, here and now rather than after presence.RelayWait
		// (the timer then finds every neighbour holding it).
		n.relayPresence(origin.Public(), int64(i+1))
		if i%64 == 0 {
			drain()
		}
	}
	b.StopTimer()
	n.mu.Lock()
	for _, s := range sessions {
		delete(n.sessions, s.peer)
	}
	n.mu.Unlock()
	if got := n.PresenceSent(origin.Public(), int64(b.N)); got != 100 {
		b.Fatalf("last document relayed to %d peers, want 100", got)
	}
	docsPerS := float64(b.N) / b.Elapsed().Seconds()
	// The limit, measured now: ed25519 verifications per second.
	pub, priv, _ := ed25519.GenerateKey(nil)
	msg := []byte(fmt.Sprint("presence", b.N))
	sig := ed25519.Sign(priv, msg)
	start := time.Now()
	v := 0
	for time.Since(start) < 300*time.Millisecond {
		ed25519.Verify(pub, msg, sig)
		v++
	}
	verifyPerS := float64(v) / time.Since(start).Seconds()
	b.ReportMetric(docsPerS, "docs/s")
	b.ReportMetric(verifyPerS, "verify/s")
	b.ReportMetric(docsPerS/verifyPerS, "ratio")
}
