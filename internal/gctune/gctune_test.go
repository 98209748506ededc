package gctune

import (
	"runtime/debug"
	"testing"
)

func TestNode(t *testing.T) {
	old := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(-1)
	defer func() { debug.SetGCPercent(old); debug.SetMemoryLimit(oldLimit) }()

	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	if !Node() {
		t.Fatal("Node did nothing without GOGC/GOMEMLIMIT")
	}
	if got := debug.SetGCPercent(100); got != Percent {
		t.Fatalf("GC percent = %d, want %d", got, Percent)
	}
	if got := debug.SetMemoryLimit(-1); got != Limit {
		t.Fatalf("memory limit = %d, want %d", got, Limit)
	}

	debug.SetGCPercent(100)
	t.Setenv("GOGC", "50")
	if Node() {
		t.Fatal("Node overrode GOGC from the environment")
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("GC percent = %d after Node with GOGC set", got)
	}
}
