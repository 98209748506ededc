//go:build (linux || freebsd || openbsd || netbsd) && !android

package tray

import (
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/awp-tray/awp-tray/app/trayhost/watchertest"
)

// TestAnnounceTooltip: the host hears NewToolTip from the item's path on
// the connection fyne.io/systray uses (the shared session bus), which is
// what makes xfce4-panel read the tooltip again (app/smoketest's
// TestXfcePanel shows it on the screen).
func TestAnnounceTooltip(t *testing.T) {
	bus := watchertest.TestBus(t)
	// dbus.SessionBus is the process's one shared connection: nothing else
	// in this package's tests opens it, so it connects here, to this bus.
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", bus.Address)
	item, err := dbus.SessionBus()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { item.Close() })

	host, err := dbus.Connect(bus.Address)
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	if err := host.AddMatchSignal(dbus.WithMatchInterface("org.kde.StatusNotifierItem")); err != nil {
		t.Fatal(err)
	}
	signals := make(chan *dbus.Signal, 4)
	host.Signal(signals)

	if err := announceTooltip(); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-signals:
		if s.Name != sniNewToolTip || s.Path != sniPath || s.Sender != item.Names()[0] {
			t.Errorf("got %s on %s from %s; want %s on %s from the item's connection %s",
				s.Name, s.Path, s.Sender, sniNewToolTip, sniPath, item.Names()[0])
		}
	case <-time.After(30 * time.Second): // a bound for a broken bus, not a timing assertion
		t.Fatal("the host heard no NewToolTip")
	}
}
