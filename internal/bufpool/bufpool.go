// Package bufpool keeps large buffers of one size for reuse across garbage
// collections.
//
// sync.Pool is emptied by the collector, and Go hands the memory of freed
// large buffers back to the OS, so a stream of 512 KiB chunk buffers
// allocated through sync.Pool keeps faulting fresh pages in (on this kind
// of VM a fresh 4 KiB page costs 12-20 us). A Pool instead keeps up to Max
// buffers until none has been taken for Idle, then lets them all go.
//
// A Pool makes its buffers Max at a time, as slices of one allocation whose
// memory the kernel is asked to back with huge pages where it can (Linux
// with transparent huge pages in "madvise" mode, Debian's default): one
// fault then brings in 2 MiB instead of 4 KiB (24 MiB of fresh memory took
// 75-81 ms with 4 KiB pages, 16-32 ms with huge pages, here). Untouched
// buffers cost no memory, and the allocation is collected once all of its
// buffers are garbage.
//
// It owns only buffer reuse; it must not know what the buffers hold.
package bufpool

import (
	"sync"
	"time"
	"unsafe"
)

// Pool is a bounded free list of buffers of Size bytes. The zero value is
// not usable; use New.
type Pool struct {
	size int
	max  int
	idle time.Duration
	free chan []byte // buffers Warm did not make
	// warmFree holds the buffers Warm made, which an idle pool keeps: it
	// has room for all of them, so one is never dropped (Warm counts it as
	// made, and its memory, mapped outside the heap, is never freed).
	warmFree chan []byte

	mu     sync.Mutex
	unused [][]byte       // buffers of the last slab not handed out yet
	used   bool           // a Get since the timer was armed
	timer  *time.Timer    // armed while the pool holds buffers
	warm   map[*byte]bool // the buffers Warm made (by first byte), which an idle pool keeps
}

// New returns a pool of buffers of size bytes that keeps at most max of
// them, and drops what it keeps once no Get has come for idle.
func New(size, max int, idle time.Duration) *Pool {
	return &Pool{size: size, max: max, idle: idle, free: make(chan []byte, max), warmFree: make(chan []byte, max)}
}

// Size is the length of the pool's buffers.
func (p *Pool) Size() int { return p.size }

// Get returns a buffer of Size bytes (its contents are whatever it held),
// one Warm made first.
func (p *Pool) Get() []byte {
	for _, free := range [...]chan []byte{p.warmFree, p.free} {
		select {
		case b := <-free:
			p.mu.Lock()
			p.used = true
			p.mu.Unlock()
			return b
		default:
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.used = true
	if len(p.unused) == 0 {
		p.unused = slab(p.size, p.max)
	}
	b := p.unused[len(p.unused)-1]
	p.unused[len(p.unused)-1] = nil
	p.unused = p.unused[:len(p.unused)-1]
	return b
}

// Put gives b back for reuse. A buffer that did not come from Get (another
// capacity) is left to the collector, as is one beyond the pool's bound,
// unless it is one Warm made: that one takes the place of another.
func (p *Pool) Put(b []byte) {
	if cap(b) != p.size {
		return
	}
	b = b[:p.size]
	p.mu.Lock()
	defer p.mu.Unlock()
	full := len(p.free)+len(p.warmFree) >= p.max // Puts hold p.mu; Gets only take
	free := p.free
	if p.warmed(b) {
		free = p.warmFree
		if full {
			select {
			case <-p.free:
			default:
			}
		}
	} else if full {
		return
	}
	select {
	case free <- b:
	default: // only a buffer given back twice gets here
		return
	}
	if p.timer == nil {
		p.used = false
		p.timer = time.AfterFunc(p.idle, p.expire)
	}
}

// Warm makes the pool hold n more buffers (up to n in all that Warm made,
// at most its bound) whose memory is faulted in now, and keep them for
// good, idle or not. It is for a long-running process that would rather
// pay for the memory once, up front, than on the first use after every
// idle period (see the package comment). Where the system allows, their
// memory is mapped outside the Go heap: buffers kept for good would
// otherwise raise the collector's heap goal by their size (times GOGC)
// and let every other allocation grow the heap that much further before a
// collection, into fresh memory that costs what warming saves.
func (p *Pool) Warm(n int) {
	p.mu.Lock()
	add := min(n, p.max) - len(p.warm)
	add = min(add, p.max-len(p.free)-len(p.warmFree))
	if add <= 0 {
		p.mu.Unlock()
		return
	}
	if p.warm == nil {
		p.warm = map[*byte]bool{}
	}
	bufs := mapSlab(p.size, add)
	if bufs == nil {
		bufs = slab(p.size, add)
	}
	for _, b := range bufs {
		p.warm[unsafe.SliceData(b)] = true
	}
	p.mu.Unlock()
	for _, b := range bufs {
		touch(b)
		p.Put(b)
	}
}

// warmed reports whether b is one of the buffers Warm made (p.mu held).
func (p *Pool) warmed(b []byte) bool { return p.warm[unsafe.SliceData(b)] }

// touch writes to every page of b, so the kernel backs it with memory now.
func touch(b []byte) {
	for i := 0; i < len(b); i += 4096 {
		b[i] = 0
	}
	if len(b) > 0 {
		b[len(b)-1] = 0
	}
}

// Len is how many buffers the pool holds now.
func (p *Pool) Len() int { return len(p.free) + len(p.warmFree) }

// expire drops the kept buffers if none was taken since the timer was
// armed, or re-arms it. Warm's stay.
func (p *Pool) expire() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.used {
		p.used = false
		p.timer.Reset(p.idle)
		return
	}
	p.timer = nil
	p.unused = nil
	for {
		select {
		case <-p.free:
		default:
			return
		}
	}
}

// hugePage is the size of a transparent huge page on amd64 and arm64.
const hugePage = 2 << 20

// slab returns n buffers of size bytes (capacity size: appending to one
// never runs into the next), page-aligned, cut from one allocation whose
// 2 MiB-aligned part is advised for huge pages.
func slab(size, n int) [][]byte {
	return cut(make([]byte, slabLen(size, n)), size, n)
}

// stride is a buffer's size rounded up to whole pages.
func stride(size int) int { return (size + 4095) &^ 4095 }

// slabLen is the memory a slab of n buffers of size bytes needs: n
// page-rounded buffers and a huge page more, to align them to one.
func slabLen(size, n int) int { return stride(size)*n + hugePage }

// cut aligns mem (slabLen(size, n) bytes) to a huge page, advises it for
// huge pages and cuts n page-aligned buffers of size bytes from it.
func cut(mem []byte, size, n int) [][]byte {
	st := stride(size)
	start := alignOffset(mem, hugePage)
	mem = mem[start : start+st*n]
	adviseHuge(mem)
	out := make([][]byte, n)
	for i := range out {
		out[i] = mem[i*st : i*st+size : i*st+size]
	}
	return out
}

// alignOffset is how far into b the first address aligned to a is.
func alignOffset(b []byte, a int) int {
	if len(b) == 0 {
		return 0
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return int((uintptr(a) - p%uintptr(a)) % uintptr(a))
}
