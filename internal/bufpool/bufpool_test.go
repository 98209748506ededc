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
	p.Put(make([]byte, 64)) // not one of its buffers
	if p.Len() != 0 {
		t.Fatalf("kept a buffer that is not its own: %d", p.Len())
	}
	var got [][]byte
	for range 5 {
		got = append(got, p.Get()) // 2 of the pool's, 3 from the heap
	}
	for _, b := range got {
		p.Put(b)
	}
	if p.Len() != 2 {
		t.Fatalf("holds %d buffers, bound is 2", p.Len())
	}
	if p.Resident() != 2*4096 {
		t.Fatalf("resident %d, want two pages", p.Resident())
	}
}

func TestDoublePut(t *testing.T) {
	p := New(64, 4, time.Hour)
	a := p.Get()
	p.Put(a)
	p.Put(a)
	if p.Len() != 1 {
		t.Fatalf("holds %d after one buffer was given back twice, want 1", p.Len())
	}
	if x, y := p.Get(), p.Get(); &x[0] == &y[0] {
		t.Fatal("one buffer handed out twice")
	}
}

// TestSurvivesGC: sync.Pool would be empty here.
func TestSurvivesGC(t *testing.T) {
	p := New(1<<20, 4, time.Hour)
	b := p.Get()
	p.Put(b)
	for range 3 {
		runtimeGC()
	}
	if c := p.Get(); &c[0] != &b[0] {
		t.Fatal("the buffer did not survive garbage collection")
	}
}

// TestTouchesOnlyWhatIsHeld: a pool hands out the buffer given back last,
// so a transfer that holds two buffers at a time touches two, whatever
// its bound.
func TestTouchesOnlyWhatIsHeld(t *testing.T) {
	p := New(3*4096+1, 64, time.Hour)
	a := p.Get()
	for range 1000 {
		b := p.Get()
		p.Put(a)
		a = b
	}
	p.Put(a)
	if got, want := p.Resident(), 2*4*4096; got != want {
		t.Fatalf("resident %d bytes, want two buffers' %d", got, want)
	}
}

// idleFor makes the pool's last Get d ago (as if the clock moved).
func (p *Pool) idleFor(d time.Duration) {
	p.mu.Lock()
	p.last = time.Now().Add(-d)
	p.mu.Unlock()
}

func TestIdleRelease(t *testing.T) {
	// The decision, without waiting on a clock: a Get within the idle time
	// keeps the buffers; none lets them go, but for those in use.
	p := New(64, 4, time.Hour)
	a, b := p.Get(), p.Get()
	p.Put(a)
	p.idleFor(59 * time.Minute)
	c := p.Get()
	p.Put(b)
	p.idleFor(59 * time.Minute)
	p.expire()
	if p.Len() != 1 || p.Resident() != 2*4096 {
		t.Fatalf("gave back buffers within the idle time: holds %d, resident %d", p.Len(), p.Resident())
	}
	p.idleFor(time.Hour)
	p.expire()
	if p.Len() != 0 || p.Resident() != 4096 {
		t.Fatalf("after an idle period: holds %d, resident %d; want 0 and the one in use", p.Len(), p.Resident())
	}
	p.Put(c)
	if p.Len() != 1 {
		t.Fatalf("holds %d once the buffer in use came back, want 1", p.Len())
	}

	// The timer does it by itself, and the pool works again afterwards.
	p = New(64, 4, 10*time.Millisecond)
	p.Put(p.Get())
	deadline := time.Now().Add(10 * time.Second)
	for p.Len() != 0 || p.Resident() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("still holds %d buffers (%d bytes) long after its idle time", p.Len(), p.Resident())
		}
		time.Sleep(5 * time.Millisecond)
	}
	d := p.Get()
	d[0] = 1
	p.Put(d)
	if p.Len() != 1 {
		t.Fatalf("holds %d after reuse, want 1", p.Len())
	}
}

// TestBuffers: buffers are page-aligned (direct I/O needs it), exactly
// Size long with no room to grow into the next, and do not overlap, also
// those from the heap beyond the bound.
func TestBuffers(t *testing.T) {
	const size = 512<<10 + 1 // a chunk buffer's size is not a page multiple
	p := New(size, 3, time.Hour)
	seen := map[uintptr]bool{}
	var all [][]byte
	for i := range 7 {
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

// TestWarm: a warmed pool holds the buffers at once and keeps that many
// through idle periods (beyond its bound it does not go), while what it
// holds beyond them goes.
func TestWarm(t *testing.T) {
	p := New(3*4096+1, 6, time.Hour)
	p.Warm(4)
	if p.Len() != 4 {
		t.Fatalf("holds %d after Warm(4), want 4", p.Len())
	}
	// Two more in use at once, then back: six held.
	var got [][]byte
	for range 6 {
		got = append(got, p.Get())
	}
	for _, x := range got {
		p.Put(x)
	}
	if p.Len() != 6 {
		t.Fatalf("holds %d, want 6", p.Len())
	}
	p.expire() // a Get just now: all stay
	if p.Len() != 6 {
		t.Fatalf("holds %d right after use, want 6", p.Len())
	}
	p.idleFor(2 * time.Hour)
	p.expire() // idle: down to the warm ones
	if p.Len() != 4 || p.Resident() != 4*4*4096 {
		t.Fatalf("holds %d (%d bytes) after an idle period, want the 4 warmed", p.Len(), p.Resident())
	}
	p.Put(p.Get())
	p.idleFor(2 * time.Hour)
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
	p.Put(p.Get())
	time.Sleep(50 * time.Millisecond)
	if p.Len() != 2 {
		t.Fatalf("holds %d after its idle time, want the 2 warmed", p.Len())
	}
}
