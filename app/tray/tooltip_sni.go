//go:build (linux || freebsd || openbsd || netbsd) && !android

package tray

import "github.com/godbus/dbus/v5"

// The StatusNotifierItem fyne.io/systray exports (its path is not exported
// by the package).
const (
	sniPath       = dbus.ObjectPath("/StatusNotifierItem")
	sniNewToolTip = "org.kde.StatusNotifierItem.NewToolTip"
)

// announceTooltip tells the tray host that the tooltip changed.
// fyne.io/systray's SetTooltip only sets the ToolTip property (with
// PropertiesChanged), and hosts do not follow PropertiesChanged: a
// StatusNotifierItem says what changed with NewTitle, NewIcon, NewToolTip…
// and the host reads the properties again (xfce4-panel's sn-item.c does
// only that). Without this signal xfce4-panel showed "AWP: starting…" all
// day, until the icon happened to change.
//
// The signal goes out on the session bus connection systray registered
// its item with (dbus.SessionBus is shared), so the host sees it come from
// the item's own unique name. Before systray connected, it connects first:
// the host reads the properties afresh when the item registers anyway.
func announceTooltip() error {
	conn, err := dbus.SessionBus()
	if err != nil {
		return err
	}
	return conn.Emit(sniPath, sniNewToolTip)
}
