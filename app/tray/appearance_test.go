//go:build linux

package tray

import (
	"bytes"
	"context"
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"

	"github.com/awp-tray/awp-tray/app/appearance"
	"github.com/awp-tray/awp-tray/app/icon"
	"github.com/awp-tray/awp-tray/app/trayhost/watchertest"
	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer/localapi"
)

// The freedesktop settings portal, as desktops serve it.
const (
	portalName  = "org.freedesktop.portal.Desktop"
	portalPath  = dbus.ObjectPath("/org/freedesktop/portal/desktop")
	portalIface = "org.freedesktop.portal.Settings"
)

// settingsPortal answers the color scheme (version 2 of the interface).
type settingsPortal struct {
	mu     sync.Mutex
	scheme uint32
}

func (p *settingsPortal) ReadOne(ns, key string) (dbus.Variant, *dbus.Error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ns != "org.freedesktop.appearance" || key != "color-scheme" {
		return dbus.Variant{}, dbus.NewError("org.freedesktop.portal.Error.NotFound", []any{"no such setting"})
	}
	return dbus.MakeVariant(p.scheme), nil
}

// set changes the scheme and signals it, as a desktop does when the
// person switches between light and dark.
func (p *settingsPortal) set(t *testing.T, conn *dbus.Conn, s appearance.Scheme) {
	t.Helper()
	p.mu.Lock()
	p.scheme = uint32(s)
	p.mu.Unlock()
	if err := conn.Emit(portalPath, portalIface+".SettingChanged", "org.freedesktop.appearance", "color-scheme", dbus.MakeVariant(uint32(s))); err != nil {
		t.Fatal(err)
	}
}

// waitBoot is a boot that never finishes: the tray stays "starting".
func waitBoot(ctx context.Context, _ bool) (localapi.Backend, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestIconFollowsDesktop: on a session bus whose settings portal says
// light, the tray draws its icon for a light panel from the start; when
// the desktop switches to dark (SettingChanged) it redraws for a dark
// panel, and back. AWP_TRAY_ICON_PANEL's mode (IconMode) wins over the
// desktop. Without the wiring the icon stays drawn for a dark panel.
func TestIconFollowsDesktop(t *testing.T) {
	bus := watchertest.TestBus(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", bus.Address)
	pc, err := dbus.Connect(bus.Address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	portal := &settingsPortal{scheme: uint32(appearance.Light)}
	if err := pc.Export(portal, portalPath, portalIface); err != nil {
		t.Fatal(err)
	}
	if r, err := pc.RequestName(portalName, dbus.NameFlagDoNotQueue); err != nil || r != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("request name: %v %v", r, err)
	}

	tr, host, _, _ := newTray(t, waitBoot, func(o *Options) { o.FollowDesktop, o.Desktop = true, "XFCE" })
	drawn := func(p icon.Panel) []byte { return icon.PNG(tr.State().Icon(), p, icon.DefaultSize) }
	if bytes.Equal(drawn(icon.PanelLight), drawn(icon.PanelDark)) {
		t.Fatal("the light and dark variants are the same picture")
	}
	shows := func(p icon.Panel) func() bool {
		return func() bool { return bytes.Equal(host.shown(), drawn(p)) }
	}
	testsync.Eventually(t, "the icon drawn for a light panel at start", shows(icon.PanelLight))
	portal.set(t, pc, appearance.Dark)
	testsync.Eventually(t, "the icon drawn for a dark panel after the switch to dark", shows(icon.PanelDark))
	portal.set(t, pc, appearance.Light)
	testsync.Eventually(t, "the icon drawn for a light panel after the switch back", shows(icon.PanelLight))

	// The override: drawn for a dark panel on this light desktop, and a
	// switch changes nothing.
	tr2, host2, _, _ := newTray(t, waitBoot, func(o *Options) {
		o.FollowDesktop, o.Desktop, o.IconMode = true, "XFCE", appearance.ModeDark
	})
	portal.set(t, pc, appearance.Dark)
	portal.set(t, pc, appearance.Light)
	// A round trip through the bus: the signals were delivered.
	if err := pc.BusObject().Call("org.freedesktop.DBus.GetId", 0).Err; err != nil {
		t.Fatal(err)
	}
	if got, want := host2.shown(), icon.PNG(tr2.State().Icon(), icon.PanelDark, icon.DefaultSize); !bytes.Equal(got, want) {
		t.Error("with IconMode dark on a light desktop the icon is not the dark panel's")
	}
}
