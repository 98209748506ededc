//go:build linux

package appearance

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/awp-tray/awp-tray/app/trayhost/watchertest"
)

// fakePortal is the settings portal's Settings interface: ReadOne
// (version 2) unless v1, else only Read, which wraps the value in a second
// variant as version 1 does.
type fakePortal struct {
	mu     sync.Mutex
	scheme uint32
}

func (p *fakePortal) value(ns, key string) (dbus.Variant, *dbus.Error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ns != appearanceNS || key != colorSchemeKey {
		return dbus.Variant{}, dbus.NewError("org.freedesktop.portal.Error.NotFound", []any{"no such setting"})
	}
	return dbus.MakeVariant(p.scheme), nil
}

type portalV2 struct{ *fakePortal }

func (p portalV2) ReadOne(ns, key string) (dbus.Variant, *dbus.Error) { return p.value(ns, key) }

type portalV1 struct{ *fakePortal }

func (p portalV1) Read(ns, key string) (dbus.Variant, *dbus.Error) {
	v, err := p.value(ns, key)
	return dbus.MakeVariant(v), err
}

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

// serve exports p on a connection of its own and takes the portal's name.
func serve(t *testing.T, addr string, v any) *dbus.Conn {
	t.Helper()
	c := connect(t, addr)
	if err := c.Export(v, portalPath, settingsIface); err != nil {
		t.Fatal(err)
	}
	if r, err := c.RequestName(portalName, dbus.NameFlagDoNotQueue); err != nil || r != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("request name: %v %v", r, err)
	}
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

func emit(t *testing.T, c *dbus.Conn, ns, key string, v uint32) {
	t.Helper()
	if err := c.Emit(portalPath, settingsIface+".SettingChanged", ns, key, dbus.MakeVariant(v)); err != nil {
		t.Fatal(err)
	}
}

func TestPortalFollowsColorScheme(t *testing.T) {
	addr := bus(t)
	p := &fakePortal{scheme: 1}
	pc := serve(t, addr, portalV2{p})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	got := make(schemes, 8)
	s, err := watchConn(ctx, connect(t, addr), false, func(s Scheme) { got <- s })
	if err != nil || s != Dark {
		t.Fatalf("watch = %s, %v; want dark", s, err)
	}
	emit(t, pc, appearanceNS, colorSchemeKey, 2)
	if v := got.next(t); v != Light {
		t.Fatalf("after SettingChanged(2): %s, want light", v)
	}
	emit(t, pc, appearanceNS, colorSchemeKey, 2) // the same again: nothing to report
	emit(t, pc, "org.gnome.desktop.interface", colorSchemeKey, 1)
	emit(t, pc, appearanceNS, "accent-color", 1)
	got.none(t, pc)
	emit(t, pc, appearanceNS, colorSchemeKey, 0)
	if v := got.next(t); v != NoPreference {
		t.Fatalf("after SettingChanged(0): %s", v)
	}
	cancel()
	// After the context ends, nothing more is reported.
	time.Sleep(50 * time.Millisecond)
	emit(t, pc, appearanceNS, colorSchemeKey, 1)
	got.none(t, pc)
}

func TestPortalVersion1(t *testing.T) {
	addr := bus(t)
	serve(t, addr, portalV1{&fakePortal{scheme: 2}})
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
	p := &fakePortal{scheme: 1}
	serve(t, addr, portalV2{p})
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
