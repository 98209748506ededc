package trayhost_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/app/trayhost"
	"github.com/awp-tray/awp-tray/app/trayhost/watchertest"
)

func startBus(t *testing.T) *watchertest.Bus {
	t.Helper()
	return watchertest.TestBus(t)
}

// ctx bounds a check so a broken bus fails the test instead of hanging it;
// no assertion depends on the time.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

func TestNoAddress(t *testing.T) {
	r := trayhost.DetectAt(ctx(t), "")
	if r.OK() || r.Bus || !strings.Contains(r.Reason, "no D-Bus session bus") {
		t.Errorf("no address: %+v", r)
	}
}

func TestBusDoesNotAnswer(t *testing.T) {
	addr := "unix:path=" + filepath.Join(t.TempDir(), "nobody")
	r := trayhost.DetectAt(ctx(t), addr)
	if r.OK() || r.Bus || !strings.Contains(r.Reason, "does not answer") {
		t.Errorf("dead bus: %+v", r)
	}
}

func TestSessionAddress(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/x")
	if got := trayhost.SessionAddress(); got != "unix:path=/x" {
		t.Errorf("from env: %q", got)
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "disabled:")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir()) // no bus socket in it
	if got := trayhost.SessionAddress(); got != "" {
		t.Errorf("disabled: %q", got)
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	if got := trayhost.SessionAddress(); got != "" {
		t.Errorf("without a bus: %q", got)
	}
	os.Unsetenv("DBUS_SESSION_BUS_ADDRESS")
	r := trayhost.Detect(ctx(t))
	if r.OK() || r.Bus {
		t.Errorf("Detect without a bus: %+v", r)
	}
}

func TestBusWithoutAndWithWatcher(t *testing.T) {
	bus := startBus(t)
	r := trayhost.DetectAt(ctx(t), bus.Address)
	if !r.Bus || r.Watcher || r.OK() || !strings.Contains(r.Reason, "no system tray host") {
		t.Fatalf("bus without watcher: %+v", r)
	}
	w, err := watchertest.Start(bus.Address)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r = trayhost.DetectAt(ctx(t), bus.Address)
	if !r.OK() || r.Reason != "" {
		t.Fatalf("bus with watcher: %+v", r)
	}
}

// The system's own tray (Windows, macOS) needs no bus and no watcher.
func TestNativeOK(t *testing.T) {
	if !(trayhost.Result{Native: true}).OK() || (trayhost.Result{Bus: true}).OK() {
		t.Error("Result.OK")
	}
}
