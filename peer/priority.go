package peer

import (
	"strings"
	"sync"
	"time"

	"github.com/awp-tray/awp-tray/peer/store"
)

// A blob is queued as one outbox entry per chunk, all at once: a 256 MiB
// blob is 512 entries, and a chat line queued after it in another thread
// used to wait for all of them (1.2 s at 220 MB/s). While the sender works
// through a blob's chunks it therefore looks past them, whenever new lines
// were queued, and sends at once every line that is not a chunk and whose
// thread has nothing unsent before it. Lines of one thread still go in
// outbox order (SPEC: a thread's lines in order); only lines of different
// threads change places, which the protocol allows.

// aheadScan bounds the outbox entries one look past the current batch
// reads (each wake-up while a blob's chunks are sent): 8 GiB of chunks, so
// a chat line behind a large blob is found, while a sender with a very
// long backlog does not read it all on every new line (the main loop
// reaches what lies further).
const aheadScan = 16384

// aheadLines are the outbox entries a session sent ahead of its cursor,
// which the main loop skips when it reaches them.
type aheadLines map[uint64]bool

// lookAhead reads up to aheadScan outbox entries after seq after and sends
// the lines that may overtake the entries not sent yet: rest (the batch's
// entries from the chunk being sent on) and every entry before them in the
// scan. A line may go when it is not a chunk, its thread has no unsent
// entry before it, and the main loop would send it as it is (sendable).
// It returns false when the session's write queue closed.
func (s *session) lookAhead(rest []store.Out, after uint64, ahead aheadLines, sendable func(store.Out) bool) bool {
	blocked := blockedBy(rest, ahead)
	for read := 0; read < aheadScan; {
		var outs []store.Out
		err := s.n.db.View(func(tx *store.Tx) error {
			var err error
			outs, err = tx.Outbox(s.peer, after, min(sendBatch, aheadScan-read))
			return err
		})
		if err != nil || len(outs) == 0 {
			return true
		}
		read += len(outs)
		after = outs[len(outs)-1].Seq
		for _, o := range pickAhead(outs, blocked, ahead, sendable) {
			if err := s.wq.push(o.Raw); err != nil {
				return false
			}
			ahead[o.Seq] = true
		}
	}
	return true
}

// blockedBy is the threads of the entries in rest not sent yet.
func blockedBy(rest []store.Out, ahead aheadLines) map[string]bool {
	blocked := map[string]bool{}
	for _, o := range rest {
		if !ahead[o.Seq] {
			blocked[o.Th] = true
		}
	}
	return blocked
}

// pickAhead returns the entries of outs (in outbox order, after those of
// the blocked threads) that may be sent now: not sent ahead already, not
// a chunk, sendable, and of a thread with no unsent entry before; every
// other unsent entry blocks its thread from here on.
func pickAhead(outs []store.Out, blocked map[string]bool, ahead aheadLines, sendable func(store.Out) bool) []store.Out {
	var pick []store.Out
	for _, o := range outs {
		if ahead[o.Seq] {
			continue
		}
		if blocked[o.Th] || o.Chunk != nil || !sendable(o) {
			blocked[o.Th] = true
			continue
		}
		pick = append(pick, o)
	}
	return pick
}

// sendableAhead is what lookAhead may send early: a line the main loop
// would send unchanged (not one the peer's resume already holds, one of a
// capability it lacks, or one gone from its thread).
func sendableAhead(o store.Out, seen map[string]string, hasMirror bool) bool {
	if id, ok := seen[o.Th]; ok && strings.ToUpper(o.ID) <= id {
		return false
	}
	return o.Raw != nil && (!o.Mirror || hasMirror)
}

// A chat line sent past a blob still waits behind the chunk lines already
// on their way: the session's write queue, both sockets' buffers and the
// receiver's in-flight budget held 38 MiB of them (115 ms at 330 MB/s),
// since the receiver, bound by its disk, is the slower end. So a sender
// keeps at most chunkWindow bytes of chunk lines the peer has not acked
// (it acks a chunk once stored durably, as any content line), and while
// it waits for room it still sends lines queued meanwhile.
const chunkWindow = 24 << 20

// chunkStall is how long a full window waits for an ack before it lets the
// sender go on regardless: a peer that acks chunks late (or not until a
// refused one is sent again) is sent to at full speed, as before the
// window, rather than not at all.
const chunkStall = 2 * time.Second

// chunkFlight counts a session's chunk bytes sent and not acked.
type chunkFlight struct {
	mu      sync.Mutex // guards the fields below
	threads map[string][]flightChunk
	bytes   int
	changed chan struct{} // one token when bytes went down
}

type flightChunk struct {
	id string // upper case, as acks compare
	n  int
}

func (f *chunkFlight) add(th, id string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.threads == nil {
		f.threads = map[string][]flightChunk{}
		f.changed = make(chan struct{}, 1)
	}
	f.threads[th] = append(f.threads[th], flightChunk{id: strings.ToUpper(id), n: n})
	f.bytes += n
}

// acked drops th's chunks up to id (acks are cumulative in a thread).
func (f *chunkFlight) acked(th, id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	cs := f.threads[th]
	if len(cs) == 0 {
		return
	}
	id = strings.ToUpper(id)
	k := 0
	for k < len(cs) && cs[k].id <= id {
		f.bytes -= cs[k].n
		k++
	}
	if k == 0 {
		return
	}
	if k == len(cs) {
		delete(f.threads, th)
	} else {
		f.threads[th] = cs[k:]
	}
	select {
	case f.changed <- struct{}{}:
	default:
	}
}

// reset forgets every chunk in flight (a stall, or a rewind sending them
// again).
func (f *chunkFlight) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	clear(f.threads)
	f.bytes = 0
}

func (f *chunkFlight) full() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bytes >= chunkWindow
}

// waitRoom waits until the session's chunks in flight are under
// chunkWindow, looking ahead (lookAhead with rest and after) whenever
// lines are queued meanwhile. It returns false when the session ends.
func (s *session) waitRoom(sig chan struct{}, rest []store.Out, after uint64, ahead aheadLines, sendable func(store.Out) bool) bool {
	if !s.flight.full() {
		return true
	}
	stall := time.NewTimer(chunkStall)
	defer stall.Stop()
	for s.flight.full() {
		select {
		case <-s.flight.changed:
			stall.Reset(chunkStall)
		case <-sig:
			if !s.lookAhead(rest, after, ahead, sendable) {
				return false
			}
			if s.rewindPending() {
				s.flight.reset()
			}
		case <-stall.C:
			s.flight.reset()
		case <-s.ctx.Done():
			return false
		}
	}
	return true
}

// rewindPending reports whether lines are due to be sent again.
func (s *session) rewindPending() bool {
	s.rewindMu.Lock()
	defer s.rewindMu.Unlock()
	return s.rewindDue
}
