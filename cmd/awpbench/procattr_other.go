//go:build !linux

package main

import (
	"syscall"
	"time"
)

func childProcAttr() *syscall.SysProcAttr { return nil }

// settle lets the previous step's work finish before the next is timed.
func settle() { time.Sleep(200 * time.Millisecond) }

func cpuSeconds() float64 { return 0 }

// oDirect is 0 where the flag does not exist (writes then go through the
// page cache).
const oDirect = 0
