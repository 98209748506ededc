package peer

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/internal/testsync"
)

// idleFlood opens n TCP connections to addr that never send a byte, and
// keeps them until the test ends. With reconnect, a connection the node
// closes is opened again at once (an attacker that keeps the pressure on).
// It returns a func that reports how many of them the node has closed.
func idleFlood(t testing.TB, addr string, n int, local string, reconnect bool) (closed func() int) {
	t.Helper()
	addr = strings.TrimPrefix(addr, "tcp://")
	d := net.Dialer{Timeout: 5 * time.Second}
	if local != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(local)}
	}
	var mu sync.Mutex
	var nclosed int
	var conns []net.Conn
	stop := make(chan struct{})
	var wg sync.WaitGroup
	track := func(c net.Conn) bool {
		mu.Lock()
		defer mu.Unlock()
		select {
		case <-stop:
			c.Close()
			return false
		default:
		}
		conns = append(conns, c)
		return true
	}
	for range n {
		c, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("flood dial: %v", err)
		}
		track(c)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				// Read (and drop) the node's hello; the node closing the
				// connection ends the read.
				buf := make([]byte, 4096)
				for {
					if _, err := c.Read(buf); err != nil {
						break
					}
				}
				c.Close()
				select {
				case <-stop:
					return
				default:
				}
				mu.Lock()
				nclosed++
				mu.Unlock()
				if !reconnect {
					return
				}
				var err error
				if c, err = d.Dial("tcp", addr); err != nil || !track(c) {
					return
				}
			}
		}()
	}
	t.Cleanup(func() {
		mu.Lock()
		close(stop)
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return func() int {
		mu.Lock()
		defer mu.Unlock()
		return nclosed
	}
}

// TestHostileIdleConnections (issue 18 item 13): 300 TCP connections that
// never send a hello (no key needed) do not keep a legitimate peer out.
// The node's handshake deadline is a minute here, so nothing frees a slot
// by itself while the test runs: before admission made room, the accept
// loop waited for one of 64 slots and the peer's connect timed out.
func TestHostileIdleConnections(t *testing.T) {
	a := newTestNode(t, "a", func(c *Config) { c.HandshakeTimeout = time.Minute })
	closed := idleFlood(t, a.addr(), 300, "", false)

	b := newTestNode(t, "b")
	ctx, cancel := context.WithTimeout(context.Background(), HelloTimeout-time.Second)
	defer cancel()
	if k, err := b.Connect(ctx, a.addr()); err != nil || k != a.Key() {
		t.Fatalf("a legitimate peer could not connect past 300 idle connections: %v", err)
	}
	if n := a.hs.inUse(); n > MaxHandshakes {
		t.Fatalf("%d connections in their handshake, want at most %d", n, MaxHandshakes)
	}
	testsync.Eventually(t, "the idle connections beyond the slots closed", func() bool {
		return closed() >= 300-MaxHandshakes
	})
	checkNodeServes(t, a)
}

// TestHostileReconnectFlood: one host reconnecting as fast as it can
// (every connection it loses is opened again) evicts only its own
// connections: a peer from another address connects, and the host never
// holds more than its share of the slots.
func TestHostileReconnectFlood(t *testing.T) {
	if c, err := net.DialTimeout("tcp", "127.0.0.2:9", time.Second); err != nil && strings.Contains(err.Error(), "assign") {
		t.Skip("127.0.0.2 is not a local address here")
	} else if c != nil {
		c.Close()
	}
	a := newTestNode(t, "a", func(c *Config) { c.HandshakeTimeout = time.Minute })
	closed := idleFlood(t, a.addr(), 100, "127.0.0.2", true)
	testsync.Eventually(t, "the flood being evicted", func() bool { return closed() > 100 })
	a.hs.mu.Lock()
	held := a.hs.perSource["127.0.0.2"]
	a.hs.mu.Unlock()
	if held > MaxHandshakesPerSource {
		t.Fatalf("one source holds %d slots, want at most %d", held, MaxHandshakesPerSource)
	}
	for i := range 3 {
		b := newTestNode(t, "b")
		ctx, cancel := context.WithTimeout(context.Background(), HelloTimeout-time.Second)
		k, err := b.Connect(ctx, a.addr())
		cancel()
		if err != nil || k != a.Key() {
			t.Fatalf("connect %d past a reconnecting flood: %v", i, err)
		}
	}
}

// fakeConn is a connection with a chosen remote address.
type fakeConn struct {
	net.Conn
	remote net.Addr
	closed bool
}

func (c *fakeConn) RemoteAddr() net.Addr { return c.remote }
func (c *fakeConn) Close() error         { c.closed = true; return nil }

// TestHandshakeAdmission checks the eviction order: a source at its share
// loses its own oldest connection, a full table loses its oldest
// unauthenticated one, and others are left alone.
func TestHandshakeAdmission(t *testing.T) {
	var a hsAdmit
	t0 := time.Now()
	conn := func(ip string) *fakeConn {
		return &fakeConn{remote: &net.TCPAddr{IP: net.ParseIP(ip), Port: 1}}
	}
	var slots []*hsSlot
	var conns []*fakeConn
	add := func(ip string, at time.Duration) (*hsSlot, bool) {
		c := conn(ip)
		s, ev := a.admit(c, t0.Add(at))
		slots, conns = append(slots, s), append(conns, c)
		return s, ev
	}
	// One source up to its share: nothing evicted.
	for i := range MaxHandshakesPerSource {
		if _, ev := add("192.0.2.1", time.Duration(i)); ev {
			t.Fatalf("eviction at %d of a source's %d", i, MaxHandshakesPerSource)
		}
	}
	// One more from it evicts its oldest.
	add("192.0.2.1", time.Hour)
	if !conns[0].closed || a.perSource["192.0.2.1"] != MaxHandshakesPerSource {
		t.Fatalf("the source's oldest was not evicted (closed %v, held %d)", conns[0].closed, a.perSource["192.0.2.1"])
	}
	// An IPv6 /64 is one source.
	for i := range MaxHandshakesPerSource {
		add("2001:db8::"+string(rune('a'+i%6))+":1", time.Duration(100+i))
	}
	if n := a.perSource["2001:db8::/64"]; n != MaxHandshakesPerSource {
		t.Fatalf("the /64 holds %d, want %d", n, MaxHandshakesPerSource)
	}
	// Fill the table from other sources. The two oldest slots left have
	// authenticated and sent a hello; the third oldest goes first.
	for i := 0; len(a.slots) < MaxHandshakes; i++ {
		add(net.IPv4(198, 51, 100, byte(i)).String(), time.Duration(1000+i))
	}
	slots[1].stage.Store(hsAuthed)
	slots[2].stage.Store(hsHello)
	before := len(conns)
	if _, ev := add("203.0.113.9", 2*time.Hour); !ev {
		t.Fatal("a full table evicted nothing")
	}
	if conns[1].closed || conns[2].closed {
		t.Fatal("a connection further in its handshake was evicted while silent ones waited")
	}
	if !conns[3].closed {
		t.Fatal("the oldest silent connection was not evicted")
	}
	if len(a.slots) != MaxHandshakes || before+1 != len(conns) {
		t.Fatalf("%d slots, want %d", len(a.slots), MaxHandshakes)
	}
	// With only hello'd and authenticated ones left of a source at its
	// share, the hello'd one goes before the authenticated one.
	var b hsAdmit
	var bs []*hsSlot
	var bc []*fakeConn
	for i := range MaxHandshakesPerSource {
		c := conn("192.0.2.7")
		s, _ := b.admit(c, t0.Add(time.Duration(i)))
		s.stage.Store(hsAuthed)
		bs, bc = append(bs, s), append(bc, c)
	}
	bs[5].stage.Store(hsHello)
	b.admit(conn("192.0.2.7"), t0.Add(time.Hour))
	if !bc[5].closed || bc[0].closed {
		t.Fatal("the source's hello'd connection was not the one evicted")
	}

	// release of an evicted slot does not free another's.
	if !a.release(slots[3]) || len(a.slots) != MaxHandshakes {
		t.Fatal("releasing an evicted slot changed the table")
	}
	if a.release(slots[1]) || len(a.slots) != MaxHandshakes-1 {
		t.Fatal("releasing a slot did not free it")
	}
}
