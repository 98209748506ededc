package peer

// The bounded write queue in front of each session's writer.

import (
	"errors"
	"sync"
	"time"
)

// writeQueue is the bounded queue in front of a session's writer. Content
// waits while more than limit bytes are queued, or more than writeFloor
// while the node's shared budget (writeShared) is used up; err lines
// (at most maxErrQueue bytes) and the final line jump ahead.
type writeQueue struct {
	mu        sync.Mutex // guards the fields below
	cond      sync.Cond
	items     []qline
	prio      [][]byte
	prioBytes int
	bytes     int
	limit     int
	shared    *sharedQueue
	woken     bool
	final     bool
	closed    bool
}

func (q *writeQueue) init(limit int, shared *sharedQueue) {
	q.limit = limit
	q.shared = shared
	if q.shared == nil {
		q.shared = &sharedQueue{}
	}
	q.cond.L = &q.mu
}

// roomLocked reports whether n more content bytes may be queued now, and
// counts them in the shared budget if so.
func (q *writeQueue) roomLocked(n int) bool {
	if q.bytes >= q.limit {
		return false
	}
	if q.bytes+n <= writeFloor {
		q.shared.add(n)
		return true
	}
	return q.shared.tryAdd(n)
}

var errQueueClosed = errors.New("peer: session closed")

// qline is a queued content line; a pooled one goes back to lineBufs once
// written.
type qline struct {
	b      []byte
	pooled bool
}

// push queues a content line, waiting while the queue is full.
func (q *writeQueue) push(b []byte) error {
	return q.pushLine(qline{b: b})
}

// pushLine is push for a line that may be pooled.
func (q *writeQueue) pushLine(l qline) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for !q.closed && !q.roomLocked(len(l.b)) {
		if q.bytes >= q.limit {
			q.cond.Wait() // the writer takes this queue's lines
			continue
		}
		// The node's shared budget is used up: wait for any writer.
		freed := q.shared.freed()
		q.mu.Unlock()
		select {
		case <-freed:
		case <-time.After(sharedRecheck): // and look at closed again
		}
		q.mu.Lock()
	}
	if q.closed {
		if l.pooled {
			putLineBuf(l.b)
		}
		return errQueueClosed
	}
	q.items = append(q.items, l)
	q.bytes += len(l.b)
	q.cond.Broadcast()
	return nil
}

// tryPush queues a line unless the queue is full (presence: best effort).
func (q *writeQueue) tryPush(b []byte) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed || !q.roomLocked(len(b)) {
		return false
	}
	q.items = append(q.items, qline{b: b})
	q.bytes += len(b)
	q.cond.Broadcast()
	return true
}

// pushPrio queues an err line ahead of content; false when maxErrQueue
// bytes of them wait already (the peer does not read: close it).
func (q *writeQueue) pushPrio(b []byte) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return true
	}
	if q.prioBytes+len(b) > maxErrQueue {
		return false
	}
	q.prio = append(q.prio, b)
	q.prioBytes += len(b)
	q.cond.Broadcast()
	return true
}

// pushFinal queues b ahead of everything and closes the queue after it.
func (q *writeQueue) pushFinal(b []byte) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.prio = append(q.prio, b)
	putLines(q.items)
	q.shared.sub(q.bytes)
	q.items, q.bytes = nil, 0
	q.final = true
	q.closed = true
	q.cond.Broadcast()
}

func (q *writeQueue) wake() {
	q.mu.Lock()
	q.woken = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

func (q *writeQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

// drop closes the queue and gives the pooled buffers of the lines still in
// it back (the writer's last act: nothing will write them).
func (q *writeQueue) drop() {
	q.mu.Lock()
	q.closed = true
	items := q.items
	q.shared.sub(q.bytes)
	q.items, q.bytes = nil, 0
	q.cond.Broadcast()
	q.mu.Unlock()
	putLines(items)
}

// putLines gives back the pooled buffers of lines written or dropped.
func putLines(items []qline) {
	for _, it := range items {
		if it.pooled {
			putLineBuf(it.b)
		}
	}
}

// take waits for work and returns all of it.
func (q *writeQueue) take() (prio [][]byte, items []qline, final, closed bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && len(q.prio) == 0 && !q.woken && !q.closed {
		q.cond.Wait()
	}
	prio, items, final, closed = q.prio, q.items, q.final, q.closed
	q.shared.sub(q.bytes)
	q.prio, q.items, q.bytes, q.woken, q.prioBytes = nil, nil, 0, false, 0
	q.final = false
	q.cond.Broadcast()
	return
}
