package peer

import "golang.org/x/sys/windows"

// statfs returns the free (for this user, after quotas) and total bytes
// of the volume holding dir.
func statfs(dir string) (free, total uint64, err error) {
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return 0, 0, err
	}
	if err := windows.GetDiskFreeSpaceEx(p, &free, &total, nil); err != nil {
		return 0, 0, err
	}
	return free, total, nil
}
