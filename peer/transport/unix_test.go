package transport_test

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/awp-tray/awp-tray/peer/transport"
	"github.com/awp-tray/awp-tray/peer/transport/transporttest"
)

func TestUnixSocketFile(t *testing.T) {
	transporttest.NoLeaks(t)
	dir := t.TempDir()
	m := newManager(t, "unix", transport.Options{})

	// Mode 0600, and the file goes away on Close.
	p := filepath.Join(dir, "a.sock")
	l := listen(t, m, "unix://"+p)
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("socket mode = %v, want 0600", st.Mode().Perm())
	}

	// A live socket is not stolen.
	if _, err := m.Listen(testCtx(t), "unix://"+p); !errors.Is(err, transport.ErrInUse) {
		t.Fatalf("second listen on a live socket: err = %v, want ErrInUse", err)
	}
	c, s := transporttest.Pair(t, l, managerDial(m, l.Addr()))
	c.Close()
	s.Close()
	l.Close()
	if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket file still there after Close: %v", err)
	}

	// A stale socket (its listener gone, the file left) is replaced.
	stale := filepath.Join(dir, "stale.sock")
	ul, err := net.ListenUnix("unix", &net.UnixAddr{Name: stale, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ul.SetUnlinkOnClose(false)
	ul.Close()
	if _, err := os.Lstat(stale); err != nil {
		t.Fatalf("stale socket not left behind: %v", err)
	}
	l2 := listen(t, m, "unix://"+stale)
	c, s = transporttest.Pair(t, l2, managerDial(m, l2.Addr()))
	c.Close()
	s.Close()

	// A regular file is left alone.
	file := filepath.Join(dir, "not-a-socket")
	if err := os.WriteFile(file, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Listen(testCtx(t), "unix://"+file); err == nil {
		t.Fatal("listen over a regular file succeeded")
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "keep me" {
		t.Fatalf("regular file changed: %q, %v", b, err)
	}
}
