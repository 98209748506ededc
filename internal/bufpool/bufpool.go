// Package bufpool keeps large buffers of one size for reuse, made on
// demand and given back to the system when idle.
//
// sync.Pool is emptied by the collector, and Go hands the memory of freed
// large buffers back to the OS, so a stream of 512 KiB chunk buffers
// allocated through sync.Pool keeps faulting fresh pages in (on this kind
// of VM a fresh 4 KiB page costs 12-20 us). A Pool instead keeps its
// buffers across collections while they are used, and once none has been
// taken for Idle gives their memory back to the system: a node that moved
// a blob an hour ago holds nothing for it now.
//
// A Pool's buffers are cut from one region of Max buffers, mapped outside
// the Go heap where the system allows (so buffers in use do not raise the
// collector's heap goal, and with it every other allocation's room to
// grow), reserved as address space only: a buffer's memory is faulted in
// when it is first written. The region is advised for huge pages (Linux
// with transparent huge pages in "madvise" mode, Debian's default): one
// fault then brings in 2 MiB instead of 4 KiB (24 MiB of fresh memory took
// 75-81 ms with 4 KiB pages, 16-32 ms with huge pages, here). Get hands
// out the buffer given back last, then the lowest one never touched, so a
// transfer touches only as many buffers as it holds at once, not the
// pool's bound. Giving memory back drops the pages of the buffers not in
// use (madvise MADV_DONTNEED: they read as zeros after, and fault in again
// when written). Buffers beyond Max at once come from the heap and are
// left to the collector when they come back.
//
// It owns only buffer reuse; it must not know what the buffers hold.
package bufpool

import (
	"slices"
	"sync"
	"time"
	"unsafe"
)

// Pool is a bounded set of buffers of Size bytes. The zero value is not
// usable; use New.
type Pool struct {
	size   int
	stride int // a buffer's size rounded up to whole pages
	max    int
	idle   time.Duration

	mu     sync.Mutex
	region []byte // max buffers, stride bytes apart; nil until the first Get
	mapped bool   // region is mapped outside the heap: release can give pages back
	state  []uint8
	free   []int       // buffers given back, resident: the last one is handed out first
	fresh  []int       // buffers never touched or given back to the system, highest first
	keep   int         // Warm: buffers kept resident through idle periods
	last   time.Time   // the last Get
	timer  *time.Timer // armed while buffers beyond keep are held
}

// Buffer states in Pool.state.
const (
	stFresh uint8 = iota // not handed out since made or released: no memory
	stOut                // handed out
	stFree               // given back, memory resident
)

// New returns a pool of buffers of size bytes that holds at most max of
// them, and gives their memory back once no Get has come for idle.
func New(size, max int, idle time.Duration) *Pool {
	return &Pool{size: size, stride: stride(size), max: max, idle: idle}
}

// Size is the length of the pool's buffers.
func (p *Pool) Size() int { return p.size }

// Get returns a buffer of Size bytes, page-aligned (its contents are
// whatever it held, or zeros).
func (p *Pool) Get() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = time.Now()
	if n := len(p.free); n > 0 {
		i := p.free[n-1]
		p.free = p.free[:n-1]
		p.state[i] = stOut
		return p.buf(i)
	}
	p.ensureRegion()
	if n := len(p.fresh); n > 0 {
		i := p.fresh[n-1]
		p.fresh = p.fresh[:n-1]
		p.state[i] = stOut
		return p.buf(i)
	}
	// All max are out: one more from the heap, left to the collector.
	return aligned(p.size)
}

// Put gives b back for reuse. A buffer that is not one of the pool's (one
// from the heap beyond its bound, or another capacity) is left to the
// collector; one given back twice is ignored.
func (p *Pool) Put(b []byte) {
	if cap(b) != p.size {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	i, ok := p.index(b[:1])
	if !ok || p.state[i] != stOut {
		return
	}
	p.state[i] = stFree
	p.free = append(p.free, i)
	if p.timer == nil && len(p.free) > p.keep {
		p.timer = time.AfterFunc(p.idle-time.Since(p.last), p.expire)
	}
}

// Warm faults in n of the pool's buffers now (at most its bound) and keeps
// that many resident for good, idle or not. It is for a long-running
// process that would rather pay for the memory once, up front, than on the
// first use after every idle period.
func (p *Pool) Warm(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n = min(n, p.max)
	if n <= p.keep {
		return
	}
	p.keep = n
	p.ensureRegion()
	for len(p.free) < n && len(p.fresh) > 0 {
		i := p.fresh[len(p.fresh)-1]
		p.fresh = p.fresh[:len(p.fresh)-1]
		touch(p.buf(i))
		p.state[i] = stFree
		p.free = append(p.free, i)
	}
}

// Len is how many buffers the pool holds resident and not in use.
func (p *Pool) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.free)
}

