package peer

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"github.com/awp-tray/awp-tray/internal/bufpool"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// MaxBlobSize is the largest blob this node accepts (too_large above it).
const MaxBlobSize = 64 << 30

// maxInflight bounds the bytes of received lines waiting to be committed.
const maxInflight = 24 << 20

// opOverhead is what a received line costs in the in-flight budget beyond
// its bytes (its op, job and decoded frame), so a flood of tiny lines is
// bounded as well as one of large ones.
const opOverhead = 512

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

// readBufs holds session readers' large buffers (wire.Reader.SetGrow):
// a session that receives a blob reads its chunk lines into one.
var readBufs = bufpool.New(wire.ReadBufMax, 8, bufIdle)

func (s *session) readLoop() {
	var buf []byte // decode room for the next chunk's data
	defer func() {
		if b := s.r.TakeBuffer(); b != nil {
			s.putLine(b)
		}
		putChunkBuf(buf) // taken for a line that was not a chunk, or none came
	}()
	hs := chunkWorker{n: s.n}
	defer hs.stop()
	var rx rxBlobs
	for {
		raw, err := s.r.ReadLineUnchecked() // DecodeTemp checks UTF-8
		if err != nil && s.bigLine && errors.Is(err, os.ErrDeadlineExceeded) {
			// LongLineTimeout: idle, the buffer goes back; in the middle
			// of a line, the line took too long.
			if b := s.r.Shrink(); b != nil {
				s.putLine(b)
				putChunkBuf(buf)
				buf = nil
				_ = s.c.SetReadDeadline(time.Time{})
				continue
			}
			err = errLongLine
		}
		if err != nil {
			var de *wire.DecodeError
			switch {
			case errors.Is(err, wire.ErrTooLong):
				s.fatal(wire.CodeBadFrame, "line over 1 MiB", "")
			case errors.As(err, &de):
				s.fatal(de.Code, de.Msg, "")
			case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed):
				s.close(nil)
			default:
				s.close(err)
			}
			return
		}
		s.lastRecv.Store(time.Now().UnixNano())
		if buf == nil && len(raw) > 64<<10 {
			buf = getChunkBuf()
		}
		f, err := wire.DecodeTemp(raw, buf)
		if c, ok := f.(*wire.Chunk); ok && sameBuf(c.Data, buf) {
			buf = nil // the chunk owns it now (returned after its commit)
		}
		if err != nil {
			var de *wire.DecodeError
			if errors.As(err, &de) && de.Code != wire.CodeBadFrame {
				s.sendErr(wire.CodeBadRequest, de.Msg, de.ID, de.Th)
				continue
			}
			msg := err.Error()
			if de != nil {
				msg = de.Msg
			}
			s.fatal(wire.CodeBadFrame, msg, "")
			return
		}
		if !s.handle(f, &hs, &rx) {
			return
		}
		if s.bigLine {
			s.idleLine(len(raw), &buf)
		}
	}
}

// idleLine runs after each line while the reader holds a long-line
// buffer: with nothing more buffered, the buffer goes back when another
// session waits for one or the line was short (the long ones are over);
// otherwise the next line has LongLineTimeout from now.
func (s *session) idleLine(n int, buf *[]byte) {
	if s.r.Buffered() == 0 && (n < 64<<10 || s.n.lineBufs.contended()) {
		if b := s.r.Shrink(); b != nil {
			s.putLine(b)
			putChunkBuf(*buf)
			*buf = nil
			_ = s.c.SetReadDeadline(time.Time{})
			return
		}
	}
	_ = s.c.SetReadDeadline(time.Now().Add(LongLineTimeout))
}

