//go:build !((linux || freebsd || openbsd || netbsd) && !android)

package tray

// announceTooltip has nothing to do where the tray is not a D-Bus
// StatusNotifierItem: systray sets the tooltip itself on Windows and macOS.
func announceTooltip() error { return nil }
