package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
)

// Thread namespaces.
const (
	NSOwn      byte = 0 // a thread between this node and Peer
	NSMirrored byte = 1 // a thread mirrored to this node by the sharer Peer
)

// ThreadKey names a thread: threads are kept apart by the peer they are
// with (or, for mirrored ones, the sharer), since either side picks th.
type ThreadKey struct {
	NS   byte
	Peer key.PublicKey
	Th   string
}

func (k ThreadKey) bytes() []byte {
	b := make([]byte, 0, 33+len(k.Th))
	b = append(b, k.NS)
	b = append(b, peerBytes(k.Peer)...)
	return append(b, k.Th...)
}

func parseThreadKey(b []byte) (ThreadKey, bool) {
	if len(b) < 34 {
		return ThreadKey{}, false
	}
	p, err := key.PublicFromBytes(b[1:33])
	if err != nil {
		return ThreadKey{}, false
	}
	return ThreadKey{NS: b[0], Peer: p, Th: string(b[33:])}, true
}

// Thread is a thread's record.
type Thread struct {
	Th       string    `json:"th"`
	Subject  string    `json:"subject,omitempty"`
	Mine     string    `json:"mine,omitempty"`
	Theirs   string    `json:"theirs,omitempty"`
	Updated  time.Time `json:"updated"`
	Created  time.Time `json:"created"`
	LastSeq  uint64    `json:"last_seq"`            // seq of the newest line
	ReadSeq  uint64    `json:"read_seq"`            // lines up to here have been read
	Unread   int       `json:"unread"`              // inbound lines after ReadSeq, state lines left out
	AckedSeq uint64    `json:"acked_seq"`           // outbound lines up to here are acked
	LastText string    `json:"last_text,omitempty"` // preview
	LastFrom string    `json:"last_from,omitempty"` // key of who wrote LastText

	// Mirror state.
	Of        string `json:"of,omitempty"`        // mirrored threads: the sharer's other party
	Mirror    bool   `json:"mirror,omitempty"`    // own threads: mirror to my hosts
	NoMirror  bool   `json:"no_mirror,omitempty"` // own threads: the user switched mirroring off
	Private   bool   `json:"private,omitempty"`   // own threads: private, never mirrored again
	Withdrawn bool   `json:"withdrawn,omitempty"` // mirrored threads: the sharer withdrew it
}

// Thread returns a thread's record.
func (tx *Tx) Thread(k ThreadKey) (*Thread, bool) {
	kb := tx.keyOf(k)
	if t, ok := tx.threads[kb]; ok {
		return t, true
	}
	// A write transaction takes the record from the thread cache when it
	// is loaded, which is what the file holds for a thread this
	// transaction has not written or deleted yet (noted in thrP): the
	// commit loop's hot path then decodes no JSON.
	if _, touched := tx.thrP[kb]; !touched && tx.btx.Writable() {
		if t, found, known := tx.db.thr.committed(kb); known {
			if !found {
				return nil, false
			}
			tx.threads[kb] = &t
			return &t, true
		}
	}
	v := tx.btx.Bucket(bThreads).Get([]byte(kb))
	if v == nil {
		return nil, false
	}
	t := &Thread{}
	if err := json.Unmarshal(v, t); err != nil {
		return nil, false
	}
	tx.threads[kb] = t
	return t, true
}

// EnsureThread returns the thread's record, creating it (and its th index
// entry) when new. The record may be changed in place; call Touch after.
// An index entry it cannot write fails the transaction (flush returns it).
func (tx *Tx) EnsureThread(k ThreadKey, now time.Time) (*Thread, bool) {
	if t, ok := tx.Thread(k); ok {
		return t, false
	}
	t := &Thread{Th: k.Th, Created: now, Updated: now}
	kb := tx.keyOf(k)
	tx.threads[kb] = t
	tx.dirty[kb] = true
	idx, err := tx.sub(bThreads, []byte("\x00idx"))
	if err == nil {
		err = idx.Put(append([]byte(k.Th+"\x00"), k.bytes()...), nil)
	}
	if err != nil && tx.err == nil {
		tx.err = fmt.Errorf("store: thread index: %w", err)
	}
	return t, true
}

// Touch marks a thread record changed so it is written at commit.
func (tx *Tx) Touch(k ThreadKey) { tx.dirty[tx.keyOf(k)] = true }

// FindThreads lists the threads with id th (normally one).
func (tx *Tx) FindThreads(th string) []ThreadKey {
	idx := tx.btx.Bucket(bThreads).Bucket([]byte("\x00idx"))
	if idx == nil {
		return nil
	}
	var out []ThreadKey
	prefix := []byte(th + "\x00")
	c := idx.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		if tk, ok := parseThreadKey(k[len(prefix):]); ok {
			out = append(out, tk)
		}
	}
	return out
}

// Threads calls fn for every thread until it returns false.
func (tx *Tx) Threads(fn func(ThreadKey, *Thread) bool) error {
	if err := tx.flushIfWritable(); err != nil {
		return err
	}
	c := tx.btx.Bucket(bThreads).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if v == nil { // nested bucket (the index)
			continue
		}
		tk, ok := parseThreadKey(k)
		if !ok {
			continue
		}
		t := &Thread{}
		if err := json.Unmarshal(v, t); err != nil {
			return fmt.Errorf("store: thread record: %w", err)
		}
		if !fn(tk, t) {
			return nil
		}
	}
	return nil
}

