package peer

import "syscall"

// mountTmpfs mounts a tmpfs of size on dir (root only) and returns what
// unmounts it.
func mountTmpfs(dir, size string) (unmount func(), err error) {
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size+",mode=0700"); err != nil {
		return nil, err
	}
	return func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) }, nil
}
