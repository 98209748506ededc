//go:build !windows && !darwin

package trayhost

import "context"

// SessionAddress is the session bus address the tray (and notifications)
// would use: $DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus when
// that socket exists, else "". It never starts a bus (godbus's autolaunch
// would).
func SessionAddress() string { return sessionAddress() }

// Detect checks the session bus (SessionAddress) for a watcher; ctx bounds
// the whole check.
func Detect(ctx context.Context) Result {
	return DetectAt(ctx, SessionAddress())
}
