package bufpool

import "golang.org/x/sys/unix"

// mapSlab is slab with memory mapped outside the Go heap (anonymous,
// private), never unmapped: for buffers kept for the life of the process
// (Warm). It returns nil if the mapping fails.
func mapSlab(size, n int) [][]byte {
	mem, err := unix.Mmap(-1, 0, slabLen(size, n), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil
	}
	return cut(mem, size, n)
}
