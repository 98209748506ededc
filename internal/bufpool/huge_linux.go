package bufpool

import "golang.org/x/sys/unix"

// adviseHuge asks for huge pages for the whole 2 MiB pages inside b (a
// hint: the kernel may refuse, and THP may be off).
func adviseHuge(b []byte) {
	off := alignOffset(b, hugePage)
	n := (len(b) - off) &^ (hugePage - 1)
	if off >= len(b) || n <= 0 {
		return
	}
	_ = unix.Madvise(b[off:off+n], unix.MADV_HUGEPAGE)
}
