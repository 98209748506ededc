// Package bufpool keeps large buffers of one size for reuse across garbage
// collections.
//
// sync.Pool is emptied by the collector, and Go hands the memory of freed
// large buffers back to the OS, so a stream of 512 KiB chunk buffers
// allocated through sync.Pool keeps faulting fresh pages in (at 4 KiB a
// fault, a 256 MiB blob took ~65,000 faults on each side; in a VM each
// costs microseconds). A Pool instead keeps up to Max buffers until none
// has been taken for Idle, then lets them all go.
package bufpool

import (
	"sync"
	"time"
)

// Pool is a bounded free list of buffers of Size bytes. The zero value is
// not usable; use New.
type Pool struct {
	size int
	idle time.Duration
	free chan []byte

	mu    sync.Mutex
	used  bool        // a Get since the timer was armed
	timer *time.Timer // armed while the pool holds buffers
}

// New returns a pool of buffers of size bytes that keeps at most max of
// them, and drops what it keeps once no Get has come for idle.
func New(size, max int, idle time.Duration) *Pool {
	return &Pool{size: size, idle: idle, free: make(chan []byte, max)}
}

// Size is the length of the pool's buffers.
func (p *Pool) Size() int { return p.size }

// Get returns a buffer of Size bytes (its contents are whatever it held).
func (p *Pool) Get() []byte {
	p.mu.Lock()
	p.used = true
	p.mu.Unlock()
	select {
	case b := <-p.free:
		return b
	default:
		return make([]byte, p.size)
	}
}

// Put gives b back for reuse. A buffer that did not come from Get (another
// capacity) is left to the collector, as is one beyond the pool's bound.
func (p *Pool) Put(b []byte) {
	if cap(b) != p.size {
		return
	}
	select {
	case p.free <- b[:p.size]:
	default:
		return
	}
	p.mu.Lock()
	if p.timer == nil {
		p.used = false
		p.timer = time.AfterFunc(p.idle, p.expire)
	}
	p.mu.Unlock()
}

// Len is how many buffers the pool holds now.
func (p *Pool) Len() int { return len(p.free) }

// expire drops the kept buffers if none was taken since the timer was
// armed, or re-arms it.
func (p *Pool) expire() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.used {
		p.used = false
		p.timer.Reset(p.idle)
		return
	}
	p.timer = nil
	for {
		select {
		case <-p.free:
		default:
			return
		}
	}
}
