package store

import (
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/awp-tray/awp-tray/peer/key"
)

// Usage is what the store holds from one peer, for its quota: the bytes
// of the lines it sent that are stored (in its threads with this node, and
// every line of the threads it mirrors here) and the announced sizes of
// the blobs it sent that are kept (complete or still arriving; a corrupt,
// refused or expired blob is not counted, its file is removed).
type Usage struct {
	Lines int64
	Blobs int64
}

// Total is everything the peer has stored here.
func (u Usage) Total() int64 { return u.Lines + u.Blobs }

// The usage bucket: peer (32) → lines (8, BE) + blobs (8, BE). It is
// computed from the stored threads and blobs when a data directory of an
// earlier version is opened (usageInit), then kept up to date in the
// transactions that store and drop what it counts.

func decodeUsage(v []byte) Usage {
	if len(v) != 16 {
		return Usage{}
	}
	return Usage{Lines: int64(binary.BigEndian.Uint64(v[:8])), Blobs: int64(binary.BigEndian.Uint64(v[8:]))}
}

func encodeUsage(u Usage) []byte {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(max(u.Lines, 0)))
	binary.BigEndian.PutUint64(b[8:], uint64(max(u.Blobs, 0)))
	return b[:]
}

// Usage returns what the store holds from peer.
func (tx *Tx) Usage(peer key.PublicKey) Usage {
	if u, ok := tx.usage[peer]; ok {
		return u
	}
	return decodeUsage(tx.btx.Bucket(bUsage).Get(peerBytes(peer)))
}

// AddUsage changes peer's usage by lines and blobs bytes (negative to give
// back). It is written when the transaction commits.
func (tx *Tx) AddUsage(peer key.PublicKey, lines, blobs int64) {
	if lines == 0 && blobs == 0 {
		return
	}
	u := tx.Usage(peer)
	u.Lines += lines
	u.Blobs += blobs
	if tx.usage == nil {
		tx.usage = map[key.PublicKey]Usage{}
	}
	tx.usage[peer] = u
}

// flushUsage writes the usage changed in this transaction.
func (tx *Tx) flushUsage() error {
	b := tx.btx.Bucket(bUsage)
	for p, u := range tx.usage {
		if err := b.Put(peerBytes(p), encodeUsage(u)); err != nil {
			return fmt.Errorf("store: usage: %w", err)
		}
	}
	clear(tx.usage)
	return nil
}

// UsageAll calls fn with every peer's usage (tools and tests).
func (tx *Tx) UsageAll(fn func(key.PublicKey, Usage)) {
	_ = tx.btx.Bucket(bUsage).ForEach(func(k, v []byte) error {
		if p, err := key.PublicFromBytes(k); err == nil {
			fn(p, decodeUsage(v))
		}
		return nil
	})
}

// chargedLine reports whether a stored line counts in the usage of the
// thread's peer: every line of a mirrored thread (its sharer sent them
// all), the inbound lines of an own thread.
func chargedLine(ns, dir byte) bool { return ns == NSMirrored || dir == DirIn }

// usageInit computes the usage bucket from the stored lines and blobs
// (a data directory of a version without it), and marks the blobs it
// counted.
func usageInit(btx *bolt.Tx) error {
	sums := map[key.PublicKey]Usage{}
	lines := btx.Bucket(bLines)
	err := lines.ForEach(func(k, v []byte) error {
		tk, ok := parseThreadKey(k)
		lb := lines.Bucket(k)
		if !ok || v != nil || lb == nil {
			return nil
		}
		return lb.ForEach(func(_, lv []byte) error {
			if len(lv) >= lineHdr && chargedLine(tk.NS, lv[0]) {
				u := sums[tk.Peer]
				u.Lines += int64(len(lv) - lineHdr)
				sums[tk.Peer] = u
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	tx := newTx(nil, btx)
	var counted []*Blob
	tx.Blobs(func(b *Blob) bool {
		if b.Dir != "in" || b.Corrupt {
			return true
		}
		p, err := key.ParsePublic(b.Peer)
		if err != nil {
			return true
		}
		u := sums[p]
		u.Blobs += b.Size
		sums[p] = u
		b.Counted = true
		counted = append(counted, b)
		return true
	})
	for _, b := range counted {
		if err := tx.PutBlob(b); err != nil {
			return err
		}
	}
	ub := btx.Bucket(bUsage)
	for p, u := range sums {
		if err := ub.Put(peerBytes(p), encodeUsage(u)); err != nil {
			return err
		}
	}
	return nil
}
