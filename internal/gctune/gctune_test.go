package gctune

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestNode(t *testing.T) {
	old := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(-1)
	defer func() { stopFollow(); debug.SetGCPercent(old); debug.SetMemoryLimit(oldLimit) }()

	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	if !Node() {
		t.Fatal("Node did nothing without GOGC/GOMEMLIMIT")
	}
	if got := debug.SetGCPercent(100); got != Percent {
		t.Fatalf("GC percent = %d, want %d", got, Percent)
	}
	debug.SetGCPercent(Percent)
	if got := debug.SetMemoryLimit(-1); got < Floor || got > Limit {
		t.Fatalf("memory limit = %d, want within [%d, %d]", got, Floor, Limit)
	}
	stopFollow()

	debug.SetGCPercent(100)
	t.Setenv("GOGC", "50")
	if Node() {
		t.Fatal("Node overrode GOGC from the environment")
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("GC percent = %d after Node with GOGC set", got)
	}
}

// TestLimitFor checks the limit's three regimes.
func TestLimitFor(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		live, other, want int64
	}{
		{10 * mib, 8 * mib, Floor},                     // a msgs node: GOGC=300 decides
		{60 * mib, 8 * mib, 60*mib + 8*mib + Headroom}, // a tailcat node moving a blob
		{200 * mib, 10 * mib, 200*mib + 10*mib + 50*mib},
		{480 * mib, 10 * mib, Limit},
	} {
		if got := limitFor(memNow{live: c.live, other: c.other}); got != c.want {
			t.Errorf("limitFor(live %d MiB, other %d MiB) = %d MiB, want %d MiB",
				c.live/mib, c.other/mib, got/mib, c.want/mib)
		}
	}
}

// TestFollow checks that the limit follows the live heap across
// collections: up when a large heap is live, back down once it is gone.
func TestFollow(t *testing.T) {
	old := debug.SetGCPercent(Percent)
	oldLimit := debug.SetMemoryLimit(Limit)
	defer func() { stopFollow(); debug.SetGCPercent(old); debug.SetMemoryLimit(oldLimit) }()
	startFollow()

	big := make([][]byte, 0, 160)
	for range cap(big) {
		big = append(big, make([]byte, 1<<20))
	}
	waitLimit(t, func(l int64) bool { return l >= 160<<20 }, "above the 160 MiB live")
	runtime.KeepAlive(big)
	big = nil
	waitLimit(t, func(l int64) bool { return l < 160<<20 }, "back below 160 MiB")
}

func waitLimit(t *testing.T, ok func(int64) bool, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		runtime.GC() // the cleanup runs after the collection; the next waits for it
		l := debug.SetMemoryLimit(-1)
		if ok(l) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("memory limit %d MiB, want it %s", l>>20, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
