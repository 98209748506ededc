package presence

import (
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/internal/vectors"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/key/keytest"
	"github.com/awp-tray/awp-tray/peer/wire"
)

func TestVector(t *testing.T) {
	var v struct {
		Canon string `json:"doc_canonical"`
		Raw   string `json:"doc_raw"`
		Line  string `json:"line"`
	}
	vectors.Read(t, "presence.json", &v)
	c, err := wire.CanonicalWithout([]byte(v.Raw), "sig")
	if err != nil || string(c) != v.Canon {
		t.Fatalf("canonical %s %v", c, err)
	}
	d, origin, err := Verify([]byte(v.Raw))
	if err != nil {
		t.Fatal(err)
	}
	if origin.String() != "ed25519:2inpWwLgD_oVZFd1-x0roiKhlDOV7qBrlOLAV7e-adA" || d.Seq != 1790352652876 || d.Harness != "codex" {
		t.Fatalf("doc %+v", d)
	}
	// The line decodes with the doc bytes intact, and a relay's line keeps them.
	f, err := wire.Decode([]byte(v.Line))
	if err != nil {
		t.Fatal(err)
	}
	p := f.(*wire.Presence)
	if string(p.Doc) != v.Raw || p.Hops != 1 {
		t.Fatalf("doc bytes changed: %s", p.Doc)
	}
	relayed := Line("01J9ZX0000000000000000000C", "2026-09-25T17:03:13Z", 2, p.Doc)
	f2, err := wire.Decode(relayed)
	if err != nil {
		t.Fatal(err)
	}
	if string(f2.(*wire.Presence).Doc) != v.Raw {
		t.Fatal("relay changed the doc bytes")
	}
	// Tampering breaks the signature.
	bad := []byte(v.Raw)
	bad[len(bad)-20] ^= 1
	if _, _, err := Verify(bad); err == nil {
		t.Fatal("tampered doc verified")
	}
}

func TestSignVerifyOffer(t *testing.T) {
	k := keytest.FromVector(t, vectors.Keys(t)["bob"])
	me, _ := key.NewPrivate()
	now := time.Date(2026, 9, 25, 17, 3, 12, 0, time.UTC)
	raw, err := Sign(k, Doc{Name: "bob", Seq: 5, TS: wire.FormatTime(now), Peers: []PeerEntry{}})
	if err != nil {
		t.Fatal(err)
	}
	d, origin, err := Verify(raw)
	if err != nil || origin != k.Public() {
		t.Fatal(err)
	}
	var tb Table
	from := me.Public()
	if err := tb.Offer(me.Public(), origin, d, raw, 1, from, now); err != nil {
		t.Fatal(err)
	}
	if err := tb.Offer(me.Public(), origin, d, raw, 1, from, now); err != ErrOld {
		t.Fatalf("replay: %v", err)
	}
	if err := tb.Offer(origin, origin, d, raw, 1, from, now); err != ErrOwn {
		t.Fatalf("own: %v", err)
	}
	if err := tb.Offer(me.Public(), origin, d, raw, 9, from, now); err != ErrHops {
		t.Fatalf("hops: %v", err)
	}
	if err := tb.Offer(me.Public(), origin, d, raw, 1, from, now.Add(11*time.Minute)); err != ErrStale {
		t.Fatalf("stale: %v", err)
	}
	if err := tb.Offer(me.Public(), origin, d, raw, 1, from, now.Add(-11*time.Minute)); err != ErrStale {
		t.Fatalf("future: %v", err)
	}
	if l := tb.List(now.Add(Expiry)); len(l) != 0 {
		t.Fatal("entry did not expire")
	}
}

func FuzzVerify(f *testing.F) {
	f.Add([]byte(`{"origin":"ed25519:2inpWwLgD_oVZFd1-x0roiKhlDOV7qBrlOLAV7e-adA","seq":1,"ts":"2026-09-25T17:03:11Z","sig":"x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _, _ = Verify(b)
	})
}

// testKey is the public key of seed n (distinct for distinct n).
func testKey(t *testing.T, n int) key.PublicKey {
	t.Helper()
	seed := make([]byte, 32)
	seed[0], seed[1], seed[2] = byte(n), byte(n>>8), 0xAB
	k, err := key.FromSeed(seed)
	if err != nil {
		t.Fatal(err)
	}
	return k.Public()
}

// One neighbour cannot fill the table with made-up origins, nor all of
// them together past MaxOrigins; a held origin still updates, expired
// entries make room, and a document over MaxDocBytes is dropped.
func TestTableBounded(t *testing.T) {
	me := testKey(t, 0xFFFF)
	now := time.Date(2026, 9, 25, 17, 3, 12, 0, time.UTC)
	doc := func(seq int64) *Doc { return &Doc{Seq: seq, TS: wire.FormatTime(now)} }
	raw := []byte(`{}`)
	var tb Table
	next := 1
	origin := func() key.PublicKey { next++; return testKey(t, next) }

	relayA := testKey(t, 0xFFFE)
	var fromA []key.PublicKey
	for range MaxPerRelay {
		o := origin()
		fromA = append(fromA, o)
		if err := tb.Offer(me, o, doc(1), raw, 2, relayA, now); err != nil {
			t.Fatal(err)
		}
	}
	if err := tb.Offer(me, origin(), doc(1), raw, 2, relayA, now); err != ErrFull {
		t.Fatalf("origin %d from one relay: %v, want ErrFull", MaxPerRelay+1, err)
	}
	if err := tb.Offer(me, fromA[0], doc(2), raw, 2, relayA, now); err != nil {
		t.Fatalf("an update of a held origin: %v", err)
	}
	// The origin's newer document through another relay moves it there,
	// which makes room at A.
	relayB := testKey(t, 0xFFFD)
	if err := tb.Offer(me, fromA[1], doc(2), raw, 1, relayB, now); err != nil {
		t.Fatal(err)
	}
	if err := tb.Offer(me, origin(), doc(1), raw, 2, relayA, now); err != nil {
		t.Fatalf("A after one of its origins moved: %v", err)
	}
	// Fill the whole table from other relays.
	for r := 0; len(tb.entries) < MaxOrigins; r++ {
		relay := testKey(t, 0xF000+r)
		for i := 0; i < MaxPerRelay && len(tb.entries) < MaxOrigins; i++ {
			if err := tb.Offer(me, origin(), doc(1), raw, 2, relay, now); err != nil {
				t.Fatalf("filling: %v", err)
			}
		}
	}
	fresh := testKey(t, 0xEEEE)
	if err := tb.Offer(me, origin(), doc(1), raw, 1, fresh, now); err != ErrFull {
		t.Fatalf("a new origin in a full table: %v, want ErrFull", err)
	}
	// Once the others expire, there is room again, and the counts follow.
	later := now.Add(Expiry)
	o := origin()
	if err := tb.Offer(me, o, &Doc{Seq: 1, TS: wire.FormatTime(later)}, raw, 1, fresh, later); err != nil {
		t.Fatalf("after expiry: %v", err)
	}
	if l := tb.List(later); len(l) != 1 || l[0].Origin != o {
		t.Fatalf("after expiry the table holds %d entries", len(l))
	}
	if len(tb.byFrom) != 1 || tb.byFrom[fresh] != 1 {
		t.Errorf("per-relay counts after expiry: %v", tb.byFrom)
	}
	big := make([]byte, MaxDocBytes+1)
	if err := tb.Offer(me, origin(), &Doc{Seq: 1, TS: wire.FormatTime(later)}, big, 1, fresh, later); err != ErrTooBig {
		t.Fatalf("a document over MaxDocBytes: %v", err)
	}
}
