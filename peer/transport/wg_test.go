package transport_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/key/keytest"
	"github.com/awp-tray/awp-tray/peer/transport"
	"github.com/awp-tray/awp-tray/peer/transport/transporttest"
)

// acceptAll accepts until l closes and reports the peers it saw.
func acceptAll(l transport.Listener) <-chan net.Conn {
	ch := make(chan net.Conn, 16)
	go func() {
		defer close(ch)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			ch <- c
		}
	}()
	return ch
}

// TestWGUnknownKeyRefused: a key the listener never allowed cannot connect,
// while an allowed key can, and TunnelPeer names the right key on both ends.
func TestWGUnknownKeyRefused(t *testing.T) {
	transporttest.NoLeaks(t)
	ka, kb, kc := keytest.Seeded(t, 1), keytest.Seeded(t, 2), keytest.Seeded(t, 3)
	a := newManager(t, "A", transport.Options{Key: ka})
	b := newManager(t, "B", transport.Options{Key: kb})
	c := newManager(t, "C", transport.Options{Key: kc})
	a.AllowKey(kb.Public())
	l := listen(t, a, "wg://127.0.0.1:0")
	conns := acceptAll(l)

	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	if cc, err := c.Dial(ctx, l.Addr()); err == nil {
		cc.Close()
		t.Fatal("a key the listener never allowed connected")
	}

	bc, err := b.Dial(testCtx(t), l.Addr())
	if err != nil {
		t.Fatalf("allowed key: dial: %v", err)
	}
	defer bc.Close()
	ac := <-conns
	if ac == nil {
		t.Fatal("listener closed before accepting B")
	}
	defer ac.Close()
	if k, ok := transport.TunnelPeer(ac); !ok || k != kb.Public() {
		t.Fatalf("accepted conn: TunnelPeer = %v, %v; want B %v", k.Short(), ok, kb.Public().Short())
	}
	if k, ok := transport.TunnelPeer(bc); !ok || k != ka.Public() {
		t.Fatalf("dialed conn: TunnelPeer = %v, %v; want A %v", k.Short(), ok, ka.Public().Short())
	}
	transporttest.Carry(t, bc, ac, "hello A")
	transporttest.Carry(t, ac, bc, "hello B")

	l.Close()
	for extra := range conns {
		k, _ := transport.TunnelPeer(extra)
		t.Errorf("listener accepted another conn, from %v", k.Short())
		extra.Close()
	}
}