// handle acts on one received frame; false ends the read loop. hs writes
// and hashes chunks ahead of their commit (nil: chunks are written at once
// and the commit loop hashes them); rx is what the caller's loop knows of
// the blobs being received.
func (s *session) handle(f wire.Frame, hs *chunkWorker, rx *rxBlobs) bool {
	n := s.n
	switch f := f.(type) {
	case *wire.Hello, *wire.Auth, *wire.Resume:
		n.log.Debug("ignoring repeated handshake line", "peer", s.peer.Short(), "t", f.Header().T)
	case *wire.Ack:
		s.onAck(f)
	case *wire.Err:
		n.log.Info("peer sent err", "peer", s.peer.Short(), "code", f.Code, "msg", f.Msg, "re", f.Re)
		n.publish(Event{Type: "err", Peer: s.peerS, Th: f.Th, Of: f.Re, Err: f.Code + ": " + f.Msg})
		n.onRemoteErr(s, f)
		s.onRefused(f)
		if wire.FatalCode(f.Code) {
			s.close(f)
			return false
		}
	case *wire.Presence:
		n.onPresence(s, f)
	case *wire.Unknown:
		// Unknown types are ignored (SPEC §2), but for this node's own
		// extensions.
		switch f.T {
		case typeListen:
			n.onListen(s, f.Raw())
		case TypeKeepalive:
			n.onKeepalive(s, f.Raw())
		}
	default:
		if wire.IsContent(f.Header().T) {
			return s.receive(f, hs, rx)
		}
	}
	return true
}

// inResult is what storing one inbound content line produced.
type inResult struct {
	dup     bool
	of      string // id to ack
	line    *LineInfo
	stored  storedLine // an own thread's line, for the event made after the commit
	thread  bool       // thread metadata changed
	blob    *BlobInfo
	badCode string
	badMsg  string
	after   func()   // work to start after the commit (profile requests…)
	refused *refusal // not stored: answered with this err, not acked
	remove  []string // blob files to delete after the commit (corrupt blobs)
}

// storedLine is an inbound line stored in one of this node's threads.
type storedLine struct {
	seq uint64
	raw []byte // the line as received; valid until the job is released
	at  time.Time
}

// receive hands a content line to the commit loop; the ack follows the commit.
func (s *session) receive(f wire.Frame, hs *chunkWorker, rx *rxBlobs) bool {
	n := s.n
	j := &inJob{s: s, f: f}
	o := &j.op
	o.job = j
	o.src = s
	c, isChunk := f.(*wire.Chunk)
	if isChunk {
		o.size = len(c.Data)
	} else {
		o.size = len(f.Header().Raw())
	}
	// Bound the bytes held for the commit loop (backpressure on the reader).
	// A chunk whose hash is computed ahead gives its share back as soon as
	// its bytes are written and hashed (the worker returns its buffer then);
	// anything else when its commit is done (inJob.release).
	n.inflight.acquire(o.size + opOverhead)
	if isChunk {
		// Blob bytes go to their file before the commit (on hs, or here);
		// the commit loop only fsyncs the file before the batch commits.
		j.data = c.Data
		file, rec, looked := rx.chunkFile(n, s.peer, c)
		if file != "" && !n.disk.room(s.tier, int64(len(c.Data))) {
			// No room on the disk for this peer's bytes: not written,
			// answered rate_limited at its commit (in order, so the
			// lines after it in its thread wait too), and the reader
			// forgets the blob's chain (its bytes did not go on).
			file, j.refuse = "", errDiskLow
			rx.forget(c.Ref)
		}
		j.written = file != ""
		if file != "" && hs != nil {
			j.hash = hs.submit(file, c, rec, looked)
			o.written, o.hashed = j.hash.written, j.hash.hashed
		} else if file != "" {
			if err := n.db.WriteBlobAt(file, c.Off, c.Data); err != nil {
				h := f.Header()
				n.log.Error("blob write", "peer", s.peer.Short(), "err", err)
				s.sendErr(wire.CodeInternal, "could not store the chunk", h.ID, h.Th)
				j.release()
				return true
			}
		}
		o.sync = file
	}
	if err := n.commit.submit(o); err != nil {
		j.release()
		s.close(err)
		return false
	}
	return true
}

