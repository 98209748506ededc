//go:build windows

package autostart

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows/registry"
)

// entryName and entryFile: with a directory (tests), an XDG desktop
// entry as elsewhere; with RunKey, a registry value.
const entryName = FileName

func entryFile(e Entry) string { return DesktopFile(e) }

// runPath is RunKey below HKEY_CURRENT_USER.
const runPath = `Software\Microsoft\Windows\CurrentVersion\Run`

// Dir returns RunKey: Windows starts the command lines under it at login.
func Dir() (string, error) { return RunKey, nil }

func runKeyEnabled() bool {
	k, err := registry.OpenKey(registry.CURRENT_USER, runPath, registry.QUERY_VALUE)
	if err != nil {
		return false
	}
	defer k.Close()
	_, _, err = k.GetStringValue(AppID)
	return err == nil
}

func enableRunKey(e Entry) error {
	k, _, err := registry.CreateKey(registry.CURRENT_USER, runPath, registry.SET_VALUE)
	if err != nil {
		return fmt.Errorf("autostart: open %s: %w", RunKey, err)
	}
	defer k.Close()
	if err := k.SetStringValue(AppID, CommandLine(e.Exec, e.Args)); err != nil {
		return fmt.Errorf("autostart: set %s\\%s: %w", RunKey, AppID, err)
	}
	return nil
}

func disableRunKey() error {
	k, err := registry.OpenKey(registry.CURRENT_USER, runPath, registry.SET_VALUE)
	if errors.Is(err, registry.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("autostart: open %s: %w", RunKey, err)
	}
	defer k.Close()
	if err := k.DeleteValue(AppID); err != nil && !errors.Is(err, registry.ErrNotExist) {
		return fmt.Errorf("autostart: delete %s\\%s: %w", RunKey, AppID, err)
	}
	return nil
}
