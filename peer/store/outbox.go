package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/awp-tray/awp-tray/peer/key"
)

// Out is one outbox entry: a content line queued for a peer.
type Out struct {
	Seq     uint64    `json:"-"`                // outbox position (set when read)
	Th      string    `json:"th"`               // thread of the line
	ID      string    `json:"id"`               // line id
	LineSeq uint64    `json:"ls"`               // the line's seq in its thread (0: not kept in a thread)
	Raw     []byte    `json:"raw"`              // the line, unless Chunk is set
	Chunk   *ChunkRef `json:"chunk,omitempty"`  // a chunk line built from a blob file at send time
	Mirror  bool      `json:"mirror,omitempty"` // a mirror line (dropped for hosts without the cap)

	ref bool // stored as a reference to the thread line (Raw read from there)
}

// ChunkRef describes a chunk line whose data is read from a blob file when
// it is sent, so the outbox does not hold blob bytes.
type ChunkRef struct {
	TS   string `json:"ts"`
	Ref  string `json:"ref"`
	File string `json:"file"` // blob file, relative to the data directory
	Off  int64  `json:"off"`
	Len  int64  `json:"len"`
	End  bool   `json:"end"`
}

// Outbox record encoding (binary: raw lines are not re-encoded):
//
//	flags(1) len(th)(1) th len(id)(1) id lineSeq(8) then
//	  chunk:  len(ts)(1) ts len(ref)(2) ref len(file)(2) file off(8) len(8) end(1)
//	  ref:    nothing (the raw line is line lineSeq of my thread th with the peer)
//	  else:   raw line
const (
	outFlagChunk  = 1
	outFlagMirror = 2
	outFlagRef    = 4
)

