//go:build darwin

package autostart

import (
	"fmt"
	"os"
	"path/filepath"
)

// entryName and entryFile are the login entry: a LaunchAgent.
const entryName = AppID + ".plist"

func entryFile(e Entry) string { return LaunchAgent(e) }

// Dir returns ~/Library/LaunchAgents, where launchd finds the user's
// agents at login.
func Dir() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("autostart: %w", err)
	}
	return filepath.Join(home, "Library", "LaunchAgents"), nil
}

// On macOS there is no Run key: Dir never returns RunKey.
func runKeyEnabled() bool      { return false }
func enableRunKey(Entry) error { return errNoRunKey }
func disableRunKey() error     { return errNoRunKey }
