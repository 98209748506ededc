//go:build windows || darwin

package trayhost

import "context"

// SessionAddress is "" here: Windows and macOS have their own tray and
// notifications, and the app uses no D-Bus session bus (one that happens
// to run, from XQuartz or Homebrew, is not the desktop's).
func SessionAddress() string { return "" }

// Detect reports the system's own tray: always there.
func Detect(ctx context.Context) Result {
	return Result{Native: true}
}
