//go:build linux

package tray

import (
	"bytes"
	"context"
	"testing"

	"github.com/awp-tray/awp-tray/app/appearance"
	"github.com/awp-tray/awp-tray/app/appearance/portaltest"
	"github.com/awp-tray/awp-tray/app/icon"
	"github.com/awp-tray/awp-tray/app/trayhost/watchertest"
	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer/localapi"
)

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
	portal := portaltest.Serve(t, bus.Address, uint32(appearance.Light))

	tr, host, _, _ := newTray(t, waitBoot, func(o *Options) { o.FollowDesktop, o.Desktop = true, "XFCE" })
	drawn := func(p icon.Panel) []byte { return icon.PNG(tr.State().Icon(), p, icon.DefaultSize) }
	if bytes.Equal(drawn(icon.PanelLight), drawn(icon.PanelDark)) {
		t.Fatal("the light and dark variants are the same picture")
	}
	shows := func(p icon.Panel) func() bool {
		return func() bool { return bytes.Equal(host.shown(), drawn(p)) }
	}
	testsync.Eventually(t, "the icon drawn for a light panel at start", shows(icon.PanelLight))
	portal.Set(t, uint32(appearance.Dark))
	testsync.Eventually(t, "the icon drawn for a dark panel after the switch to dark", shows(icon.PanelDark))
	portal.Set(t, uint32(appearance.Light))
	testsync.Eventually(t, "the icon drawn for a light panel after the switch back", shows(icon.PanelLight))

	// The override: drawn for a dark panel on this light desktop, and a
	// switch changes nothing.
	tr2, host2, _, _ := newTray(t, waitBoot, func(o *Options) {
		o.FollowDesktop, o.Desktop, o.IconMode = true, "XFCE", appearance.ModeDark
	})
	portal.Set(t, uint32(appearance.Dark))
	portal.Set(t, uint32(appearance.Light))
	// A round trip through the bus: the signals were delivered.
	if err := portal.Conn().BusObject().Call("org.freedesktop.DBus.GetId", 0).Err; err != nil {
		t.Fatal(err)
	}
	if got, want := host2.shown(), icon.PNG(tr2.State().Icon(), icon.PanelDark, icon.DefaultSize); !bytes.Equal(got, want) {
		t.Error("with IconMode dark on a light desktop the icon is not the dark panel's")
	}
}
