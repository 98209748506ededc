//go:build unix

package peer

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time so far (a figure less
// sensitive than wall time to other work on a shared machine).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
