//go:build !windows && !darwin

package autostart

// entryName and entryFile are the login entry: an XDG desktop entry.
const entryName = FileName

func entryFile(e Entry) string { return DesktopFile(e) }

// Dir returns the user's autostart directory: $XDG_CONFIG_HOME/autostart,
// by default ~/.config/autostart.
func Dir() (string, error) { return xdgDir() }

// On these platforms there is no Run key: Dir never returns RunKey.
func runKeyEnabled() bool      { return false }
func enableRunKey(Entry) error { return errNoRunKey }
func disableRunKey() error     { return errNoRunKey }
