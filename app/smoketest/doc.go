// Package smoketest drives the real tray binary on a virtual display: an
// Xvfb server, a private D-Bus session bus with a minimal
// StatusNotifierWatcher (app/trayhost/watchertest), the tray menu read
// and clicked over com.canonical.dbusmenu, screenshots saved under
// build/screenshots/ with ImageMagick's import.
//
// The tests need Xvfb, dbus-daemon, xdotool, ImageMagick and dunst (a
// test that lacks one says so and skips), build the
// Fyne binary with cgo, and take a minute, so they only build with the
// smoke tag:
//
//	go test -tags smoke -count=1 -v ./app/smoketest/
//
// or scripts/app/smoke.sh.
//
// It is tests only; nothing imports it.
package smoketest
