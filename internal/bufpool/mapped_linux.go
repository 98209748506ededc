package bufpool

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// mapSlab is slab with memory mapped outside the Go heap (anonymous,
// private), never unmapped: for buffers kept for the life of the process
// (Warm). It returns nil if the mapping fails, and the mapping's address
// range.
func mapSlab(size, n int) ([][]byte, [2]uintptr) {
	stride := (size + 4095) &^ 4095
	mem, err := unix.Mmap(-1, 0, stride*n+hugePage, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil, [2]uintptr{}
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(mem)))
	return cut(mem, size, n), [2]uintptr{lo, lo + uintptr(len(mem))}
}
