// Package gctune sets the Go garbage collector for a long-running headless
// node (`awp run`).
//
// A node's live heap is small (tens of MiB) but it allocates per line it
// stores and sends, so with the default GOGC=100 the collector runs very
// often: a fifth of the sender's CPU in the durable-messages benchmark.
// Node sets GOGC=300, unless the user set GOGC or GOMEMLIMIT, which the
// runtime then honors as usual. The tray app keeps the defaults: on a
// desktop, memory matters more than lines per second.
//
// GOGC=300 lets the heap grow to four times what is live before the next
// collection, and what a collection frees stays resident until the
// runtime gives it back. That is cheap for a small live heap, not for a
// large one: a tailcat node moving a blob keeps 60-90 MiB live (most of it
// wireguard-go's 64 KiB packet buffers, which it allocates and drops at the
// rate data moves), and at four times that its peak RSS was 160-250 MiB.
// So Node also sets a soft memory limit that follows the live heap (see
// limitFor): at least Floor, which a small heap under GOGC=300 stays
// within (the msgs nodes: 10-20 MiB live), else the live heap and the
// runtime's own memory plus Headroom or a quarter of the live heap,
// whichever is more (a collection then frees at least that much, so the
// collector never runs back to back), and never more than Limit. It is
// re-set after every collection.
//
// It owns the collector settings of `awp run`; it must not override what
// the user set in GOGC or GOMEMLIMIT.
package gctune

import (
	"os"
	"runtime/debug"
)

// What Node sets: the GC percent, and the bounds of the memory limit.
const (
	Percent = 300
	// Limit is the most the memory limit follows the live heap to.
	Limit = 512 << 20
	// Floor is the least memory limit: below it GOGC alone decides.
	Floor = 80 << 20
	// Headroom is the least room above the live heap and the runtime's
	// own memory that the limit leaves for new allocations.
	Headroom = 16 << 20
)

// Node applies the node's collector settings unless GOGC or GOMEMLIMIT is
// set in the environment. It reports whether it changed anything.
func Node() bool {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return false
	}
	debug.SetGCPercent(Percent)
	debug.SetMemoryLimit(limitFor(readMem()))
	startFollow()
	return true
}
