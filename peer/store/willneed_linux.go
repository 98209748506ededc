package store

import (
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// willNeed asks the kernel to read b's pages in now, in large reads. b is
// a value in bbolt's mmap, which bbolt marks MADV_RANDOM (no readahead):
// read one page at a time, a 3 MB value took ~700 disk reads.
//
// The advice starts at the page boundary before b, so it is given in
// addresses (uintptr), never as a Go pointer outside b: a value of an
// inline bucket that bbolt found unaligned is a copy on the Go heap, where
// a pointer before b's start would break unsafe.Pointer's rules (the race
// detector's checkptr stops the program) and the advice changes nothing.
func willNeed(b []byte) {
	if len(b) == 0 {
		return
	}
	start := uintptr(unsafe.Pointer(&b[0]))
	off := start % uintptr(os.Getpagesize())
	_, _, _ = unix.Syscall(unix.SYS_MADVISE, start-off, uintptr(len(b))+off, unix.MADV_WILLNEED)
	runtime.KeepAlive(b)
}