// inJob stores one received content line in the commit loop.
type inJob struct {
	op
	s       *session
	f       wire.Frame
	hash    *hashJob // a chunk's write and hash on the session's chunk worker
	data    []byte   // a pooled chunk buffer to return after the commit
	written bool     // a chunk's bytes went to its file before the commit
	refuse  *refusal // refused before its commit (no room on the disk)
	res     inResult
}

func (j *inJob) run(tx *store.Tx) error {
	j.res = inResult{}
	h := j.f.Header()
	// The thread's gate changes here, in commit order, so the lines of one
	// batch see each other's (a batch that fails sets it again: finish).
	if r := j.s.gated(h); r != nil {
		j.res.refused = r
		return nil
	}
	if j.refuse != nil {
		j.res.refused = j.refuse
		j.s.gate(h)
		return nil
	}
	defer func() {
		switch r := j.res.refused; {
		case r == nil:
			j.s.ungate(h)
		case r.code == wire.CodeRateLimited:
			j.s.gate(h)
		}
	}()
	var pre *store.ChunkHash
	gone := false
	if j.hash != nil {
		if j.hash.err != nil {
			return j.hash.err
		}
		pre, gone = &j.hash.res, j.hash.released
	}
	return j.s.n.storeInbound(tx, j.s, j.f, pre, gone, j.written, &j.res)
}

func (j *inJob) finish(err error) {
	s, n, h := j.s, j.s.n, j.f.Header()
	defer j.release()
	if err != nil {
		n.log.Error("store inbound line", "peer", s.peer.Short(), "id", h.ID, "err", err)
		s.gate(h)
		s.sendErrRetry(wire.CodeInternal, "could not store the line", h.ID, h.Th, 0)
		n.diskFailed(err)
		return
	}
	res := &j.res
	if r := res.refused; r != nil {
		s.sendErrRetry(r.code, r.msg, h.ID, h.Th, r.retry)
		return
	}
	for _, f := range res.remove {
		if err := n.db.RemoveBlobFile(f); err != nil {
			n.log.Warn("remove blob file", "err", err)
		}
	}
	if res.badCode != "" {
		s.sendErr(res.badCode, res.badMsg, h.ID, h.Th)
	}
	if res.of != "" {
		s.queueAck(h.Th, res.of)
	}
	n.afterInbound(s, h.Th, res)
}

// release gives back what the line holds: its share of the in-flight
// budget and a chunk's pooled buffer, once the chunk worker is done with
// the buffer (at once after a commit, which waited for it), unless the
// worker gave both back already (see hashJob).
func (j *inJob) release() {
	if j.hash != nil {
		<-j.hash.written
		<-j.hash.hashed
		if j.hash.released {
			j.data = nil
			j.s.n.inflight.release(opOverhead)
			return
		}
	}
	j.s.n.inflight.release(j.size + opOverhead)
	putChunkBuf(j.data) // nil or not a pool buffer: ignored
	j.data = nil
}

func (n *Node) afterInbound(s *session, th string, res *inResult) {
	if st := res.stored; st.seq != 0 && res.line == nil {
		if !n.hasSubscribers() {
			n.presenceChanged() // what publish would do (nobody listens)
		} else {
			res.line = &LineInfo{Dir: "in", From: s.peerS, Line: json.RawMessage(st.raw), Seq: st.seq, Stored: st.at.UTC().Format(wire.TimeFormat)}
		}
	}
	if res.line != nil {
		n.publish(Event{Type: EventLine, Peer: s.peerS, PeerName: s.hello.Name, Th: th, Line: res.line})
	}
	if res.blob != nil {
		n.publish(Event{Type: EventBlob, Peer: s.peerS, Th: res.blob.Th, Blob: res.blob})
	}
	if res.after != nil {
		res.after()
	}
}

