package store

import (
	"io"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// directAlign is the alignment direct I/O needs here (offset, length and
// memory): the page size, which covers the logical block size of common
// disks.
const directAlign = 4096

func directAligned(off int64, data []byte) bool {
	return off%directAlign == 0 && len(data)%directAlign == 0 &&
		uintptr(unsafe.Pointer(unsafe.SliceData(data)))%directAlign == 0
}

// openDirect opens an existing file for direct writes (O_DIRECT), or
// returns nil where that is refused (tmpfs, some network file systems).
func openDirect(path string) *os.File {
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_DIRECT, 0)
	if err != nil {
		return nil
	}
	return f
}

// openDirectRead opens a file for direct reads, or returns nil where that
// is refused.
func openDirectRead(path string) *os.File {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_DIRECT, 0)
	if err != nil {
		return nil
	}
	return f
}

// writevAt writes bufs one after another from off with pwritev, as few
// calls as the kernel allows.
func writevAt(f *os.File, off int64, bufs [][]byte) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	bufs = append([][]byte(nil), bufs...) // trimmed below: the caller's stays
	var werr error
	err = rc.Control(func(fd uintptr) {
		for len(bufs) > 0 {
			n, err := unix.Pwritev(int(fd), bufs, off)
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				werr = err
				return
			}
			if n <= 0 {
				werr = io.ErrShortWrite
				return
			}
			off += int64(n)
			for n > 0 {
				if n < len(bufs[0]) {
					bufs[0] = bufs[0][n:]
					break
				}
				n -= len(bufs[0])
				bufs = bufs[1:]
			}
		}
	})
	if err != nil {
		return err
	}
	return werr
}
