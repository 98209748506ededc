package peer

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"time"

	"github.com/awp-tray/awp-tray/internal/bufpool"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// readBufs holds session readers' large buffers (wire.Reader.SetGrow):
// a session that receives a blob reads its chunk lines into one.
var readBufs = bufpool.New(wire.ReadBufMax, readBufsKept, bufIdle)

// readLoop reads the session's lines until it ends: each is decoded and
// handed to dispatch. A line that does not decode is answered bad_request
// when it is a known type with a bad field, and ends the session
// (bad_frame) when it is no frame at all.
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
		raw, err := s.readLine(&buf)
		if err != nil {
			s.readFailed(err)
			return
		}
		s.lastRecv.Store(time.Now().UnixNano())
		if buf == nil && len(raw) > readerBufSize {
			buf = getChunkBuf()
		}
		f, err := wire.DecodeTemp(raw, buf) // DecodeTemp checks UTF-8
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
		if !s.dispatch(f, &hs, &rx) {
			return
		}
		if s.bigLine {
			s.idleLine(len(raw), &buf)
		}
	}
}

// readLine reads the next line. While the reader holds a long-line buffer
// a read has LongLineTimeout: idle, the buffer goes back and the read goes
// on; in the middle of a line, the line took too long.
func (s *session) readLine(buf *[]byte) ([]byte, error) {
	for {
		raw, err := s.r.ReadLineUnchecked()
		if err == nil || !s.bigLine || !errors.Is(err, os.ErrDeadlineExceeded) {
			return raw, err
		}
		b := s.r.Shrink()
		if b == nil {
			return nil, errLongLine
		}
		s.putLine(b)
		putChunkBuf(*buf)
		*buf = nil
		_ = s.c.SetReadDeadline(time.Time{})
	}
}

// readFailed ends the session after a failed read, telling the peer why
// when it sent something this node cannot read.
func (s *session) readFailed(err error) {
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
}

