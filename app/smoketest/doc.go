// Package smoketest drives the real tray binary on a virtual display: an
// Xvfb server, a private D-Bus session bus with a minimal
// StatusNotifierWatcher (app/trayhost/watchertest), the tray menu read
// and clicked over com.canonical.dbusmenu, screenshots saved under
// build/screenshots/ with ImageMagick's import. TestXfcePanel puts the tray
// in a real tray host, xfce4-panel's system tray, and checks the screen's
// pixels: the icon, its tooltip, the unread badge, the menu a click opens.
//
// The tests need Xvfb, dbus-daemon, dbus-run-session, xdotool, ImageMagick,
// dunst and xfce4-panel (a test that lacks one says so and skips;
// scripts/app/smoke.sh refuses to start without them), build the
// Fyne binary with cgo, and take a minute, so they only build with the
// smoke tag:
//
//	go test -tags smoke -count=1 -v ./app/smoketest/
//
// or scripts/app/smoke.sh.
//
// It is tests only; nothing imports it.
package smoketest
