//go:build linux

package appearance

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/awp-tray/awp-tray/app/appearance/portaltest"
	"github.com/awp-tray/awp-tray/app/trayhost/watchertest"
)

// bus starts a private session bus and returns a connection to it.
func bus(t *testing.T) (addr string) {
	t.Helper()
	b, err := watchertest.StartBus(t.TempDir())
	if errors.Is(err, watchertest.ErrNoDaemon) {
		t.Skip("dbus-daemon not installed (apt-get install dbus)")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b.Address
}

func connect(t *testing.T, addr string) *dbus.Conn {
	t.Helper()
	c, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// schemes collects what the watch reports.
type schemes chan Scheme

func (s schemes) next(t *testing.T) Scheme {
	t.Helper()
	select {
	case v := <-s:
		return v
	case <-time.After(20 * time.Second): // a bound for a broken bus; nothing depends on the time
		t.Fatal("no change reported")
		return 0
	}
}

func (s schemes) none(t *testing.T, conn *dbus.Conn) {
	t.Helper()
	// A round trip through the bus: the watch has seen every signal sent
	// before it.
	if err := conn.BusObject().Call("org.freedesktop.DBus.GetId", 0).Err; err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	select {
	case v := <-s:
		t.Fatalf("unexpected change to %s", v)
	default:
	}
}

func TestPortalFollowsColorScheme(t *testing.T) {
	addr := bus(t)
	p := portaltest.Serve(t, addr, 1)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	got := make(schemes, 8)
	s, err := watchConn(ctx, connect(t, addr), false, func(s Scheme) { got <- s })
	if err != nil || s != Dark {
		t.Fatalf("watch = %s, %v; want dark", s, err)
	}
	p.Emit(t, appearanceNS, colorSchemeKey, 2)
	if v := got.next(t); v != Light {
		t.Fatalf("after SettingChanged(2): %s, want light", v)
	}
	p.Emit(t, appearanceNS, colorSchemeKey, 2) // the same again: nothing to report
	p.Emit(t, "org.gnome.desktop.interface", colorSchemeKey, 1)
	p.Emit(t, appearanceNS, "accent-color", 1)
	got.none(t, p.Conn())
	p.Emit(t, appearanceNS, colorSchemeKey, 0)
	if v := got.next(t); v != NoPreference {
		t.Fatalf("after SettingChanged(0): %s", v)
	}
	cancel()
	// After the context ends, nothing more is reported.
	time.Sleep(50 * time.Millisecond)
	p.Emit(t, appearanceNS, colorSchemeKey, 1)
	got.none(t, p.Conn())
}

func TestPortalVersion1(t *testing.T) {
	addr := bus(t)
	portaltest.ServeV1(t, addr, 2)
	s, err := watchConn(t.Context(), connect(t, addr), false, nil)
	if err != nil || s != Light {
		t.Fatalf("watch = %s, %v; want light (through Read)", s, err)
	}
}

// TestPortalStartsLater: at login the tray may start before the portal;
// when it takes its name, the scheme is read and reported.
func TestPortalStartsLater(t *testing.T) {
	addr := bus(t)
	got := make(schemes, 8)
	s, err := watchConn(t.Context(), connect(t, addr), false, func(s Scheme) { got <- s })
	if s != NoPreference || err == nil || !strings.Contains(err.Error(), "settings portal") {
		t.Fatalf("without a portal: %s, %v", s, err)
	}
	portaltest.Serve(t, addr, 1)
	if v := got.next(t); v != Dark {
		t.Fatalf("after the portal started: %s, want dark", v)
	}
}

func TestWatchWithoutBus(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus")
	s, err := Watch(t.Context(), nil)
	if s != NoPreference || err == nil {
		t.Fatalf("no bus: %s, %v", s, err)
	}
}
