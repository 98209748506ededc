// Package trayhost finds out, before the tray is set up, whether a system
// tray can show it. On Linux and the BSDs a D-Bus session bus must answer,
// and a StatusNotifierWatcher must own its name on it: fyne.io/systray
// assumes both; without a session bus it panics on quit, and without a
// watcher the icon never appears. On Windows and macOS the system's own
// tray (the notification area, the menu bar) is always there, and no
// session bus is used (SessionAddress is ""). The app sets up its tray
// only when Detect says OK, and otherwise shows its main window and says
// why.
//
// It owns the question "is there a tray?"; it must never start a session
// bus or register anything itself.
package trayhost

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/godbus/dbus/v5"
)

// WatcherName is the bus name a StatusNotifierWatcher owns.
const WatcherName = "org.kde.StatusNotifierWatcher"

// WatcherPath is the watcher's object path.
const WatcherPath = "/StatusNotifierWatcher"

// Result says whether a tray host is there, and if not, why.
type Result struct {
	Native  bool   // the system's own tray (Windows, macOS): no bus needed
	Address string // the session bus address tried ("" when none was found)
	Bus     bool   // a session bus answered
	Watcher bool   // a StatusNotifierWatcher owns its name
	Reason  string // why there is no tray, for logs and the main window
}

// OK reports whether the tray can be set up.
func (r Result) OK() bool { return r.Native || (r.Bus && r.Watcher) }

// sessionAddress is $DBUS_SESSION_BUS_ADDRESS, else
// $XDG_RUNTIME_DIR/bus when that socket exists, else "".
func sessionAddress() string {
	switch a := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); a {
	case "disabled:":
		return "" // set by the app itself when there is no bus
	case "", "autolaunch:":
	default:
		return a
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		p := filepath.Join(d, "bus")
		if st, err := os.Stat(p); err == nil && st.Mode()&os.ModeSocket != 0 {
			return "unix:path=" + p
		}
	}
	return ""
}

// DetectAt checks the bus at addr for a watcher.
func DetectAt(ctx context.Context, addr string) Result {
	r := Result{Address: addr}
	if addr == "" {
		r.Reason = "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)"
		return r
	}
	conn, err := dbus.Connect(addr, dbus.WithContext(ctx))
	if err != nil {
		r.Reason = fmt.Sprintf("the D-Bus session bus does not answer: %v", err)
		return r
	}
	defer conn.Close()
	r.Bus = true
	var has bool
	err = conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, WatcherName).Store(&has)
	switch {
	case err != nil:
		r.Reason = fmt.Sprintf("asking the session bus for a tray host failed: %v", err)
	case !has:
		r.Reason = "no system tray host (nothing owns " + WatcherName + " on the session bus)"
	default:
		r.Watcher = true
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && !r.Watcher {
		r.Reason = "the D-Bus session bus did not answer in time"
	}
	return r
}
