package transport_test

import (
	"context"
	"errors"
	"net"
	"testing"

	"github.com/awp-tray/awp-tray/peer/key/keytest"
	"github.com/awp-tray/awp-tray/peer/transport"
	"github.com/awp-tray/awp-tray/peer/transport/transporttest"
)

func TestManagerErrors(t *testing.T) {
	transporttest.NoLeaks(t)
	ctx := testCtx(t)
	m := newManager(t, "m", transport.Options{})
	for _, tc := range []struct {
		name string
		err  error
		fn   func() error
	}{
		{"listen bad", transport.ErrBadAddr, func() error { _, err := m.Listen(ctx, "tcp://nope"); return err }},
		{"dial bad", transport.ErrBadAddr, func() error { _, err := m.Dial(ctx, "ftp://x:1"); return err }},
		{"listen tailcat", transport.ErrUnsupported, func() error { _, err := m.Listen(ctx, "tc0123456789abcdef"); return err }},
		{"dial tailcat", transport.ErrUnsupported, func() error { _, err := m.Dial(ctx, "tc0123456789abcdef"); return err }},
		{"listen mem without network", transport.ErrUnsupported, func() error { _, err := m.Listen(ctx, "mem://x"); return err }},
		{"listen wg without key", transport.ErrNoKey, func() error { _, err := m.Listen(ctx, "wg://127.0.0.1:0"); return err }},
		{"dial wg without peer key", transport.ErrNoKey, func() error { _, err := m.Dial(ctx, "wg://127.0.0.1:9"); return err }},
	} {
		if err := tc.fn(); !errors.Is(err, tc.err) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.err)
		}
	}

	mem := transport.NewMemNetwork()
	mm := newManager(t, "mem", transport.Options{Mem: mem})
	listen(t, mm, "mem://a")
	if _, err := mm.Listen(ctx, "mem://a"); !errors.Is(err, transport.ErrInUse) {
		t.Errorf("second mem listen: err = %v, want ErrInUse", err)
	}
	if _, err := mm.Dial(ctx, "mem://nobody"); !errors.Is(err, transport.ErrRefused) {
		t.Errorf("dial mem with no listener: err = %v, want ErrRefused", err)
	}
}

func TestManagerClose(t *testing.T) {
	transporttest.NoLeaks(t)
	ctx := testCtx(t)
	m := transport.New(transport.Options{Key: keytest.Seeded(t, 9)})
	tl, err := m.Listen(ctx, "tcp://127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	wl, err := m.Listen(ctx, "wg://127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan error, 2)
	for _, l := range []transport.Listener{tl, wl} {
		go func() { _, err := l.Accept(); accepted <- err }()
	}
	if err := m.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	for i := 0; i < 2; i++ {
		if err := <-accepted; !errors.Is(err, net.ErrClosed) {
			t.Errorf("Accept after Manager.Close: err = %v, want net.ErrClosed", err)
		}
	}
	if err := m.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
	if _, err := m.Listen(ctx, "tcp://127.0.0.1:0"); !errors.Is(err, transport.ErrClosed) {
		t.Errorf("listen after close: err = %v, want ErrClosed", err)
	}
	if _, err := m.Dial(context.Background(), tl.Addr()); !errors.Is(err, transport.ErrClosed) {
		t.Errorf("dial after close: err = %v, want ErrClosed", err)
	}
	m.AllowKey(keytest.Seeded(t, 3).Public()) // no-op, no panic
}
