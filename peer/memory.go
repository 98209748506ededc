package peer

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/awp-tray/awp-tray/peer/presence"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// Memory bounds of authenticated sessions. Each is a named constant with
// its reason; together (MemoryBound) they cap what peers can make this
// node hold, whatever they send and however many keys they make.
// docs/protocol/choices.md "Bounds under attack".
const (
	// MaxSessions bounds the authenticated sessions at once, and
	// MaxStrangerSessions those of keys that are neither trusted nor
	// dialed by this node: throwaway keys cannot take the room of known
	// peers. One more is refused with not_allowed after its handshake.
	MaxSessions         = 256
	MaxStrangerSessions = 192

	// MaxLineBufs bounds the sessions holding a long-line buffer
	// (wire.ReadBufMax, 2 MiB, and a chunk decode buffer) at once, and
	// MaxStrangerLineBufs those of strangers. A line longer than the
	// reader's 64 KiB buffer waits for one (the peer is slowed by TCP).
	// Each session holding a partial 1 MiB line used to keep 2 MiB, and
	// sessions were unlimited (300 of them: +630 MB).
	MaxLineBufs         = 32
	MaxStrangerLineBufs = 16
	// LongLineTimeout: a session holding a long-line buffer must finish a
	// line within this long of its previous one; one that is idle gives
	// the buffer back then, one in the middle of a line is closed.
	LongLineTimeout = 60 * time.Second

	// maxErrQueue bounds the err lines waiting for a session's writer: a
	// peer that provokes errors and does not read them is closed past it
	// (its queue grew to 1 GB in 60 s).
	maxErrQueue = 256 << 10
	// maxPendingAcks bounds the threads with an ack waiting for a
	// session's writer; past it the peer is not reading and is closed (the
	// next session's resume tells it what is stored).
	maxPendingAcks = 4096
	// writeShared bounds the content lines queued for all sessions'
	// writers together beyond writeFloor each: a session whose peer reads
	// slowly keeps its own writeLimit only while the node is under this.
	writeShared = 64 << 20
	writeFloor  = 64 << 10
	// maxEarlyBytes bounds the lines kept between a peer's auth and its
	// resume (handshake.go; also at most 64 lines).
	maxEarlyBytes = 2 << 20
)

// Per-session memory a peer can make this node hold, beyond the shared
// budgets above: the reader's small buffer (wire: 64 KiB, doubled once to
// 128 KiB before a long line needs the budget), the writer's buffer (64
// KiB), err lines (maxErrQueue), pending acks (maxPendingAcks × ~128 B),
// content queued within writeFloor (beyond it, content counts in
// writeShared), goroutine stacks and bookkeeping (~64 KiB).
const perSession = 128<<10 + 64<<10 + maxErrQueue + maxPendingAcks*128 + writeFloor + 64<<10

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

// NodeMemoryBudget is the stated total MemoryBound stays under
// (TestMemoryBoundStated): what no peer, and no set of throwaway keys, can
// grow this node's memory past through sessions, lines, queues and
// presence (beyond the node's own working memory and the warm buffers).
// Handshakes before authentication and requests waiting for approval have
// their own bounds (handshake slots, MaxPendingTotal).
const NodeMemoryBudget = 512 << 20

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
