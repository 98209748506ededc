//go:build unix

package app

import "syscall"

// cpuTime is the CPU time this process used so far (user and system, all
// threads: the node's, the local API's and the UI's), in nanoseconds; the
// wall clock of a shared machine says less.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
