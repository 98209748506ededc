package peer

import (
	"fmt"
	"strings"
	"time"

	"github.com/awp-tray/awp-tray/internal/bufpool"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// sendLoop walks the peer's outbox in order: first the replay the peer's
// resume asks for, then whatever is queued later, so nothing new overtakes
// the replay and per-thread order holds.
// One function on purpose: the walk's state (the cursor, the threads the
// resume acked, the open blob files and the read-ahead buffer) lives
// across iterations and is released together when the session ends;
// split, it would travel through every call.
func (s *session) sendLoop() {
	n := s.n
	// Lines received before the resume (tolerated) are handled first.
	var rx rxBlobs
	for _, f := range s.early {
		s.dispatch(f, nil, &rx)
	}
	s.early = nil
	seen := map[string]string{}
	for th, id := range s.resume.Seen {
		seen[th] = strings.ToUpper(id)
	}
	hasBlob := s.hello.HasCap("blob")
	hasMirror := s.hello.HasCap("mirror")
	sig := n.outSignal(s.peer)
	files := map[string]*store.BlobReader{}
	var data readAhead // chunk bytes read from a blob file, reused
	defer func() {
		data.release() // waits for a read in the background first
		for _, f := range files {
			f.Close()
		}
	}()
	acked := map[string]bool{} // threads whose resume was taken as an ack
	ahead := aheadLines{}      // lines sent past a blob's chunks (priority.go)
	sendable := func(o store.Out) bool { return sendableAhead(o, seen, hasMirror) }
	var cursor uint64
	for {
		if seq := s.takeRewind(); seq > 0 && seq-1 < cursor {
			// Lines the peer refused (not stored): from the first one on,
			// everything goes again (the peer dedupes what it has).
			cursor = seq - 1
			clear(ahead)
			s.flight.reset()
		}
		var outs []store.Out
		err := n.db.View(func(tx *store.Tx) error {
			var err error
			outs, err = tx.Outbox(s.peer, cursor, sendBatch)
			return err
		})
		if err != nil {
			n.log.Error("outbox read", "peer", s.peer.Short(), "err", err)
		}
		if len(outs) == 0 {
			// Nothing left to send: the read-ahead windows and blob files
			// go back (a node that sent a blob an hour ago holds nothing
			// for it now).
			data.release()
			for k, f := range files {
				f.Close()
				delete(files, k)
			}
			select {
			case <-sig:
				continue
			case <-s.ctx.Done():
				return
			}
		}
		var drop []store.Out
		for i, o := range outs {
			cursor = o.Seq
			if ahead[o.Seq] {
				delete(ahead, o.Seq) // sent already, past a blob
				continue
			}
			if id, ok := seen[o.Th]; ok && strings.ToUpper(o.ID) <= id {
				// The peer holds it durably (docs/protocol/acks-and-resume.md):
				// its resume acks the thread up to there, as the ack that never
				// came would have.
				if !acked[o.Th] {
					acked[o.Th] = true
					s.onAck(wire.NewAck(o.Th, s.resume.Seen[o.Th]))
				}
				continue
			}
			if (o.Chunk != nil && !hasBlob) || (o.Mirror && !hasMirror) {
				drop = append(drop, o)
				continue
			}
			if o.Raw == nil && o.Chunk == nil {
				n.log.Error("queued line no longer in its thread; dropped", "peer", s.peer.Short(), "th", o.Th, "id", o.ID)
				drop = append(drop, o)
				continue
			}
			if o.Chunk != nil {
				select {
				case <-sig: // lines queued since: any to send before this blob's chunks?
					if !s.lookAhead(outs[i:], outs[len(outs)-1].Seq, ahead, sendable) {
						return
					}
				default:
				}
				if !s.waitRoom(sig, outs[i:], outs[len(outs)-1].Seq, ahead, sendable) {
					return
				}
				lb := getLineBuf()
				var b []byte
				b, err = n.chunkLine(files, o, lb, &data)
				if err != nil {
					putLineBuf(lb)
					n.log.Error("blob chunk unreadable; dropped", "peer", s.peer.Short(), "ref", o.Chunk.Ref, "err", err)
					drop = append(drop, o)
					continue
				}
				n := len(b)
				if err := s.wq.pushLine(qline{b: b, pooled: true}); err != nil {
					return
				}
				s.flight.add(o.Th, o.ID, n)
				continue
			}
			if err := s.wq.push(o.Raw); err != nil {
				return
			}
		}
		if len(drop) > 0 {
			peer := s.peer
			n.commit.async("outbox drop", func(tx *store.Tx) error {
				for _, o := range drop {
					if err := tx.DropOutbox(peer, o); err != nil {
						return err
					}
				}
				return nil
			})
		}
	}
}

// onRefused handles an err answering a line this node sent: rate_limited and
// internal say the line was not stored (docs/protocol/framing.md), so the
// sender goes back to it after retry_ms, in this session; the next handshake's
// resume would do it too, but a session may last for days.
func (s *session) onRefused(e *wire.Err) {
	if e.Re == "" || e.Th == "" || e.Code != wire.CodeRateLimited && e.Code != wire.CodeInternal {
		return
	}
	seq, ok := s.n.db.OutboxSeqIn(s.peer, e.Th, e.Re)
	if !ok {
		return // acked since, or not a line of ours
	}
	delay := retryDefault
	if e.RetryMS > 0 {
		delay = min(max(time.Duration(e.RetryMS)*time.Millisecond, retryMin), retryMax)
	}
	s.rewindMu.Lock()
	defer s.rewindMu.Unlock()
	if s.rewindSeq == 0 || seq < s.rewindSeq {
		s.rewindSeq = seq
	}
	if !s.rewindSet {
		s.rewindSet = true
		time.AfterFunc(delay, func() {
			s.rewindMu.Lock()
			s.rewindDue, s.rewindSet = true, false
			s.rewindMu.Unlock()
			s.n.wakeSender(s.peer)
		})
	}
}

// takeRewind returns the outbox seq to send again from once its delay is
// over (0: none).
func (s *session) takeRewind() uint64 {
	s.rewindMu.Lock()
	defer s.rewindMu.Unlock()
	if !s.rewindDue {
		return 0
	}
	seq := s.rewindSeq
	s.rewindSeq, s.rewindDue = 0, false
	return seq
}

// lineBufs holds buffers for chunk lines: the sender builds a line in one,
// the session's writer returns it once the line is written, so sending a
// blob does not allocate (and clear, and fault in) fresh megabytes for every
// chunk. A chunk line is under wire.MaxLine, so it never outgrows one; it
// keeps what a session's write queue holds, across collections.
var lineBufs = bufpool.New(wire.MaxLine, maxLineBufs, bufIdle)

func getLineBuf() []byte { return lineBufs.Get()[:0] }

// putLineBuf returns b to the pool when it is one of its buffers.
func putLineBuf(b []byte) { lineBufs.Put(b) }

// chunkLine builds a chunk line from its blob file at send time, appending
// it to line; data holds bytes read ahead from the file.
func (n *Node) chunkLine(files map[string]*store.BlobReader, o store.Out, line []byte, data *readAhead) ([]byte, error) {
	c := o.Chunk
	if c.Len < 0 || c.Len > wire.MaxChunkData {
		return nil, fmt.Errorf("chunk of %d bytes", c.Len)
	}
	f := files[c.File]
	if f == nil {
		var err error
		f, err = store.OpenBlobReader(n.db.Path(c.File))
		if err != nil {
			return nil, err
		}
		if len(files) > maxSendFiles {
			data.wait() // its reader may be one of these
			for k, old := range files {
				old.Close()
				delete(files, k)
			}
		}
		files[c.File] = f
	}
	d, err := data.get(f, c.File, c.Off, int(c.Len))
	if err != nil {
		return nil, fmt.Errorf("read %s at %d: %w", c.File, c.Off, err)
	}
	line = wire.AppendChunk(line, o.ID, c.TS, o.Th, c.Ref, c.Off, d, c.End)
	if len(line) > wire.MaxLine {
		return nil, fmt.Errorf("chunk line of %d bytes: %w", len(line), wire.ErrTooLong)
	}
	return line, nil
}

var readAheadBufs = bufpool.New(readAheadSize, readAheadKept, bufIdle)

// readAhead holds the bytes last read from a blob file, and reads the
// window after it in the background while the session encodes and sends
// these: a session's chunks of one blob go out in order, so most are in the
// current window, and the next is there when they are used up.
type readAhead struct {
	cur  window
	next *window // a read of the following window, in flight or done
	used int     // background reads that were used (for tests)
}

// window is bytes [off, off+n) of file, read into buf; a background read
// sets err and closes done.
type window struct {
	buf  []byte
	file string
	f    *store.BlobReader
	off  int64
	n    int
	err  error
	done chan struct{}
}

func (w *window) has(file string, off int64, n int) bool {
	return w.file == file && off >= w.off && off+int64(n) <= w.off+int64(w.n)
}

// get returns n bytes of file (read through f) at off.
func (ra *readAhead) get(f *store.BlobReader, file string, off int64, n int) ([]byte, error) {
	if !ra.cur.has(file, off, n) {
		if nx := ra.next; nx != nil && nx.file == file && nx.off == off && ra.take(nx, n) {
			ra.used++
		} else {
			ra.wait()
			if err := ra.sync(f, file, off, n); err != nil {
				return nil, err
			}
		}
		ra.prefetch()
	}
	i := int(off - ra.cur.off)
	return ra.cur.buf[i : i+n], nil
}

// take waits for the background read nx and makes it the current window
// if it holds the n bytes wanted; else its buffer is only kept for the
// read that follows.
func (ra *readAhead) take(nx *window, n int) bool {
	<-nx.done
	ra.next = nil
	readAheadBufs.Put(ra.cur.buf)
	ra.cur = *nx
	if nx.err != nil || nx.n < n {
		ra.cur.file = ""
		return false
	}
	return true
}

// sync reads the window at off in the foreground.
func (ra *readAhead) sync(f *store.BlobReader, file string, off int64, n int) error {
	if ra.cur.buf == nil {
		ra.cur.buf = readAheadBufs.Get()
	}
	ra.cur.file = ""
	m, err := f.ReadAt(ra.cur.buf, off, n)
	if err != nil {
		return err
	}
	ra.cur.file, ra.cur.f, ra.cur.off, ra.cur.n = file, f, off, m
	return nil
}

// prefetch starts reading the window after the current one, unless the
// current one ended the file.
func (ra *readAhead) prefetch() {
	c := &ra.cur
	if c.file == "" || c.n < len(c.buf) {
		return
	}
	nx := &window{buf: readAheadBufs.Get(), file: c.file, f: c.f, off: c.off + int64(c.n), done: make(chan struct{})}
	ra.next = nx
	go func() {
		defer close(nx.done)
		// Whatever is there, up to a window (a short read at the end is
		// fine; get checks that the chunk it wants is inside).
		nx.n, nx.err = nx.f.ReadAt(nx.buf, nx.off, 1)
	}()
}

// wait lets a background read finish and drops it (before its file is
// closed or another read uses the same reader).
func (ra *readAhead) wait() {
	if nx := ra.next; nx != nil {
		<-nx.done
		readAheadBufs.Put(nx.buf)
		ra.next = nil
	}
}

// release waits for a background read and gives the buffers back.
func (ra *readAhead) release() {
	ra.wait()
	readAheadBufs.Put(ra.cur.buf)
	ra.cur = window{}
}
