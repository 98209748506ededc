package main

import (
	"syscall"
	"time"
)

// childProcAttr makes a child die with the parent (no stray nodes left on
// a killed run).
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// cpuSeconds is this process's CPU time so far (user + system), seconds.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// settle flushes what earlier steps left for the disk (removed blob files,
// dirty pages) so it is not written back during the next step's timing.
func settle() {
	syscall.Sync()
	time.Sleep(200 * time.Millisecond)
}

// oDirect opens a file for writes around the page cache.
const oDirect = syscall.O_DIRECT
