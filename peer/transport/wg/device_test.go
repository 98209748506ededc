package wg_test

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/key/keytest"
	"github.com/awp-tray/awp-tray/peer/transport/transporttest"
	"github.com/awp-tray/awp-tray/peer/transport/wg"
)

func newDevice(t *testing.T, seed byte) (*wg.Device, key.PrivateKey) {
	t.Helper()
	k := keytest.Seeded(t, seed)
	d, err := wg.New(wg.Config{Key: k})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, k
}

// TestRoamingRebind moves the dialer's UDP port under an open connection:
// the listener's endpoint for it follows the first authenticated packet
// from the new port, and data flows both ways on the same conn.
func TestRoamingRebind(t *testing.T) {
	transporttest.NoLeaks(t)
	a, b, _, kb, ac, bc := tunnelPair(t)
	transporttest.Carry(t, bc, ac, "before")
	old := b.Port()
	if ep, ok := a.PeerEndpoint(kb.Public()); !ok || int(ep.Port()) != old {
		t.Fatalf("A's endpoint for B = %v, %v; want port %d", ep, ok, old)
	}

	if err := b.SetPort(0); err != nil {
		t.Fatal(err)
	}
	if b.Port() == old || b.Port() == 0 {
		t.Fatalf("rebind kept port %d (now %d)", old, b.Port())
	}
	transporttest.Carry(t, bc, ac, "from the new port")
	if ep, ok := a.PeerEndpoint(kb.Public()); !ok || int(ep.Port()) != b.Port() {
		t.Fatalf("A's endpoint for B = %v, %v; want the new port %d", ep, ok, b.Port())
	}
	transporttest.Carry(t, ac, bc, "to the new port")
}

// TestNetworkChange runs what each device does when the host's addresses
// or routes change (its UDP sockets reopened on the same port, every
// peer's remembered source address cleared) under an open connection,
// on both ends: the ports stay and data flows both ways on the same conn.
func TestNetworkChange(t *testing.T) {
	transporttest.NoLeaks(t)
	a, b, _, _, ac, bc := tunnelPair(t)
	transporttest.Carry(t, bc, ac, "before")
	pa, pb := a.Port(), b.Port()
	a.NetworkChanged()
	transporttest.Carry(t, ac, bc, "after the listener's network changed")
	b.NetworkChanged()
	transporttest.Carry(t, bc, ac, "after the dialer's network changed")
	transporttest.Carry(t, ac, bc, "and back")
	if a.Port() != pa || b.Port() != pb {
		t.Fatalf("ports moved: %d → %d, %d → %d", pa, a.Port(), pb, b.Port())
	}
}

// tunnelPair makes device a listening, device b dialing it, and the
// connection between them (closed at the end of the test).
func tunnelPair(t *testing.T) (a, b *wg.Device, ka, kb key.PrivateKey, ac, bc *wg.Conn) {
	t.Helper()
	a, ka = newDevice(t, 1)
	b, kb = newDevice(t, 2)
	if err := a.AllowPeer(kb.Public(), netip.AddrPort{}); err != nil {
		t.Fatal(err)
	}
	l, err := a.Listen()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	acc := make(chan *wg.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			close(acc)
			return
		}
		acc <- c
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	bc, err = b.Dial(ctx, ka.Public(), netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(a.Port())))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bc.Close() })
	ac = <-acc
	if ac == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { ac.Close() })
	if ac.Peer() != kb.Public() || bc.Peer() != ka.Public() {
		t.Fatalf("Peer(): accepted %v, dialed %v", ac.Peer().Short(), bc.Peer().Short())
	}
	return a, b, ka, kb, ac, bc
}

func TestDeviceErrors(t *testing.T) {
	transporttest.NoLeaks(t)
	a, ka := newDevice(t, 1)
	if err := a.AllowPeer(ka.Public(), netip.AddrPort{}); !errors.Is(err, wg.ErrSelf) {
		t.Errorf("allow own key: err = %v, want ErrSelf", err)
	}
	l, err := a.Listen()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Listen(); !errors.Is(err, wg.ErrListening) {
		t.Errorf("second listen: err = %v, want ErrListening", err)
	}
	l.Close()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
	if _, err := a.Listen(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("listen after close: err = %v, want net.ErrClosed", err)
	}
	if _, err := wg.New(wg.Config{}); err == nil {
		t.Error("New without a key succeeded")
	}
}