// chunkFile returns the blob file a chunk's bytes are to be written to
// before the commit ("" for none), and the blob's record as read now (nil
// if none yet). Bytes of a blob that is already complete or corrupt are
// not written, so a peer cannot change a finished blob, nor bytes the
// record already holds in order.
func (n *Node) chunkFile(peer key.PublicKey, c *wire.Chunk) (string, *store.Blob) {
	var b *store.Blob
	end := c.Off + int64(len(c.Data))
	var held bool
	_ = n.db.View(func(tx *store.Tx) error {
		if b, _ = tx.Blob("in", peer, c.Ref); b != nil {
			held = end > c.Off && tx.BlobHolds(b, c.Off, end)
		}
		return nil
	})
	if b != nil && (b.Complete || b.Corrupt || end > b.Size || held) {
		return "", b // storeInbound answers these
	}
	if b == nil && end > MaxBlobSize {
		return "", nil
	}
	// With no record yet, the msg announcing the blob is in this same batch:
	// the file name depends only on (peer, ref).
	return store.InBlobFile(peer, c.Ref), b
}

// rxBlobs is what one reader knows of the blobs whose chunks it is
// receiving, by ref: chunks come in order of off (SPEC §9), so after a
// blob's first chunk the reader knows where the next ones go without a
// look in the store, and which bytes are already on their way to the
// file: a chunk that repeats them is not written (one with other bytes
// would change the file behind the hash already taken; the commit answers
// the repeat). It holds at most maxRxBlobs blobs; a blob it forgot is
// looked up again, and a repeat it cannot see is caught at the commit
// (storeChunk: the file then decides the blob's sum).
type rxBlobs struct {
	m    map[string]*rxBlob
	tick uint64 // counts chunks, to find the blob least recently heard of
}

type rxBlob struct {
	file      string
	size      int64
	committed int64 // bytes the record held in order when it was read
	end       int64 // where the chunks handed on in order end
	used      uint64
}

const maxRxBlobs = 16

// forget drops what rx knows of blob ref.
func (rx *rxBlobs) forget(ref string) { delete(rx.m, ref) }

// chunkFile is Node.chunkFile with what rx knows; looked says rec is the
// record as read now (false: rec is nil and nothing was read).
func (rx *rxBlobs) chunkFile(n *Node, peer key.PublicKey, c *wire.Chunk) (file string, rec *store.Blob, looked bool) {
	if rx.m == nil {
		rx.m = map[string]*rxBlob{}
	}
	rx.tick++
	end := c.Off + int64(len(c.Data))
	e := rx.m[c.Ref]
	switch {
	case e != nil && c.Off == e.end && end <= e.size:
		// The next chunk in order.
		e.end, e.used = end, rx.tick
		if end <= e.committed {
			return "", nil, false
		}
		return e.file, nil, false
	case e != nil && end <= e.end:
		// Bytes already on their way.
		e.used = rx.tick
		return "", nil, false
	}
	file, rec = n.chunkFile(peer, c)
	// Followed from here on: a blob's bytes from 0 to this chunk's end,
	// as far as they are held (the record's, in order) or on their way
	// (this reader's chain, or this chunk).
	follows := e != nil && c.Off == e.end
	starts := rec == nil && c.Off == 0 || rec != nil && !rec.Unordered && c.Off <= rec.Received
	if file == "" || (rec != nil && rec.Unordered) || !(follows || starts) {
		return file, rec, true
	}
	var size, committed int64 // a record not committed yet: size unknown, so the next chunk looks again
	if rec != nil {
		size, committed = rec.Size, rec.Received
	}
	if e == nil && len(rx.m) >= maxRxBlobs {
		var old string
		for ref, x := range rx.m {
			if old == "" || x.used < rx.m[old].used {
				old = ref
			}
		}
		delete(rx.m, old)
	}
	rx.m[c.Ref] = &rxBlob{file: file, size: size, committed: committed, end: end, used: rx.tick}
	return file, rec, true
}

