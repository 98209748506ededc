package store

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing a file range to disk
// without waiting for it (a hint: errors are ignored; fsync still decides).
func startWriteback(f *os.File, off, n int64) {
	if n <= 0 {
		return
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		_ = unix.SyncFileRange(int(fd), off, n, unix.SYNC_FILE_RANGE_WRITE)
	})
}
