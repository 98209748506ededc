// Package datadir says where a node keeps its data: the one rule that
// `awp` and the tray app share, so that both find the same node (its
// identity, store and control socket).
//
// It owns only that rule; it creates and reads nothing in the directory.
package datadir

import (
	"fmt"
	"os"
	"path/filepath"
)

// Env is the environment variable that names the data directory when no
// --data flag is given.
const Env = "AWP_DATA"

// FlagUsage describes the --data flag in -h.
const FlagUsage = "data directory (default $" + Env + ", else the user config dir's awp/)"

// Resolve returns the data directory, absolute: flagValue (--data) when it
// is given, else $AWP_DATA as getenv reads it, else the user config
// directory's awp/.
func Resolve(flagValue string, getenv func(string) string) (string, error) {
	d := flagValue
	if d == "" {
		d = getenv(Env)
	}
	if d == "" {
		cfg, err := os.UserConfigDir()
		if err != nil {
			return "", fmt.Errorf("no data directory: give --data or set %s (%w)", Env, err)
		}
		d = filepath.Join(cfg, "awp")
	}
	abs, err := filepath.Abs(d)
	if err != nil {
		return "", fmt.Errorf("data directory: %w", err)
	}
	return abs, nil
}