func encodeOut(o Out, ref bool) []byte {
	n := 3 + len(o.Th) + len(o.ID) + 8 + 64
	if !ref {
		n += len(o.Raw)
	}
	b := make([]byte, 0, n)
	var flags byte
	if ref {
		flags |= outFlagRef
	}
	if o.Chunk != nil {
		flags |= outFlagChunk
	}
	if o.Mirror {
		flags |= outFlagMirror
	}
	b = append(b, flags, byte(len(o.Th)))
	b = append(b, o.Th...)
	b = append(b, byte(len(o.ID)))
	b = append(b, o.ID...)
	b = binary.BigEndian.AppendUint64(b, o.LineSeq)
	if c := o.Chunk; c != nil {
		b = append(b, byte(len(c.TS)))
		b = append(b, c.TS...)
		b = binary.BigEndian.AppendUint16(b, uint16(len(c.Ref)))
		b = append(b, c.Ref...)
		b = binary.BigEndian.AppendUint16(b, uint16(len(c.File)))
		b = append(b, c.File...)
		b = binary.BigEndian.AppendUint64(b, uint64(c.Off))
		b = binary.BigEndian.AppendUint64(b, uint64(c.Len))
		if c.End {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
		return b
	}
	if ref {
		return b
	}
	return append(b, o.Raw...)
}

var errOutRecord = errors.New("store: corrupt outbox record")

func decodeOut(v []byte) (Out, error) {
	var o Out
	r := reader{b: v}
	flags := r.byte()
	o.Th = string(r.bytes(int(r.byte())))
	o.ID = string(r.bytes(int(r.byte())))
	o.LineSeq = r.u64()
	o.Mirror = flags&outFlagMirror != 0
	if flags&outFlagChunk != 0 {
		c := &ChunkRef{}
		c.TS = string(r.bytes(int(r.byte())))
		c.Ref = string(r.bytes(int(r.u16())))
		c.File = string(r.bytes(int(r.u16())))
		c.Off = int64(r.u64())
		c.Len = int64(r.u64())
		c.End = r.byte() == 1
		o.Chunk = c
	} else if flags&outFlagRef != 0 {
		o.ref = true // Raw is filled from the thread's line by Outbox
	} else if !r.bad {
		o.Raw = clone(r.b[r.i:])
	}
	if r.bad {
		return Out{}, errOutRecord
	}
	return o, nil
}

// reader reads a binary record, remembering the first overrun.
type reader struct {
	b   []byte
	i   int
	bad bool
}

func (r *reader) bytes(n int) []byte {
	if r.bad || r.i+n > len(r.b) {
		r.bad = true
		return nil
	}
	out := r.b[r.i : r.i+n]
	r.i += n
	return out
}

func (r *reader) byte() byte {
	if b := r.bytes(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *reader) u16() uint16 {
	if b := r.bytes(2); b != nil {
		return binary.BigEndian.Uint16(b)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if b := r.bytes(8); b != nil {
		return binary.BigEndian.Uint64(b)
	}
	return 0
}

// AppendOutbox queues o for peer and returns its outbox seq.
func (tx *Tx) AppendOutbox(peer key.PublicKey, o Out) (uint64, error) {
	if tx.outB == nil || peer != tx.outPeer {
		b, err := tx.sub(bOutbox, peerBytes(peer))
		if err != nil {
			return 0, fmt.Errorf("store: outbox: %w", err)
		}
		tx.outB = b
		tx.outB.FillPercent = appendFill
		tx.outPeer = peer
	}
	ob := tx.outB
	seq, err := ob.NextSequence()
	if err != nil {
		return 0, fmt.Errorf("store: outbox: %w", err)
	}
	// A line just appended to my thread with this peer is stored once:
	// the outbox entry refers to it.
	ref := o.Chunk == nil && !o.Mirror && o.LineSeq != 0 && tx.lastLineSeq == o.LineSeq &&
		tx.linesK == (ThreadKey{NS: NSOwn, Peer: peer, Th: o.Th}) && bytes.Equal(tx.lastLineRaw, o.Raw)
	if err := ob.Put(tx.seqKey(seq), encodeOut(o, ref)); err != nil {
		return 0, fmt.Errorf("store: outbox: %w", err)
	}
	tx.outPending().add(outKey{peer, o.Th}, outRef{seq: seq, id: o.ID, lineSeq: o.LineSeq})
	return seq, nil
}

// Outbox returns up to limit entries queued for peer after outbox seq after.
func (tx *Tx) Outbox(peer key.PublicKey, after uint64, limit int) ([]Out, error) {
	ob := tx.btx.Bucket(bOutbox).Bucket(peerBytes(peer))
	if ob == nil {
		return nil, nil
	}
	var out []Out
	var lines *bolt.Bucket
	linesTh := ""
	c := ob.Cursor()
	for k, v := c.Seek(u64(after + 1)); k != nil && len(out) < limit; k, v = c.Next() {
		o, err := decodeOut(v)
		if err != nil {
			return out, err
		}
		o.Seq = binary.BigEndian.Uint64(k)
		if o.ref {
			// The line's bytes from its thread; a line that is gone
			// leaves Raw nil (the caller drops the entry).
			if lines == nil || linesTh != o.Th {
				linesTh = o.Th
				lines = tx.btx.Bucket(bLines).Bucket(ThreadKey{NS: NSOwn, Peer: peer, Th: o.Th}.bytes())
			}
			if lines != nil {
				if lv := lines.Get(u64(o.LineSeq)); len(lv) > lineHdr {
					o.Raw = clone(lv[lineHdr:])
				}
			}
		}
		out = append(out, o)
	}
	return out, nil
}

// OutboxLen counts the entries queued for peer (a scan; also right inside
// a writing transaction, where bucket stats lag).
func (tx *Tx) OutboxLen(peer key.PublicKey) int {
	ob := tx.btx.Bucket(bOutbox).Bucket(peerBytes(peer))
	if ob == nil {
		return 0
	}
	n := 0
	c := ob.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		n++
	}
	return n
}

// OutboxSeqOf returns the outbox and line seqs of a queued line by id (a
// scan: for tests and tools, not hot paths).
func (tx *Tx) OutboxSeqOf(peer key.PublicKey, id string) (outSeq, lineSeq uint64, ok bool) {
	b := tx.btx.Bucket(bOutbox).Bucket(peerBytes(peer))
	if b == nil {
		return 0, 0, false
	}
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if o, err := decodeOut(v); err == nil && o.ID == id {
			return binary.BigEndian.Uint64(k), o.LineSeq, true
		}
	}
	return 0, 0, false
}

// AckOutbox applies a cumulative ack from peer: when id names a line of th
// still queued, that line and every queued line of th before it leave the
// outbox. It returns the highest thread line seq acked, and false when id
// is not (or no longer) queued in th — such an ack changes nothing.
func (tx *Tx) AckOutbox(peer key.PublicKey, th, id string) (lineSeq uint64, ok bool, err error) {
	ob := tx.btx.Bucket(bOutbox).Bucket(peerBytes(peer))
	if ob == nil {
		return 0, false, nil
	}
	k := outKey{peer, th}
	p := tx.outPending()
	// The thread's queued entries in outbox order: ids of one sender
	// increase in creation order, so the acked ones are a prefix.
	n, found := 0, false
	p.each(tx.db.out.list(k), k, func(r outRef) bool {
		if upperCmp(r.id, id) > 0 {
			return false
		}
		n++
		if r.dropped {
			return true
		}
		if r.lineSeq > lineSeq {
			lineSeq = r.lineSeq // chunk and mirror lines have none: keep the highest
		}
		if upperCmp(r.id, id) == 0 {
			found = true
			return false
		}
		return true
	})
	if !found {
		return 0, false, nil
	}
	i := 0
	p.each(tx.db.out.list(k), k, func(r outRef) bool {
		if i == n {
			return false
		}
		i++
		if !r.dropped {
			err = ob.Delete(tx.seqKey(r.seq))
		}
		return err == nil
	})
	if err != nil {
		return 0, false, err
	}
	p.pops[k] += n
	return lineSeq, true, nil
}

// OutboxPeers lists the peers that have queued lines.
func (tx *Tx) OutboxPeers() []key.PublicKey {
	var out []key.PublicKey
	_ = tx.btx.Bucket(bOutbox).ForEachBucket(func(k []byte) error {
		if p, err := key.PublicFromBytes(k); err == nil {
			if f, _ := tx.btx.Bucket(bOutbox).Bucket(k).Cursor().First(); f != nil {
				out = append(out, p)
			}
		}
		return nil
	})
	return out
}

// DropOutbox removes one queued entry (used for mirror lines to a host
// whose hello lacks the mirror cap).
func (tx *Tx) DropOutbox(peer key.PublicKey, o Out) error {
	if b := tx.btx.Bucket(bOutbox).Bucket(peerBytes(peer)); b != nil {
		if err := b.Delete(u64(o.Seq)); err != nil {
			return err
		}
	}
	tx.outPending().drop(outKey{peer, o.Th}, o.Seq)
	return nil
}
