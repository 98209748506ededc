// Package gctune sets the Go garbage collector for a long-running headless
// node (`awp run`).
//
// A node's live heap is small (tens of MiB) but it allocates per line it
// stores and sends, so with the default GOGC=100 the collector runs very
// often: a fifth of the sender's CPU in the durable-messages benchmark.
// Node sets GOGC=300 with a soft memory limit of 512 MiB (the collector
// works harder as the heap nears it), unless the user set GOGC or
// GOMEMLIMIT, which the runtime then honors as usual. The tray app keeps
// the defaults: on a desktop, memory matters more than lines per second.
//
// It owns the collector settings of `awp run`; it must not override what
// the user set in GOGC or GOMEMLIMIT.
package gctune

import (
	"os"
	"runtime/debug"
)

// Percent and Limit are what Node sets.
const (
	Percent = 300
	Limit   = 512 << 20
)

// Node applies the node's collector settings unless GOGC or GOMEMLIMIT is
// set in the environment. It reports whether it changed anything.
func Node() bool {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return false
	}
	debug.SetGCPercent(Percent)
	debug.SetMemoryLimit(Limit)
	return true
}
