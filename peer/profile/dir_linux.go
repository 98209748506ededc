package profile

import (
	"fmt"
	"os"
)

// childDir returns the path the child chdirs to: /proc/self/fd/N of the
// directory opened through the os.Root. The child resolves it after fork,
// in its own copy of the descriptor table, to the very directory that was
// opened — not to whatever the request's path names by then. d must stay
// open until the child has started.
func childDir(d *os.File, _ string) (string, error) {
	p := fmt.Sprintf("/proc/self/fd/%d", d.Fd())
	st, err := os.Stat(p)
	if err != nil {
		return "", fmt.Errorf("/proc unavailable: %w", err)
	}
	want, err := d.Stat()
	if err != nil || !os.SameFile(st, want) {
		return "", fmt.Errorf("/proc/self/fd does not name the opened directory")
	}
	return p, nil
}