// storeInbound stores one content line from s's peer inside tx; pre is a
// chunk's hash computed ahead, if any, and gone says the chunk's buffer is
// no longer its own (see storeChunk).
func (n *Node) storeInbound(tx *store.Tx, s *session, f wire.Frame, pre *store.ChunkHash, gone, written bool, res *inResult) error {
	h := f.Header()
	peer := s.peer
	if tx.Received(peer, h.Th, h.ID) {
		res.dup = true
		res.of = tx.LastSeen(peer, h.Th)
		if c, ok := f.(*wire.Chunk); ok && written {
			return n.dupChunk(tx, peer, c)
		}
		return nil
	}
	var refusedBlobs map[string]string
	if _, isChunk := f.(*wire.Chunk); !isChunk {
		var r *refusal
		if r, refusedBlobs = n.admit(tx, s, f); r != nil {
			res.refused = r
			return nil
		}
	}
	now := n.now()
	tk := store.ThreadKey{NS: store.NSOwn, Peer: peer, Th: h.Th}
	switch f := f.(type) {
	case *wire.Chunk:
		if err := n.storeChunk(tx, peer, f, pre, gone, written, res); err != nil {
			return err
		}
	case *wire.Mirror:
		if err := n.storeMirror(tx, s, f, res); err != nil {
			return err
		}
	case *wire.Private:
		if err := n.storePrivate(tx, s, f, res); err != nil {
			return err
		}
	default:
		t, _ := tx.EnsureThread(tk, now)
		seq, err := tx.AppendLine(tk, store.Line{Dir: store.DirIn, From: peer, Stored: now, Raw: h.Raw()})
		if err != nil {
			return err
		}
		t.Updated = now
		t.Unread++
		t.LastFrom = s.peerS
		switch f := f.(type) {
		case *wire.Msg:
			if t.Subject == "" && f.Subject != "" {
				t.Subject = f.Subject
			}
			if txt := previewText(f); txt != "" {
				t.LastText = txt
			}
			if err := n.announceBlobs(tx, peer, f, now, refusedBlobs, res); err != nil {
				return err
			}
			n.inspectMsg(tx, s, f, res)
		case *wire.State:
			t.Theirs = f.State
		case *wire.Introduce:
			n.storeIntroduce(tx, peer, f, now)
		}
		tx.Touch(tk)
		// The event is made after the commit, for whoever subscribes by
		// then: a subscriber that came while this line was being stored
		// did not see it in the store yet and must hear of it.
		res.stored = storedLine{seq: seq, raw: h.Raw(), at: now}
		res.thread = true
		if err := n.mirrorLine(tx, tk, "in", h.Raw()); err != nil {
			return err
		}
	}
	if err := tx.MarkReceived(peer, h.Th, h.ID); err != nil {
		return err
	}
	res.of = h.ID
	return nil
}

// previewText returns the first text of a msg, for previews.
func previewText(m *wire.Msg) string {
	for _, p := range m.DecodeParts() {
		if (p.K == wire.PartText || p.K == wire.PartCode) && p.Text != "" {
			if len(p.Text) > 200 {
				return p.Text[:200]
			}
			return p.Text
		}
	}
	return ""
}

// onAck applies a cumulative ack: the acked lines leave the outbox.
func (s *session) onAck(a *wire.Ack) {
	n := s.n
	peer := s.peer
	_ = n.commit.submit(&op{fn: func(tx *store.Tx) error {
		lineSeq, ok, err := tx.AckOutbox(peer, a.Th, a.Of)
		if err != nil || !ok {
			return err
		}
		if lineSeq > 0 {
			tk := store.ThreadKey{NS: store.NSOwn, Peer: peer, Th: a.Th}
			if t, ok := tx.Thread(tk); ok && lineSeq > t.AckedSeq {
				t.AckedSeq = lineSeq
				tx.Touch(tk)
			}
		}
		n.commit.publishAfter(Event{Type: EventAck, Peer: peer.String(), Th: a.Th, Of: a.Of})
		return nil
	}})
}
