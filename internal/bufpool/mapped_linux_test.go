package bufpool

import (
	"runtime"
	"testing"
	"time"
)

// TestWarmOffHeap: Warm's buffers live outside the Go heap (so they do
// not raise the collector's heap goal), are usable, and are the ones an
// idle pool keeps, while buffers it made from the heap go.
func TestWarmOffHeap(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p := New(1<<20, 24, time.Hour)
	p.Warm(16)
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 2<<20 {
		t.Fatalf("the Go heap grew %d bytes for 16 MiB of warm buffers", grew)
	}
	if p.Len() != 16 {
		t.Fatalf("holds %d, want 16", p.Len())
	}
	var got [][]byte
	for range 20 { // 16 warm ones, then 4 from the heap
		b := p.Get()
		b[0], b[len(b)-1] = 1, 2
		got = append(got, b)
	}
	warm := 0
	p.mu.Lock()
	for _, b := range got {
		if p.warmed(b) {
			warm++
		}
	}
	p.mu.Unlock()
	if warm != 16 {
		t.Fatalf("%d of the first 20 buffers are Warm's, want 16", warm)
	}
	for _, b := range got {
		p.Put(b)
	}
	p.expire() // used since armed
	p.expire()
	if p.Len() != 16 {
		t.Fatalf("an idle pool holds %d, want Warm's 16", p.Len())
	}
	p.mu.Lock()
	if len(p.free) != 0 {
		t.Errorf("an idle pool kept %d buffers Warm did not make", len(p.free))
	}
	for range 16 {
		b := <-p.warmFree
		if !p.warmed(b) {
			t.Error("an idle pool kept a heap buffer")
		}
		p.warmFree <- b
	}
	p.mu.Unlock()
}
