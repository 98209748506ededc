package transport_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/key/keytest"
	"github.com/awp-tray/awp-tray/peer/transport"
	"github.com/awp-tray/awp-tray/peer/transport/transporttest"
)

// logWriter sends log output to t.Logf.
type logWriter struct {
	t    testing.TB
	name string
}

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Logf("%s: %s", w.name, bytes.TrimRight(p, "\n"))
	return len(p), nil
}

// testLogger logs to t under name (Info and up; Debug with -v and AWP_DEBUG).
func testLogger(t testing.TB, name string) *slog.Logger {
	return slog.New(slog.NewTextHandler(logWriter{t, name}, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

// newManager returns a Manager closed when the test ends.
func newManager(t testing.TB, name string, o transport.Options) *transport.Manager {
	t.Helper()
	if o.Logger == nil {
		o.Logger = testLogger(t, name)
	}
	m := transport.New(o)
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Errorf("%s: close: %v", name, err)
		}
	})
	return m
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// listen listens on addr through m or fails the test.
func listen(t testing.TB, m *transport.Manager, addr string) transport.Listener {
	t.Helper()
	l, err := m.Listen(testCtx(t), addr)
	if err != nil {
		t.Fatalf("listen %s: %v", addr, err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// managerDial returns a DialFunc that dials addr through m.
func managerDial(m *transport.Manager, addr string) transporttest.DialFunc {
	return func(ctx context.Context) (net.Conn, error) { return m.Dial(ctx, addr) }
}

// wgManagers makes Manager A (key seed 1), which allows B's key, and
// Manager B (seed 2), and returns them with their keys.
func wgManagers(t testing.TB) (a, b *transport.Manager, ka, kb key.PrivateKey) {
	t.Helper()
	ka, kb = keytest.Seeded(t, 1), keytest.Seeded(t, 2)
	a = newManager(t, "A", transport.Options{Key: ka})
	b = newManager(t, "B", transport.Options{Key: kb})
	a.AllowKey(kb.Public())
	return a, b, ka, kb
}

// wgPair makes a listening Manager (key seed 1) and a dialing Manager (seed
// 2) that the listener allows, and returns the listener and a dial func.
func wgPair(t *testing.T) (transport.Listener, transporttest.DialFunc) {
	a, b, _, _ := wgManagers(t)
	l := listen(t, a, "wg://127.0.0.1:0")
	return l, managerDial(b, l.Addr())
}
