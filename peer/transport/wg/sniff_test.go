package wg_test

import (
	"bytes"
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/key/keytest"
	"github.com/awp-tray/awp-tray/peer/transport/transporttest"
	"github.com/awp-tray/awp-tray/peer/transport/wg"
)

// TestEdwardsKeys: a WireGuard key names two AWP keys, and the AWP key it
// was made from is one of them.
func TestEdwardsKeys(t *testing.T) {
	for i := range 200 {
		k, err := key.NewPrivate()
		if err != nil {
			t.Fatal(err)
		}
		pk, err := wg.PublicKey(k.Public())
		if err != nil {
			t.Fatal(err)
		}
		ks := wg.EdwardsKeys(pk)
		found := false
		for _, c := range ks {
			if c == k.Public() {
				found = true
			}
			if got, err := wg.PublicKey(c); err != nil || got != pk {
				t.Fatalf("key %d: candidate %s maps to %x, want %x", i, c, got, pk)
			}
		}
		if !found || len(ks) != 2 {
			t.Fatalf("key %d: %s not among %v", i, k.Public(), ks)
		}
	}
}

// watched is a device with OnHandshake and OnRefused recorded.
type watched struct {
	*wg.Device
	key        key.PrivateKey
	handshakes chan key.PublicKey
	refused    chan wg.Refused
}

func newWatched(t *testing.T, seed byte) *watched {
	t.Helper()
	k := keytest.Seeded(t, seed)
	var err error
	w := &watched{key: k, handshakes: make(chan key.PublicKey, 16), refused: make(chan wg.Refused, 16)}
	w.Device, err = wg.New(wg.Config{Key: k,
		OnHandshake: func(p key.PublicKey) {
			select {
			case w.handshakes <- p:
			default:
			}
		},
		OnRefused: func(r wg.Refused) {
			select {
			case w.refused <- r:
			default:
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func (w *watched) endpoint() netip.AddrPort {
	return netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(w.Port()))
}

// TestNoHandshake (issue 18 item 16): a dial to a device that has not
// configured the dialer's key fails after HandshakeWait with a
// NoHandshakeError naming the peer ("has not added your invite"), and the
// refusing device reports the dropped initiation with the dialer's key
// among the two it names, once (rate-limited) for the retries.
func TestNoHandshake(t *testing.T) {
	transporttest.NoLeaks(t)
	a := newWatched(t, 1)
	b := newWatched(t, 2)
	if _, err := a.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wg.HandshakeWait+20*time.Second)
	defer cancel()
	start := time.Now()
	_, err := b.Dial(ctx, a.key.Public(), a.endpoint())
	var nh *wg.NoHandshakeError
	if !errors.As(err, &nh) || nh.Peer != a.key.Public() || !strings.Contains(err.Error(), a.key.Public().String()+" has not added your invite") {
		t.Fatalf("dial: %v; want a NoHandshakeError naming %s", err, a.key.Public())
	}
	if ctx.Err() != nil {
		t.Fatalf("the dial waited for its context (%v), not HandshakeWait", time.Since(start))
	}
	r := <-a.refused
	if r.From.Port() != uint16(b.Port()) || (r.Keys[0] != b.key.Public() && r.Keys[1] != b.key.Public()) {
		t.Fatalf("refused %+v; want b's key from port %d", r, b.Port())
	}
	select {
	case r := <-a.refused:
		t.Fatalf("a second report within a minute: %+v", r)
	default:
	}
	select {
	case k := <-a.handshakes:
		t.Fatalf("OnHandshake for an unconfigured key %s", k.Short())
	default:
	}

	// Configured, the same dial succeeds, and a reports the handshake.
	if err := a.AllowPeer(b.key.Public(), netip.AddrPort{}); err != nil {
		t.Fatal(err)
	}
	c, err := b.Dial(ctx, a.key.Public(), a.endpoint())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if k := <-a.handshakes; k != b.key.Public() {
		t.Fatalf("OnHandshake(%s), want b", k.Short())
	}

	// Removed again, b's conn is closed on a's side and a redial fails.
	if err := a.RemovePeer(b.key.Public()); err != nil {
		t.Fatal(err)
	}
	dctx, dcancel := context.WithTimeout(ctx, 2*time.Second)
	defer dcancel()
	if c2, err := b.Dial(dctx, a.key.Public(), a.endpoint()); err == nil {
		c2.Close()
		t.Fatal("a dial after RemovePeer succeeded")
	}
}

// TestAnnounce: a device that restarted (a new one, same key) announces
// itself to a peer it knows, and the peer's device reports a handshake
// from it, which is how the peer learns that its conns through the old
// device are dead.
func TestAnnounce(t *testing.T) {
	transporttest.NoLeaks(t)
	a := newWatched(t, 1)
	b := newWatched(t, 2)
	if err := b.AllowPeer(a.key.Public(), netip.AddrPort{}); err != nil {
		t.Fatal(err)
	}
	if err := a.Announce(b.key.Public(), b.endpoint()); err != nil {
		t.Fatal(err)
	}
	select {
	case k := <-b.handshakes:
		if k != a.key.Public() {
			t.Fatalf("OnHandshake(%s), want a", k.Short())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("b saw no handshake from a's announcement")
	}
	if err := a.Announce(b.key.Public(), netip.AddrPort{}); err == nil {
		t.Fatal("announce without an endpoint succeeded")
	}
}

// FuzzInitiation feeds the sniffer's decoder whatever 148 bytes: it never
// panics (TestNoHandshake checks that a real initiation decodes to its
// sender's key).
func FuzzInitiation(f *testing.F) {
	f.Add(bytes.Repeat([]byte{1}, 148))
	f.Add(append([]byte{1, 0, 0, 0}, make([]byte, 144)...))
	k := keytest.Seeded(f, 3)
	f.Fuzz(func(t *testing.T, msg []byte) {
		if len(msg) != 148 {
			return
		}
		if pk, ok := wg.Initiator(k, msg); ok {
			_ = wg.EdwardsKeys(pk)
		}
	})
}