// TestWGDisallowKey: DisallowKey removes a key AllowKey configured: its
// tunnel conn is closed and it cannot connect again.
func TestWGDisallowKey(t *testing.T) {
	transporttest.NoLeaks(t)
	a, b, _, kb := wgManagers(t)
	if !a.Allowed(kb.Public()) {
		t.Fatal("AllowKey: not Allowed")
	}
	l := listen(t, a, "wg://127.0.0.1:0")
	conns := acceptAll(l)
	bc, err := b.Dial(testCtx(t), l.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer bc.Close()
	ac := <-conns
	if ac == nil {
		t.Fatal("listener closed before accepting B")
	}
	a.DisallowKey(kb.Public())
	if a.Allowed(kb.Public()) {
		t.Fatal("DisallowKey: still Allowed")
	}
	if _, err := ac.Read(make([]byte, 1)); err == nil {
		t.Fatal("B's tunnel conn still open at A")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	if cc, err := b.Dial(ctx, l.Addr()); err == nil {
		cc.Close()
		t.Fatal("a disallowed key connected")
	}
	l.Close()
	for extra := range conns {
		extra.Close()
	}
}

func TestTunnelPeerNotWG(t *testing.T) {
	c1, c2 := net.Pipe()
	defer c1.Close()
	defer c2.Close()
	if _, ok := transport.TunnelPeer(c1); ok {
		t.Fatal("TunnelPeer reported a key for a pipe")
	}
}

// TestWGBothWays: after A allows B and B dials, A can also dial B's
// listener (both directions of one WireGuard session).
func TestWGBothWays(t *testing.T) {
	transporttest.NoLeaks(t)
	a, b, ka, _ := wgManagers(t)
	b.AllowKey(ka.Public())
	la := listen(t, a, "wg://127.0.0.1:0")
	lb := listen(t, b, "wg://127.0.0.1:0")
	c1, s1 := transporttest.Pair(t, la, managerDial(b, la.Addr()))
	transporttest.Carry(t, c1, s1, "b→a")
	c2, s2 := transporttest.Pair(t, lb, managerDial(a, lb.Addr()))
	transporttest.Carry(t, c2, s2, "a→b")
	if k, _ := transport.TunnelPeer(s2); k != ka.Public() {
		t.Fatalf("B accepted from %v, want A", k.Short())
	}
}

// TestWGRoaming: the dialer comes back from another UDP port (a new
// Manager with the same key, as after a restart or a NAT rebinding); the
// listener learns the new endpoint from the authenticated handshake and
// its data reaches the dialer there.
func TestWGRoaming(t *testing.T) {
	transporttest.NoLeaks(t)
	ka, kb := keytest.Seeded(t, 1), keytest.Seeded(t, 2)
	a := newManager(t, "A", transport.Options{Key: ka})
	a.AllowKey(kb.Public())
	l := listen(t, a, "wg://127.0.0.1:0")

	b1 := transport.New(transport.Options{Key: kb, Logger: testLogger(t, "B1")})
	c1, s1 := transporttest.Pair(t, l, managerDial(b1, l.Addr()))
	transporttest.Carry(t, s1, c1, "to the first port")
	b1.Close() // its UDP socket is gone: only roaming can reach B now

	b2 := newManager(t, "B2", transport.Options{Key: kb})
	c2, s2 := transporttest.Pair(t, l, managerDial(b2, l.Addr()))
	if k, _ := transport.TunnelPeer(s2); k != kb.Public() {
		t.Fatalf("second conn from %v, want B", k.Short())
	}
	transporttest.Carry(t, s2, c2, "to the new port")
	transporttest.Carry(t, c2, s2, "and back")
}

// TestWGListenAfterDial: a device made by Dial (ephemeral port) moves to
// the port a later Listen asks for, and is reachable there.
func TestWGListenAfterDial(t *testing.T) {
	transporttest.NoLeaks(t)
	a, b, _, kb := wgManagers(t)
	la := listen(t, a, "wg://127.0.0.1:0")
	c1, s1 := transporttest.Pair(t, la, managerDial(b, la.Addr()))
	transporttest.Carry(t, c1, s1, "first")

	port := freeUDPPort(t)
	lb := listen(t, b, "wg://127.0.0.1:"+strconv.Itoa(port))
	want := "wg://127.0.0.1:" + strconv.Itoa(port) + "#" + kb.Public().String()
	if lb.Addr() != want {
		t.Fatalf("Addr() = %s, want %s", lb.Addr(), want)
	}
	c2, s2 := transporttest.Pair(t, lb, managerDial(a, lb.Addr()))
	transporttest.Carry(t, c2, s2, "a dials b on its new port")
	// B moved under an open conn: its next packet tells A the new port.
	transporttest.Carry(t, c1, s1, "the old conn survived the rebind")
	transporttest.Carry(t, s1, c1, "and A reaches B at the new port")
	if _, err := b.Listen(testCtx(t), "wg://127.0.0.1:0"); err == nil {
		t.Fatal("a second wg listener on one Manager succeeded")
	}
}

// TestWGListenForeignKey: the listen form may carry only the node's own key.
func TestWGListenForeignKey(t *testing.T) {
	transporttest.NoLeaks(t)
	m := newManager(t, "A", transport.Options{Key: keytest.Seeded(t, 1)})
	other := keytest.Seeded(t, 2).Public()
	if _, err := m.Listen(testCtx(t), "wg://127.0.0.1:0#"+other.String()); err == nil {
		t.Fatal("listened with another peer's key")
	}
	own := keytest.Seeded(t, 1).Public()
	l := listen(t, m, "wg://127.0.0.1:0#"+own.String())
	if a, err := transport.ParseAddr(l.Addr()); err != nil || a.Key != own {
		t.Fatalf("Addr() = %s (%v): want this node's key", l.Addr(), err)
	}
	var zero key.PublicKey
	m.AllowKey(zero) // ignored
	m.AllowKey(own)  // ignored: never a peer of itself
}

// freeUDPPort finds a UDP port free on 127.0.0.1 right now.
func freeUDPPort(t *testing.T) int {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	return pc.LocalAddr().(*net.UDPAddr).Port
}

// A wg listener on a UDP port something else holds fails with the address
// named once and the system's reason (it said "transport: wg: wg: new
// device: up: listen udp4 :PORT: bind: …" without the address asked for).
func TestWGListenPortInUse(t *testing.T) {
	transporttest.NoLeaks(t)
	pc, err := net.ListenPacket("udp4", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	m := newManager(t, "A", transport.Options{Key: keytest.Seeded(t, 1)})
	addr := fmt.Sprintf("wg://127.0.0.1:%d", pc.LocalAddr().(*net.UDPAddr).Port)
	_, err = m.Listen(testCtx(t), addr)
	if want := "transport: listen " + addr + ": bind: address already in use"; err == nil || err.Error() != want || !errors.Is(err, syscall.EADDRINUSE) {
		t.Fatalf("Listen on a UDP port in use: %v, want %q", err, want)
	}
}
