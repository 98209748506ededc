package presence

import (
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/key/keytest"
	"github.com/awp-tray/awp-tray/peer/wire"
)

func signed(t *testing.T, k key.PrivateKey, seq int64, now time.Time) (*Doc, []byte) {
	t.Helper()
	raw, err := Sign(k, Doc{Seq: seq, TS: wire.FormatTime(now), Peers: []PeerEntry{}})
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := Verify(raw)
	if err != nil {
		t.Fatal(err)
	}
	return d, raw
}

// TestRelayState: a document is relayed once, with one more hop than the
// fewest any copy brought before the relay fired, to the neighbours not
// known to hold it; one taken at the hop limit is relayed after all when a
// copy under it comes; a relay that went out at the limit goes again, under
// it, to the neighbours it left there; a replaced one is not relayed.
func TestRelayState(t *testing.T) {
	var tb Table
	me, a, b, c := keytest.NewPublic(t), keytest.NewPublic(t), keytest.NewPublic(t), keytest.NewPublic(t)
	ok, _ := key.NewPrivate()
	origin := ok.Public()
	now := time.Now()
	offer := func(seq int64, hops int, from key.PublicKey) []byte {
		t.Helper()
		d, raw := signed(t, ok, seq, now)
		if err := tb.Offer(me, origin, d, raw, hops, from, now); err != nil {
			t.Fatal(err)
		}
		return raw
	}
	raw := offer(10, 5, a)
	if !tb.StartRelay(origin, 10) || tb.StartRelay(origin, 10) {
		t.Fatal("StartRelay: want true once")
	}
	if !tb.Same(origin, 10, raw) || tb.Same(origin, 10, append(raw[:len(raw):len(raw)], ' ')) || tb.Same(origin, 9, raw) {
		t.Fatal("Same")
	}
	if tb.Copy(origin, 10, b, 3) {
		t.Fatal("a copy while a relay is pending asked for another")
	}
	got, hops, needs, okr := tb.Relay(origin, 10, now)
	if !okr || string(got) != string(raw) || hops != 4 || needs(a) || needs(b) || !needs(c) {
		t.Fatalf("Relay = %d hops, needs a %v b %v c %v, %v", hops, needs(a), needs(b), needs(c), okr)
	}
	if _, _, _, okr := tb.Relay(origin, 10, now); okr {
		t.Fatal("relayed twice")
	}

	// Taken at the limit: not relayed, until a copy with fewer hops.
	offer(11, wire.MaxHops, a)
	if tb.StartRelay(origin, 11) {
		t.Fatal("a document at the hop limit is to be relayed")
	}
	if tb.Copy(origin, 11, b, wire.MaxHops) {
		t.Fatal("a copy at the limit asked for a relay")
	}
	if !tb.Copy(origin, 11, c, 6) {
		t.Fatal("a copy under the limit did not ask for the relay")
	}
	if _, hops, _, okr := tb.Relay(origin, 11, now); !okr || hops != 7 {
		t.Fatalf("relay after the limit: %d hops, %v", hops, okr)
	}

	// Relayed at the limit (to c), then a shorter copy: c gets it again.
	offer(12, wire.MaxHops-1, a)
	tb.StartRelay(origin, 12)
	_, hops, needs, _ = tb.Relay(origin, 12, now)
	if hops != wire.MaxHops || !needs(c) {
		t.Fatalf("relay at the limit: %d hops, needs c %v", hops, needs(c))
	}
	tb.Saw(origin, 12, c, hops)
	if !tb.Copy(origin, 12, b, 3) {
		t.Fatal("a shorter copy after a relay at the limit did not ask for another")
	}
	_, hops, needs, okr = tb.Relay(origin, 12, now)
	if !okr || hops != 4 || !needs(c) || needs(a) || needs(b) {
		t.Fatalf("second relay: %d hops, needs a %v b %v c %v", hops, needs(a), needs(b), needs(c))
	}
	tb.Saw(origin, 12, c, hops)
	if tb.Copy(origin, 12, a, 2) {
		t.Fatal("a relay under the limit went again")
	}

	// Replaced before its relay fired: nothing to send.
	offer(13, 2, a)
	tb.StartRelay(origin, 13)
	offer(14, 2, a)
	if _, _, _, okr := tb.Relay(origin, 13, now); okr {
		t.Fatal("a replaced document was relayed")
	}
	tb.Saw(origin, 13, c, 2) // an old seq: nothing recorded
	tb.StartRelay(origin, 14)
	if _, _, needs, _ := tb.Relay(origin, 14, now); !needs(c) {
		t.Fatal("Saw of an old seq marked the current one")
	}
	// Holders are bounded.
	offer(15, 2, a)
	var many []key.PublicKey
	for range MaxHolders * 2 {
		k := keytest.NewPublic(t)
		many = append(many, k)
		tb.Saw(origin, 15, k, 3)
	}
	tb.StartRelay(origin, 15)
	_, _, needs, _ = tb.Relay(origin, 15, now)
	known := 0
	for _, k := range many {
		if !needs(k) {
			known++
		}
	}
	if known != MaxHolders-1 { // a is the first
		t.Fatalf("%d holders kept, bound %d", known+1, MaxHolders)
	}
}

func TestPeek(t *testing.T) {
	k, _ := key.NewPrivate()
	_, raw := signed(t, k, 77, time.Now())
	o, seq, ok := Peek(raw)
	if !ok || o != k.Public() || seq != 77 {
		t.Fatalf("Peek = %v %d %v", o, seq, ok)
	}
	for _, bad := range []string{``, `{}`, `{"origin":"x","seq":1}`, `[1]`, `{"origin":1}`} {
		if _, _, ok := Peek([]byte(bad)); ok {
			t.Errorf("Peek(%q) ok", bad)
		}
	}
}
