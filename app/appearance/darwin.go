//go:build darwin

package appearance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// globalPrefs is where macOS keeps AppleInterfaceStyle; its modification
// time says when to read the style again.
const globalPrefs = "Library/Preferences/.GlobalPreferences.plist"

// statInterval is how often the preferences file's time is looked at: a
// stat costs nothing measurable, and a menu bar that changed style is
// followed within this.
const statInterval = 30 * time.Second

// watch reads the menu bar's style and reads it again when the global
// preferences file changes.
func watch(ctx context.Context, changed func(Scheme)) (Scheme, error) {
	s, err := readDefaults(ctx)
	home, herr := os.UserHomeDir()
	if herr != nil {
		return s, err
	}
	path := filepath.Join(home, globalPrefs)
	mtime := func() time.Time {
		if fi, err := os.Stat(path); err == nil {
			return fi.ModTime()
		}
		return time.Time{}
	}
	go func() {
		last, seen := s, mtime()
		t := time.NewTicker(statInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if m := mtime(); !m.Equal(seen) {
				seen = m
				if n, err := readDefaults(ctx); err == nil && n != last {
					last = n
					if changed != nil {
						changed(n)
					}
				}
			}
		}
	}()
	return s, err
}

// readDefaults runs `defaults read -g AppleInterfaceStyle`: "Dark" for
// the dark style; the key is missing (exit status 1) in the light one.
func readDefaults(ctx context.Context) (Scheme, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "/usr/bin/defaults", "read", "-g", "AppleInterfaceStyle").Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return Light, nil
	}
	if err != nil {
		return NoPreference, fmt.Errorf("appearance: defaults: %w", err)
	}
	return parseDefaults(string(out)), nil
}
