//go:build linux || darwin

package peer

import (
	"syscall"
	"testing"
)

// limitOpenFiles lowers this process's soft limit on open descriptors to
// n for the rest of the test, and reports whether it could.
func limitOpenFiles(t *testing.T, n uint64) bool {
	t.Helper()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	old := lim
	lim.Cur = n
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old) })
	return true
}
