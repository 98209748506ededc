//go:build !windows && !darwin

package autostart

import (
	"errors"
	"os"
)

// entryName and entryFile are the login entry: an XDG desktop entry.
const entryName = FileName

func entryFile(e Entry) string { return DesktopFile(e) }

// Dir returns the user's autostart directory: $XDG_CONFIG_HOME/autostart,
// by default ~/.config/autostart. In a Flatpak sandbox it returns
// ErrSandboxed: the sandbox cannot write there (the Background portal
// would ask for it, which this package does not do yet).
func Dir() (string, error) {
	if sandboxed() {
		return "", ErrSandboxed
	}
	return xdgDir()
}

// ErrSandboxed says why there is no login entry in a Flatpak sandbox.
var ErrSandboxed = errors.New("starting AWP at login is not available in the Flatpak yet (it needs the Background portal); " +
	"install the tarball for that")

// sandboxed reports whether the app runs in a Flatpak sandbox, which has
// /.flatpak-info (flatpak-metadata(5)).
func sandboxed() bool {
	_, err := os.Stat(flatpakInfo)
	return err == nil
}

// flatpakInfo is the file Flatpak puts at the root of every sandbox.
var flatpakInfo = "/.flatpak-info"

// On these platforms there is no Run key: Dir never returns RunKey.
func runKeyEnabled() bool      { return false }
func enableRunKey(Entry) error { return errNoRunKey }
func disableRunKey() error     { return errNoRunKey }