// idleLine runs after each line while the reader holds a long-line
// buffer: with nothing more buffered, the buffer goes back when another
// session waits for one or the line was short (the long ones are over);
// otherwise the next line has LongLineTimeout from now.
func (s *session) idleLine(n int, buf *[]byte) {
	if s.r.Buffered() == 0 && (n < readerBufSize || s.n.lineBufs.contended()) {
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

// inLine is one received content line on its way through the commit
// loop: what the reader did with it, and what storing it produced.
type inLine struct {
	s     *session
	f     wire.Frame
	store func(n *Node, tx *store.Tx, in *inLine) error // its type's (lineHandler.store)
	chunk chunkIn                                       // a chunk's bytes, ahead of the commit
	now   time.Time                                     // when it is stored
	// refusedBlobs are the blob parts of a msg that admit refused (ref →
	// reason): recorded refused, the msg itself stored.
	refusedBlobs map[string]string
	res          inResult
}

// chunkIn is what the reader did with a chunk's bytes before its commit.
type chunkIn struct {
	written bool             // the bytes went to the blob's file (else: a repeat, or refused)
	pre     *store.ChunkHash // their hash, computed ahead (nil: none)
	// bufGone says the data's buffer went back to the pool once the hash
	// was computed: only its length counts (the store reads the bytes
	// back from the file if it needs them).
	bufGone bool
}

// inResult is what storing one inbound content line produced.
type inResult struct {
	of      string     // id to ack
	line    *LineInfo  // the event's line, made while storing (mirrored and private lines)
	stored  storedLine // an own thread's line, for the event made after the commit
	blob    *BlobInfo  // a blob's progress, for its event
	badCode string     // stored, and answered with this err code…
	badMsg  string     // …and message
	after   func()     // work to start after the commit (requests…)
	refused *refusal   // not stored: answered with this err, not acked
	remove  []string   // blob files to delete after the commit (corrupt blobs)
}

// storedLine is an inbound line stored in one of this node's threads.
type storedLine struct {
	seq uint64
	raw []byte // the line as received; valid until the job is released
	at  time.Time
}

// bad records that the line is stored but answered with err code: msg.
func (r *inResult) bad(code, msg string) { r.badCode, r.badMsg = code, msg }

// receive hands a content line to the commit loop; the ack follows the commit.
func (s *session) receive(f wire.Frame, h lineHandler, hs *chunkWorker, rx *rxBlobs) bool {
	n := s.n
	j := &inJob{inLine: inLine{s: s, f: f, store: h.store}}
	o := &j.op
	o.job = j
	o.src = s
	o.th = f.Header().Th
	c, isChunk := f.(*wire.Chunk)
	o.bulk = isChunk
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
	if isChunk && !s.chunkAhead(j, c, hs, rx) {
		j.release()
		return true
	}
	if err := n.commit.submit(o); err != nil {
		j.release()
		s.close(err)
		return false
	}
	return true
}

// chunkAhead writes a chunk's bytes to their blob file before the commit
// (on hs, which also hashes them, or here); the commit loop only fsyncs
// the file before the batch commits. False when the chunk could not be
// written (answered internal; nothing to commit).
func (s *session) chunkAhead(j *inJob, c *wire.Chunk, hs *chunkWorker, rx *rxBlobs) bool {
	n, o := s.n, &j.op
	j.data = c.Data
	file, rec, looked := rx.chunkFile(n, s.peer, c)
	if file != "" && !n.disk.room(s.tier, int64(len(c.Data))) {
		// No room on the disk for this peer's bytes: not written,
		// answered rate_limited at its commit (in order, so the lines
		// after it in its thread wait too), and the reader forgets the
		// blob's chain (its bytes did not go on).
		file, j.refuse = "", errDiskLow
		rx.forget(c.Ref)
	}
	j.chunk.written = file != ""
	switch {
	case file != "" && hs != nil:
		j.hash = hs.submit(file, c, rec, looked)
		o.written, o.hashed = j.hash.written, j.hash.hashed
	case file != "":
		if err := n.db.WriteBlobAt(file, c.Off, c.Data); err != nil {
			n.log.Error("blob write", "peer", s.peer.Short(), "err", err)
			s.sendErr(wire.CodeInternal, "could not store the chunk", c.ID, c.Th)
			return false
		}
	}
	o.sync = file
	return true
}

// inJob stores one received content line in the commit loop.
type inJob struct {
	op
	inLine
	hash   *hashJob // a chunk's write and hash on the session's chunk worker
	data   []byte   // a pooled chunk buffer to return after the commit
	refuse *refusal // refused before its commit (no room on the disk)
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
	if j.hash != nil {
		if j.hash.err != nil {
			return j.hash.err
		}
		j.chunk.pre, j.chunk.bufGone = &j.hash.res, j.hash.released
	}
	return j.s.n.storeLine(tx, &j.inLine)
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

// afterInbound publishes what a committed line changed and starts the
// work it set aside. The event of a line stored in one of this node's
// threads is made now, for whoever is subscribed after the commit: a
// subscriber that came while the line was being stored did not find it in
// the store, and must hear of it.
func (n *Node) afterInbound(s *session, th string, res *inResult) {
	if st := res.stored; st.seq != 0 && res.line == nil {
		if !n.hasSubscribers() {
			n.presenceChanged() // what publish would do (nobody listens)
		} else {
			res.line = &LineInfo{Dir: "in", From: s.peer, Line: json.RawMessage(st.raw), Seq: st.seq, Stored: st.at.UTC().Format(wire.TimeFormat)}
		}
	}
	if res.line != nil {
		n.publish(Event{Type: EventLine, Peer: s.peer, PeerName: s.hello.Name, Th: th, Line: res.line})
	}
	if res.blob != nil {
		n.publish(Event{Type: EventBlob, Peer: s.peer, Th: res.blob.Th, Blob: res.blob})
	}
	if res.after != nil {
		res.after()
	}
}

// storeLine stores one content line from in.s's peer inside tx: a
// duplicate (its id not after the last one stored in its thread) is only
// acked again; a line over the sender's quota, or with no room on the
// disk, is refused; anything else goes to its type's store function, and
// its id is marked received.
func (n *Node) storeLine(tx *store.Tx, in *inLine) error {
	h, peer := in.f.Header(), in.s.peer
	if tx.Received(peer, h.Th, h.ID) {
		in.res.of = tx.LastSeen(peer, h.Th)
		if c, ok := in.f.(*wire.Chunk); ok && in.chunk.written {
			return n.dupChunk(tx, in, c)
		}
		return nil
	}
	if _, isChunk := in.f.(*wire.Chunk); !isChunk {
		// A chunk was checked before its bytes were written (chunkAhead);
		// its blob's size counted when the msg announced it.
		r, refused := n.admit(tx, in.s, in.f)
		if r != nil {
			in.res.refused = r
			return nil
		}
		in.refusedBlobs = refused
	}
	in.now = n.now()
	st := in.store
	if st == nil {
		st = lineHandlers[h.T].store
	}
	if st != nil {
		if err := st(n, tx, in); err != nil {
			return err
		}
	}
	if err := tx.MarkReceived(peer, h.Th, h.ID); err != nil {
		return err
	}
	in.res.of = h.ID
	return nil
}

// storeInThread stores a received line in its thread with the sender (in
// this node's own namespace): it appends the line, updates the thread's
// record (when, unread but for a state line, and what update changes),
// keeps the line for its event after the commit, and mirrors it
// to this node's hosts.
func (n *Node) storeInThread(tx *store.Tx, in *inLine, update func(t *store.Thread) error) error {
	h, peer := in.f.Header(), in.s.peer
	tk := store.ThreadKey{NS: store.NSOwn, Peer: peer, Th: h.Th}
	t, _ := tx.EnsureThread(tk, in.now)
	seq, err := tx.AppendLine(tk, store.Line{Dir: store.DirIn, From: peer, Stored: in.now, Raw: h.Raw()})
	if err != nil {
		return err
	}
	t.Updated = in.now
	if countsUnread(in.f) {
		t.Unread++
	}
	if update != nil {
		if err := update(t); err != nil {
			return err
		}
	}
	tx.Touch(tk)
	in.res.stored = storedLine{seq: seq, raw: h.Raw(), at: in.now}
	return n.mirrorLine(tx, tk, "in", h.Raw())
}
