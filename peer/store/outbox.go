package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"

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

// AppendOutbox queues o for peer and returns its outbox seq.
func (tx *Tx) AppendOutbox(peer key.PublicKey, o Out) (uint64, error) {
	pb := peerBytes(peer)
	ob := tx.sub(bOutbox, pb)
	seq, err := ob.NextSequence()
	if err != nil {
		return 0, fmt.Errorf("store: outbox: %w", err)
	}
	v, err := json.Marshal(o)
	if err != nil {
		return 0, fmt.Errorf("store: outbox: %w", err)
	}
	if err := ob.Put(u64(seq), v); err != nil {
		return 0, fmt.Errorf("store: outbox: %w", err)
	}
	var idv [16]byte
	binary.BigEndian.PutUint64(idv[0:8], seq)
	binary.BigEndian.PutUint64(idv[8:16], o.LineSeq)
	if err := tx.sub(bOutID, pb).Put([]byte(o.ID), idv[:]); err != nil {
		return 0, fmt.Errorf("store: outbox: %w", err)
	}
	if err := tx.sub(bOutTh, pb).Put(outThKey(o.Th, seq), []byte(o.ID)); err != nil {
		return 0, fmt.Errorf("store: outbox: %w", err)
	}
	return seq, nil
}

func outThKey(th string, seq uint64) []byte {
	b := make([]byte, 0, len(th)+9)
	b = append(b, th...)
	b = append(b, 0)
	return append(b, u64(seq)...)
}

// Outbox returns up to limit entries queued for peer after outbox seq after.
func (tx *Tx) Outbox(peer key.PublicKey, after uint64, limit int) ([]Out, error) {
	ob := tx.btx.Bucket(bOutbox).Bucket(peerBytes(peer))
	if ob == nil {
		return nil, nil
	}
	var out []Out
	c := ob.Cursor()
	for k, v := c.Seek(u64(after + 1)); k != nil && len(out) < limit; k, v = c.Next() {
		var o Out
		if err := json.Unmarshal(v, &o); err != nil {
			return out, fmt.Errorf("store: outbox entry: %w", err)
		}
		o.Seq = binary.BigEndian.Uint64(k)
		out = append(out, o)
	}
	return out, nil
}

// OutboxLen counts the entries queued for peer.
func (tx *Tx) OutboxLen(peer key.PublicKey) int {
	ob := tx.btx.Bucket(bOutbox).Bucket(peerBytes(peer))
	if ob == nil {
		return 0
	}
	return ob.Stats().KeyN
}

// OutboxSeqOf returns the outbox and line seqs of a queued line by id.
func (tx *Tx) OutboxSeqOf(peer key.PublicKey, id string) (outSeq, lineSeq uint64, ok bool) {
	b := tx.btx.Bucket(bOutID).Bucket(peerBytes(peer))
	if b == nil {
		return 0, 0, false
	}
	v := b.Get([]byte(id))
	if len(v) != 16 {
		return 0, 0, false
	}
	return binary.BigEndian.Uint64(v[0:8]), binary.BigEndian.Uint64(v[8:16]), true
}

// AckOutbox applies a cumulative ack from peer: every queued line of th up
// to and including id leaves the outbox. It returns the acked line's seq in
// its thread and false when id is not (or no longer) queued.
func (tx *Tx) AckOutbox(peer key.PublicKey, th, id string) (lineSeq uint64, ok bool, err error) {
	outSeq, lineSeq, ok := tx.OutboxSeqOf(peer, id)
	if !ok {
		return 0, false, nil
	}
	pb := peerBytes(peer)
	ob := tx.btx.Bucket(bOutbox).Bucket(pb)
	oid := tx.btx.Bucket(bOutID).Bucket(pb)
	oth := tx.btx.Bucket(bOutTh).Bucket(pb)
	if ob == nil || oid == nil || oth == nil {
		return 0, false, nil
	}
	prefix := append([]byte(th), 0)
	c := oth.Cursor()
	var dels [][]byte
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		seq := binary.BigEndian.Uint64(k[len(prefix):])
		if seq > outSeq {
			break
		}
		dels = append(dels, clone(k))
		if err := ob.Delete(u64(seq)); err != nil {
			return 0, false, err
		}
		if err := oid.Delete(v); err != nil {
			return 0, false, err
		}
	}
	for _, k := range dels {
		if err := oth.Delete(k); err != nil {
			return 0, false, err
		}
	}
	return lineSeq, true, nil
}

// OutboxPeers lists the peers that have queued lines.
func (tx *Tx) OutboxPeers() []key.PublicKey {
	var out []key.PublicKey
	_ = tx.btx.Bucket(bOutbox).ForEachBucket(func(k []byte) error {
		if p, err := key.PublicFromBytes(k); err == nil {
			if tx.OutboxLen(p) > 0 {
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
	pb := peerBytes(peer)
	if b := tx.btx.Bucket(bOutbox).Bucket(pb); b != nil {
		if err := b.Delete(u64(o.Seq)); err != nil {
			return err
		}
	}
	if b := tx.btx.Bucket(bOutID).Bucket(pb); b != nil {
		_ = b.Delete([]byte(o.ID))
	}
	if b := tx.btx.Bucket(bOutTh).Bucket(pb); b != nil {
		_ = b.Delete(outThKey(o.Th, o.Seq))
	}
	return nil
}
