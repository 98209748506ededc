package bufpool

import (
	"testing"
	"time"
	"unsafe"
)

func TestReuse(t *testing.T) {
	p := New(1024, 2, time.Hour)
	a := p.Get()
	if len(a) != 1024 {
		t.Fatalf("len %d, want 1024", len(a))
	}
	a[0] = 7
	p.Put(a)
	b := p.Get()
	if &a[0] != &b[0] || b[0] != 7 {
		t.Fatal("a buffer given back was not reused")
	}
	p.Put(b[:10]) // a shorter slice of a pool buffer still goes back whole
	if c := p.Get(); len(c) != 1024 || &c[0] != &a[0] {
		t.Fatal("a re-sliced buffer was not restored to its size")
	}
}

func TestBounds(t *testing.T) {
	p := New(64, 2, time.Hour)
	p.Put(make([]byte, 32)) // not one of its size
	if p.Len() != 0 {
		t.Fatalf("kept a buffer of another size: %d", p.Len())
	}
	for i := 0; i < 5; i++ {
		p.Put(make([]byte, 64))
	}
	if p.Len() != 2 {
		t.Fatalf("kept %d buffers, bound is 2", p.Len())
	}
}

// TestSurvivesGC is the point of the package: sync.Pool would be empty here.
func TestSurvivesGC(t *testing.T) {
	p := New(1<<20, 4, time.Hour)
	b := p.Get()
	p.Put(b)
	for i := 0; i < 3; i++ {
		runtimeGC()
	}
	if c := p.Get(); &c[0] != &b[0] {
		t.Fatal("the buffer did not survive garbage collection")
	}
}

func TestIdleRelease(t *testing.T) {
	// The decision, without waiting on a clock: a Get since the timer was
	// armed keeps the buffers for another period; none lets them go.
	p := New(64, 4, time.Hour)
	p.Put(p.Get())
	p.Put(make([]byte, 64))
	p.Get()
	p.Put(make([]byte, 64))
	p.expire()
	if p.Len() != 2 {
		t.Fatalf("dropped buffers that were in use: holds %d, want 2", p.Len())
	}
	p.expire()
	if p.Len() != 0 {
		t.Fatalf("still holds %d after an idle period", p.Len())
	}

	// The timer does it by itself, and the pool works again afterwards.
	p = New(64, 4, 10*time.Millisecond)
	p.Put(p.Get())
	deadline := time.Now().Add(10 * time.Second)
	for p.Len() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("still holds %d buffers long after its idle time", p.Len())
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.Put(p.Get())
	if p.Len() != 1 {
		t.Fatalf("holds %d after reuse, want 1", p.Len())
	}
}

// TestSlabBuffers: buffers cut from one allocation are page-aligned (direct
// I/O needs it), exactly Size long with no room to grow into the next, and
// do not overlap; a pool makes a new slab when one is used up.
func TestSlabBuffers(t *testing.T) {
	const size = 512<<10 + 1 // a chunk buffer's size is not a page multiple
	p := New(size, 3, time.Hour)
	seen := map[uintptr]bool{}
	var all [][]byte
	for i := 0; i < 7; i++ {
		b := p.Get()
		if len(b) != size || cap(b) != size {
			t.Fatalf("buffer %d: len %d cap %d, want %d", i, len(b), cap(b), size)
		}
		if off := alignOffset(b, 4096); off != 0 {
			t.Fatalf("buffer %d is not page-aligned", i)
		}
		a := uintptr(unsafe.Pointer(&b[0]))
		if seen[a] {
			t.Fatalf("buffer %d handed out twice", i)
		}
		seen[a] = true
		for j := range b {
			b[j] = byte(i)
		}
		all = append(all, b)
	}
	for i, b := range all {
		for j, c := range b {
			if c != byte(i) {
				t.Fatalf("buffer %d byte %d was overwritten (%d): buffers overlap", i, j, c)
			}
		}
	}
}

// TestWarmKeptWhenFull: buffers Warm made are not dropped when they come
// back to a full pool after others made in a burst: they take the place of
// those, and stay through idle periods.
func TestWarmKeptWhenFull(t *testing.T) {
	p := New(3*4096+1, 4, time.Hour)
	p.Warm(2)
	var warm, cold [][]byte
	for range 2 {
		warm = append(warm, p.Get())
	}
	for range 4 {
		cold = append(cold, p.Get()) // a burst beyond the warm ones
	}
	for _, b := range append(cold, warm...) { // the cold ones back first: the pool is full
		p.Put(b)
	}
	if p.Len() != 4 {
		t.Fatalf("holds %d, want its bound 4", p.Len())
	}
	p.expire()
	p.expire() // idle: down to the warm ones
	if p.Len() != 2 {
		t.Fatalf("holds %d after an idle period, want the 2 warmed", p.Len())
	}
	got := map[*byte]bool{}
	for range 2 {
		got[&p.Get()[0]] = true
	}
	for _, b := range warm {
		if !got[&b[0]] {
			t.Fatalf("a warmed buffer was dropped for one made in the burst")
		}
	}
	// A buffer that is not warm is still dropped when the pool is full.
	for range 5 {
		p.Put(make([]byte, 3*4096+1))
	}
	if p.Len() != 4 {
		t.Fatalf("holds %d, want its bound 4", p.Len())
	}
	for _, b := range warm {
		p.Put(b)
	}
	p.expire()
	if p.Len() != 2 {
		t.Fatalf("holds %d after an idle period, want the 2 warmed", p.Len())
	}
}

// TestWarm: a warmed pool holds the buffers at once and keeps that many
// through idle periods (beyond its bound it does not go), while what it
// holds beyond them still goes.
func TestWarm(t *testing.T) {
	p := New(3*4096+1, 6, time.Hour)
	p.Warm(4)
	if p.Len() != 4 {
		t.Fatalf("holds %d after Warm(4), want 4", p.Len())
	}
	// Two more in use at once, then back: six held.
	a, b, c, d, e, f := p.Get(), p.Get(), p.Get(), p.Get(), p.Get(), p.Get()
	for _, x := range [][]byte{a, b, c, d, e, f} {
		p.Put(x)
	}
	if p.Len() != 6 {
		t.Fatalf("holds %d, want 6", p.Len())
	}
	p.expire() // a Get since the timer was armed: all stay
	p.expire() // idle: down to the warm ones
	if p.Len() != 4 {
		t.Fatalf("holds %d after an idle period, want the 4 warmed", p.Len())
	}
	p.expire()
	if p.Len() != 4 {
		t.Fatalf("holds %d after two idle periods, want 4", p.Len())
	}
	p.Warm(100)
	if p.Len() != 6 {
		t.Fatalf("holds %d after Warm beyond the bound, want the bound 6", p.Len())
	}

	// The timer keeps them too.
	p = New(64, 4, 10*time.Millisecond)
	p.Warm(2)
	time.Sleep(50 * time.Millisecond)
	if p.Len() != 2 {
		t.Fatalf("holds %d after its idle time, want the 2 warmed", p.Len())
	}
}
