//go:build linux || darwin

package peer

import "syscall"

// statfs returns the free (for an unprivileged user) and total bytes of
// the file system holding dir.
func statfs(dir string) (free, total uint64, err error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, 0, err
	}
	return st.Bavail * uint64(st.Bsize), st.Blocks * uint64(st.Bsize), nil
}
