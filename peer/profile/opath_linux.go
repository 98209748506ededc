package profile

import "golang.org/x/sys/unix"

// oPath opens a directory only to walk from it (fstat, openat ".."):
// no read permission is needed.
const oPath = unix.O_PATH
