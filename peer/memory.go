package peer

import (
	"context"
	"errors"
	"sync"

	"github.com/awp-tray/awp-tray/peer/presence"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// lineBufCost is what one long-line slot holds: the reader's large buffer
// and the chunk buffer the reader decodes into.
var lineBufCost = wire.ReadBufMax + chunkBufSize

// MemoryBound returns the most memory, in bytes, that peers can make this
// node hold in sessions, received lines, write queues and presence,
// whatever they send: sessions × per-session, the long-line slots, the
// in-flight budget of received lines (maxInflight), the shared write
// queues, and the presence table's budget. NodeMemoryBudget states it.
func MemoryBound() int64 {
	return int64(MaxSessions)*perSession +
		int64(MaxLineBufs)*int64(lineBufCost) +
		maxInflight +
		writeShared +
		presence.MaxTableBytes
}

// budget is a counting semaphore of bytes. One holder may exceed the limit
// alone, so a single large line always gets through. Waiters are served in
// the order they came (a session whose lines were just committed queues
// behind the others again), so one peer's flood cannot keep another
// peer's reader waiting for the budget.
type budget struct {
	mu      sync.Mutex // guards the fields below
	used    int
	max     int
	waiters []*budgetWaiter
}

type budgetWaiter struct {
	n     int
	ready chan struct{}
}

func (b *budget) acquire(n int) {
	b.mu.Lock()
	if len(b.waiters) == 0 && (b.used == 0 || b.used+n <= b.max) {
		b.used += n
		b.mu.Unlock()
		return
	}
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	b.waiters = append(b.waiters, w)
	b.mu.Unlock()
	<-w.ready
}

func (b *budget) release(n int) {
	b.mu.Lock()
	b.used -= n
	for len(b.waiters) > 0 {
		w := b.waiters[0]
		if b.used > 0 && b.used+w.n > b.max {
			break
		}
		b.used += w.n
		b.waiters[0] = nil
		b.waiters = b.waiters[1:]
		close(w.ready)
	}
	if len(b.waiters) == 0 {
		b.waiters = nil
	}
	b.mu.Unlock()
}

// lineBufSlots lends the long-line slots (MaxLineBufs).
type lineBufSlots struct {
	mu        sync.Mutex // guards the fields below
	used      int
	strangers int
	waiting   int
	free      chan struct{} // closed when a slot is given back
}

// get waits for a slot for a session of tier; false when ctx ends first.
func (l *lineBufSlots) get(ctx context.Context, tier int) bool {
	for {
		l.mu.Lock()
		if l.used < MaxLineBufs && (tier == tierKnown || l.strangers < MaxStrangerLineBufs) {
			l.used++
			if tier != tierKnown {
				l.strangers++
			}
			l.mu.Unlock()
			return true
		}
		if l.free == nil {
			l.free = make(chan struct{})
		}
		ch := l.free
		l.waiting++
		l.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
		}
		l.mu.Lock()
		l.waiting--
		l.mu.Unlock()
		if ctx.Err() != nil {
			return false
		}
	}
}

func (l *lineBufSlots) put(tier int) {
	l.mu.Lock()
	l.used--
	if tier != tierKnown {
		l.strangers--
	}
	if l.free != nil {
		close(l.free)
		l.free = nil
	}
	l.mu.Unlock()
}

// contended reports whether a session waits for a slot.
func (l *lineBufSlots) contended() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.waiting > 0
}

// inUse reports the slots lent (tests).
func (l *lineBufSlots) inUse() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.used
}

// sharedQueue counts the content bytes queued for all sessions' writers
// (writeShared).
type sharedQueue struct {
	mu   sync.Mutex // guards the fields below
	used int
	free chan struct{} // closed when bytes are taken
}

// tryAdd counts n more bytes if the shared budget has room.
func (q *sharedQueue) tryAdd(n int) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.used+n > writeShared {
		return false
	}
	q.used += n
	return true
}

// add counts n bytes whatever the budget (a session within its floor).
func (q *sharedQueue) add(n int) {
	q.mu.Lock()
	q.used += n
	q.mu.Unlock()
}

func (q *sharedQueue) sub(n int) {
	if n == 0 {
		return
	}
	q.mu.Lock()
	q.used -= n
	if q.free != nil {
		close(q.free)
		q.free = nil
	}
	q.mu.Unlock()
}

// freed returns a channel closed when bytes are next taken.
func (q *sharedQueue) freed() <-chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.free == nil {
		q.free = make(chan struct{})
	}
	return q.free
}

// Errors that close a session whose peer does not read.
var (
	errErrQueueFull = errors.New("peer: the peer does not read its err lines")
	errAcksFull     = errors.New("peer: the peer does not read its acks")
	errTooMany      = errors.New("peer: too many sessions")
	errLongLine     = errors.New("peer: a line took longer than LongLineTimeout")
)
