package bufpool

import (
	"runtime"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// resident counts the pages of b the kernel has in memory (mincore).
func resident(t *testing.T, b []byte) int {
	t.Helper()
	vec := make([]byte, (len(b)+4095)/4096)
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0])))
	if errno != 0 {
		t.Fatal(errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// TestOffHeapAndGivenBack: a pool's buffers live outside the Go heap (so
// they do not raise the collector's heap goal), cost memory only once
// written, and an idle pool gives that memory back to the system.
func TestOffHeapAndGivenBack(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p := New(1<<20, 24, time.Hour)
	var got [][]byte
	for range 16 {
		got = append(got, p.Get())
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 2<<20 {
		t.Fatalf("the Go heap grew %d bytes for 16 MiB of buffers", grew)
	}
	if n := resident(t, got[0]); n > 0 {
		t.Fatalf("%d pages of a buffer never written are resident", n)
	}
	for _, b := range got {
		touch(b)
		b[0] = 9
	}
	if n := resident(t, got[3]); n != 256 {
		t.Fatalf("%d pages of a written 1 MiB buffer are resident, want 256", n)
	}
	for _, b := range got {
		p.Put(b)
	}
	p.idleFor(2 * time.Hour)
	p.expire()
	for i, b := range got {
		if n := resident(t, b); n > 0 {
			t.Fatalf("buffer %d: %d pages still resident after the pool went idle", i, n)
		}
	}
	if b := p.Get(); b[0] != 0 {
		t.Fatal("a buffer given back to the system still holds its bytes")
	}
}

// TestWarmResident: Warm's buffers are in memory at once and stay there
// through idle periods.
func TestWarmResident(t *testing.T) {
	p := New(1<<20, 8, time.Hour)
	p.Warm(2)
	a, b := p.Get(), p.Get()
	if resident(t, a) != 256 || resident(t, b) != 256 {
		t.Fatal("warmed buffers are not resident")
	}
	c := p.Get()
	touch(c)
	p.Put(a)
	p.Put(b)
	p.Put(c)
	p.idleFor(2 * time.Hour)
	p.expire()
	if resident(t, a) != 256 || resident(t, b) != 256 || resident(t, c) != 0 {
		t.Fatalf("after idle: resident pages %d, %d (warm), %d (not)", resident(t, a), resident(t, b), resident(t, c))
	}
}
