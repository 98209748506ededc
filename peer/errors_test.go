package peer

import (
	"context"
	"errors"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer/transport"
)

// An error names each layer once: `peer: state: peer: no such thread`
// and `peer: connect ADDR: transport: dial ADDR: dial tcp HOST:PORT:
// connect: connection refused` said things twice.
func TestErrorsNameEachLayerOnce(t *testing.T) {
	n := newTestNode(t, "n")
	_, err := n.SetState(context.Background(), "thr_nosuch", "done", "")
	if !errors.Is(err, ErrNoThread) || err.Error() != "peer: no such thread: thr_nosuch" {
		t.Errorf("SetState of an unknown thread: %v", err)
	}
	addr := closedTCP(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = n.Connect(ctx, addr)
	if err == nil || err.Error() != "peer: connect "+addr+": connection refused" || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("Connect to a closed port: %v", err)
	}
	for _, e := range []error{
		wrapOp("send", errors.New("store: disk full")),
		wrapOp("send", ErrClosed),
		connectError("tcp://x:1", errors.New("peer: handshake: remote said not_allowed: no")),
	} {
		if c := strings.Count(e.Error(), "peer: "); c != 1 {
			t.Errorf("%q names peer %d times", e, c)
		}
	}
	if e := wrapOp("send", ErrClosed); e != ErrClosed {
		t.Errorf("wrapOp changed a peer error: %v", e)
	}
}

// closedTCP is a tcp:// address on loopback where nothing listens (it did
// a moment ago): a dial there is refused.
func closedTCP(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := "tcp://" + l.Addr().String()
	l.Close()
	return addr
}

// A listen error names the address once, and an address no transport
// reads is refused by Connect at once, with no dialer left trying it.
func TestListenAndConnectErrors(t *testing.T) {
	n := newTestNode(t, "n")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	addr := "tcp://" + l.Addr().String()
	err = n.Listen(addr)
	if want := "peer: transport: listen " + addr + ": bind: address already in use"; err == nil || err.Error() != want || !errors.Is(err, syscall.EADDRINUSE) {
		t.Errorf("Listen on a port in use: %v, want %q", err, want)
	}
	_, err = n.Connect(context.Background(), "nonsense://x")
	if !errors.Is(err, transport.ErrBadAddr) || !strings.HasPrefix(err.Error(), "peer: connect: transport: malformed address") {
		t.Errorf("Connect to a malformed address: %v", err)
	}
	n.mu.Lock()
	_, dialing := n.dialers["nonsense://x"]
	n.mu.Unlock()
	if dialing {
		t.Error("a dialer keeps trying the malformed address")
	}
}

// An address that leads back to the node itself (its own listen address)
// fails Connect with ErrSelfAddress, and no dialer stays to redial it
// every up to 30 s for as long as the node runs (it did). A Dial in the
// config that leads back is tried once and dropped the same way.
func TestConnectSelfAddress(t *testing.T) {
	n := newTestNode(t, "n")
	own := n.addr()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i := range 2 { // a second Connect gets the same answer, from a dialer of its own
		_, err := n.Connect(ctx, own)
		if !errors.Is(err, ErrSelfAddress) || err.Error() != "peer: connect "+own+": "+ErrSelfAddress.Error() {
			t.Fatalf("Connect %d to the node's own address: %v", i+1, err)
		}
		n.mu.Lock()
		_, dialing := n.dialers[own]
		n.mu.Unlock()
		if dialing {
			t.Fatalf("after Connect %d a dialer stays on the node's own address", i+1)
		}
	}

	// The same through Config.Dial: m dials n's address and its own.
	var mOwn string
	m := newTestNode(t, "m", func(c *Config) {
		l, err := net.Listen("tcp", "127.0.0.1:0") // a free port for m to listen on and dial
		if err != nil {
			t.Fatal(err)
		}
		mOwn = "tcp://" + l.Addr().String()
		l.Close()
		c.Listen = []string{mOwn}
		c.Dial = []string{mOwn, own}
	})
	testsync.Eventually(t, "m drops the dialer of its own address", func() bool {
		m.mu.Lock()
		defer m.mu.Unlock()
		_, self := m.dialers[mOwn]
		_, other := m.dialers[own]
		return !self && other
	})
}