// Resident is the memory of the pool's buffers that is not given back:
// those in use and those held (bytes, whole pages). Buffers from the heap
// beyond the bound are not counted.
func (p *Pool) Resident() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, s := range p.state {
		if s != stFresh {
			n++
		}
	}
	return n * p.stride
}

// ensureRegion makes the region (p.mu held).
func (p *Pool) ensureRegion() {
	if p.region != nil {
		return
	}
	n := p.stride * p.max
	if p.region = mapRegion(n + hugePage); p.region != nil {
		p.mapped = true
	} else {
		p.region = make([]byte, n+hugePage)
	}
	start := alignOffset(p.region, hugePage)
	p.region = p.region[start : start+n : start+n]
	adviseHuge(p.region)
	p.state = make([]uint8, p.max)
	p.fresh = make([]int, p.max)
	for i := range p.fresh {
		p.fresh[i] = p.max - 1 - i
	}
}

// buf is buffer i of the region.
func (p *Pool) buf(i int) []byte {
	o := i * p.stride
	return p.region[o : o+p.size : o+p.size]
}

// index is which of the region's buffers b starts.
func (p *Pool) index(b []byte) (int, bool) {
	if p.region == nil || len(b) == 0 {
		return 0, false
	}
	o := uintptr(unsafe.Pointer(unsafe.SliceData(b))) - uintptr(unsafe.Pointer(unsafe.SliceData(p.region)))
	if o >= uintptr(len(p.region)) || o%uintptr(p.stride) != 0 {
		return 0, false
	}
	return int(o / uintptr(p.stride)), true
}

// expire gives back the memory of the buffers not in use, but for those
// Warm keeps, once none has been taken for idle; before that it waits
// for the rest of the time.
func (p *Pool) expire() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if d := p.idle - time.Since(p.last); d > 0 {
		if p.timer != nil {
			p.timer.Reset(d)
		}
		return
	}
	p.timer = nil
	p.releaseLocked()
}

// releaseLocked gives back the free buffers beyond keep (p.mu held): their
// pages go back to the system, and they become fresh. A region from the
// heap cannot give back part of itself: it is dropped whole once no buffer
// of it is in use and none is kept.
func (p *Pool) releaseLocked() {
	if len(p.free) <= p.keep {
		return
	}
	if !p.mapped {
		for _, s := range p.state {
			if s == stOut {
				return
			}
		}
		if p.keep == 0 {
			p.region, p.state, p.free, p.fresh = nil, nil, nil, nil
		}
		return
	}
	// Keep the lowest buffers (the ones handed out first); release runs
	// of adjacent buffers in one call.
	slices.Sort(p.free)
	rel := p.free[p.keep:]
	for j := 0; j < len(rel); {
		k := j + 1
		for k < len(rel) && rel[k] == rel[k-1]+1 {
			k++
		}
		o := rel[j] * p.stride
		release(p.region[o : o+(rel[k-1]-rel[j]+1)*p.stride])
		j = k
	}
	for _, i := range rel {
		p.state[i] = stFresh
		p.fresh = append(p.fresh, i)
	}
	p.free = p.free[:p.keep]
	slices.Sort(p.fresh)
	slices.Reverse(p.fresh) // lowest last: handed out first
}

// touch writes to every page of b, so the kernel backs it with memory now.
func touch(b []byte) {
	for i := 0; i < len(b); i += 4096 {
		b[i] = 0
	}
	if len(b) > 0 {
		b[len(b)-1] = 0
	}
}

// hugePage is the size of a transparent huge page on amd64 and arm64.
const hugePage = 2 << 20

// stride is a buffer's size rounded up to whole pages.
func stride(size int) int { return (size + 4095) &^ 4095 }

// aligned returns a page-aligned buffer of size bytes (capacity size) from
// the heap.
func aligned(size int) []byte {
	b := make([]byte, size+4095)
	o := alignOffset(b, 4096)
	return b[o : o+size : o+size]
}

// alignOffset is how far into b the first address aligned to a is.
func alignOffset(b []byte, a int) int {
	if len(b) == 0 {
		return 0
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return int((uintptr(a) - p%uintptr(a)) % uintptr(a))
}