func (tx *Tx) flushIfWritable() error {
	if tx.btx.Writable() {
		return tx.flush()
	}
	return nil
}

// DeleteThread removes a thread and all its lines.
func (tx *Tx) DeleteThread(k ThreadKey) error {
	kb := k.bytes()
	tx.linesB, tx.lastLineSeq, tx.lastLineRaw = nil, 0, nil
	delete(tx.threads, string(kb))
	delete(tx.dirty, string(kb))
	if err := tx.btx.Bucket(bThreads).Delete(kb); err != nil {
		return err
	}
	tx.noteThread(string(kb), nil)
	if idx := tx.btx.Bucket(bThreads).Bucket([]byte("\x00idx")); idx != nil {
		if err := idx.Delete(append([]byte(k.Th+"\x00"), kb...)); err != nil {
			return fmt.Errorf("store: thread index: %w", err)
		}
	}
	if lb := tx.btx.Bucket(bLines).Bucket(kb); lb != nil {
		// What the peer sent leaves its usage with the lines.
		var n int64
		_ = lb.ForEach(func(_, v []byte) error {
			if len(v) >= lineHdr && chargedLine(k.NS, v[0]) {
				n += int64(len(v) - lineHdr)
			}
			return nil
		})
		tx.AddUsage(k.Peer, -n, 0)
		return tx.btx.Bucket(bLines).DeleteBucket(kb)
	}
	return nil
}

// Line directions.
const (
	DirIn  byte = 0
	DirOut byte = 1
)

// Line is one stored line of a thread.
type Line struct {
	Seq    uint64
	Dir    byte          // DirIn or DirOut
	From   key.PublicKey // who sent it
	Stored time.Time
	Flags  byte   // FlagMirrorIn etc. (mirrored lines keep the original direction)
	Raw    []byte // the line as on the wire
}

// Line flags.
const (
	// FlagMirroredIn marks a mirrored line that the sharer received (dir "in").
	FlagMirroredIn byte = 1
)

const lineHdr = 1 + 1 + 32 + 8

func encodeLine(l Line) []byte {
	b := make([]byte, lineHdr+len(l.Raw))
	b[0] = l.Dir
	b[1] = l.Flags
	r := l.From.Raw()
	copy(b[2:34], r[:])
	binary.BigEndian.PutUint64(b[34:42], uint64(l.Stored.UnixMilli()))
	copy(b[lineHdr:], l.Raw)
	return b
}

func decodeLine(seq uint64, v []byte) (Line, bool) {
	if len(v) < lineHdr {
		return Line{}, false
	}
	from, _ := key.PublicFromBytes(v[2:34])
	return Line{
		Seq: seq, Dir: v[0], Flags: v[1], From: from,
		Stored: time.UnixMilli(int64(binary.BigEndian.Uint64(v[34:42]))).UTC(),
		Raw:    clone(v[lineHdr:]),
	}, true
}

// appendFill is the fill percent of buckets written in key order (lines,
// outboxes): pages split nearly full, since nothing is inserted before
// the end.
const appendFill = 0.9

// AppendLine stores a line at the end of thread k and returns its seq. The
// thread must exist (EnsureThread); its LastSeq is advanced.
func (tx *Tx) AppendLine(k ThreadKey, l Line) (uint64, error) {
	b := tx.linesB
	if b == nil || k != tx.linesK {
		var err error
		if b, err = tx.sub(bLines, []byte(tx.keyOf(k))); err != nil {
			return 0, fmt.Errorf("store: append line: %w", err)
		}
		b.FillPercent = appendFill
		tx.linesK, tx.linesB = k, b
	}
	seq, err := b.NextSequence()
	if err != nil {
		return 0, fmt.Errorf("store: append line: %w", err)
	}
	l.Seq = seq
	if err := b.Put(tx.seqKey(seq), encodeLine(l)); err != nil {
		return 0, fmt.Errorf("store: append line: %w", err)
	}
	tx.lastLineSeq, tx.lastLineRaw = seq, l.Raw
	if chargedLine(k.NS, l.Dir) {
		tx.AddUsage(k.Peer, int64(len(l.Raw)), 0)
	}
	if t, ok := tx.Thread(k); ok {
		t.LastSeq = seq
		tx.Touch(k)
	}
	return seq, nil
}

// Lines calls fn for the lines of thread k after seq, in order, until fn
// returns false.
func (tx *Tx) Lines(k ThreadKey, after uint64, fn func(Line) bool) {
	b := tx.btx.Bucket(bLines).Bucket(k.bytes())
	if b == nil {
		return
	}
	c := b.Cursor()
	for kk, v := c.Seek(u64(after + 1)); kk != nil; kk, v = c.Next() {
		l, ok := decodeLine(binary.BigEndian.Uint64(kk), v)
		if ok && !fn(l) {
			return
		}
	}
}

// LineAt returns one line of thread k.
func (tx *Tx) LineAt(k ThreadKey, seq uint64) (Line, bool) {
	b := tx.btx.Bucket(bLines).Bucket(k.bytes())
	if b == nil {
		return Line{}, false
	}
	v := b.Get(u64(seq))
	if v == nil {
		return Line{}, false
	}
	return decodeLine(seq, v)
}
