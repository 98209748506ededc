package store

import (
	"os"
	"syscall"
	"unsafe"
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
