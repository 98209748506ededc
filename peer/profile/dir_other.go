//go:build !linux

package profile

import (
	"fmt"
	"os"
	"path/filepath"
)

// childDir returns the path the child chdirs to. Without /proc this is the
// checked path itself, verified to still be the opened directory just
// before the child starts; a swap in the remaining window is not excluded
// (see docs/profile.md).
func childDir(d *os.File, abs string) (string, error) {
	st, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	want, err := d.Stat()
	if err != nil || !os.SameFile(st, want) {
		return "", fmt.Errorf("working directory changed")
	}
	return filepath.Clean(abs), nil
}
