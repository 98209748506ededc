package bufpool

import "golang.org/x/sys/unix"

// mapRegion maps n bytes outside the Go heap (anonymous, private, address
// space only until written), never unmapped: a pool keeps its region for
// the life of the process and gives its pages back with release. It
// returns nil if the mapping fails.
func mapRegion(n int) []byte {
	mem, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil
	}
	return mem
}

// release gives the pages of b (whole pages of a mapped region) back to
// the system; b reads as zeros afterwards and is faulted in again when
// written.
func release(b []byte) {
	_ = unix.Madvise(b, unix.MADV_DONTNEED)
}
