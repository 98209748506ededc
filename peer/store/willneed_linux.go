package store

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// willNeed asks the kernel to read b's pages in now, in large reads. b is
// a value in bbolt's mmap, which bbolt marks MADV_RANDOM (no readahead):
// read one page at a time, a 3 MB value took ~700 disk reads.
func willNeed(b []byte) {
	if len(b) == 0 {
		return
	}
	off := int(uintptr(unsafe.Pointer(&b[0])) % uintptr(os.Getpagesize()))
	// From the page boundary before b: still inside the same mapping.
	p := unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(&b[0]), -off)), len(b)+off)
	_ = unix.Madvise(p, unix.MADV_WILLNEED)
}
