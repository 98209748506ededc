package store

import (
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// MaxBlobRanges bounds the separate byte ranges a received blob may hold
// at once. Chunks come in order (docs/protocol/blobs.md), so a conforming sender makes one
// range, and a few more only while lines that were refused (rate_limited,
// internal) are sent again. A blob whose chunks would leave it in more
// pieces than this is marked corrupt (Reason ReasonFragmented) and its
// ranges and file are dropped: only a sender that breaks the rule on
// purpose gets there, and each range costs a key in the store.
const MaxBlobRanges = 4096

// Reasons a received blob is corrupt or was refused, as Blob.Reason says.
const (
	ReasonMismatch   = "sha256 mismatch"
	ReasonShort      = "last chunk came before the end"
	ReasonPastSize   = "chunk past the announced size"
	ReasonFragmented = "chunks out of order in too many pieces"
	ReasonTooLarge   = "larger than this node accepts"
	ReasonQuota      = "over the sender's quota"
	ReasonExpired    = "incomplete for too long"
)

// Ranges of an out-of-order blob live in the ranges bucket, one nested
// bucket per blob named by its file (unique per blob): start (8, BE) → end
// (8, BE), merged and disjoint. Adding a chunk touches only the ranges it
// merges with, O(log n) with the B-tree, where a list in the blob record
// was decoded, merged and encoded again whole for every chunk (quadratic:
// 30,000 one-byte chunks at even offsets cost 50 s of CPU).

func rangeKey(off int64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(off))
	return b[:]
}

func rangeVal(v []byte) int64 {
	if len(v) != 8 {
		return -1
	}
	return int64(binary.BigEndian.Uint64(v))
}

// ranges returns b's ranges bucket (creating it when create is set and the
// transaction writes), or nil.
func (tx *Tx) ranges(b *Blob, create bool) *bolt.Bucket {
	top := tx.btx.Bucket(bRanges)
	if top == nil {
		return nil
	}
	if rb := top.Bucket([]byte(b.File)); rb != nil || !create || !tx.btx.Writable() {
		return rb
	}
	rb, err := top.CreateBucket([]byte(b.File))
	if err != nil {
		return nil
	}
	return rb
}

// dropRanges deletes b's ranges.
func (tx *Tx) dropRanges(b *Blob) error {
	top := tx.btx.Bucket(bRanges)
	if top == nil || top.Bucket([]byte(b.File)) == nil {
		return nil
	}
	return top.DeleteBucket([]byte(b.File))
}

// migrateRanges moves ranges an earlier version kept in the record into
// the bucket.
func (tx *Tx) migrateRanges(b *Blob) error {
	if len(b.Ranges) == 0 {
		return nil
	}
	old := b.Ranges
	b.Ranges, b.RangeN = nil, 0
	if err := tx.dropRanges(b); err != nil {
		return err
	}
	for _, r := range old {
		if err := tx.addRange(b, r[0], r[1]); err != nil {
			return err
		}
	}
	return nil
}

// addRange merges [from, to) into b's ranges, keeping b.RangeN and
// b.Received (the bytes contiguous from 0) up to date.
func (tx *Tx) addRange(b *Blob, from, to int64) error {
	if to <= from {
		return nil
	}
	rb := tx.ranges(b, true)
	if rb == nil {
		return fmt.Errorf("store: blob ranges: no bucket for %s", b.File)
	}
	c := rb.Cursor()
	lo, hi := from, to
	var drop [][]byte
	// The range starting at or before from, if it reaches from.
	k, v := c.Seek(rangeKey(from))
	var pk, pv []byte
	switch {
	case k != nil && rangeVal(k) == from:
		pk, pv = k, v
	case k == nil:
		pk, pv = c.Last()
	default:
		pk, pv = c.Prev()
	}
	if pk != nil && rangeVal(pk) <= from && rangeVal(pv) >= from {
		lo, hi = rangeVal(pk), max(hi, rangeVal(pv))
		drop = append(drop, pk)
	}
	// Ranges starting inside [from, hi]: merged too.
	for k, v = c.Seek(rangeKey(from)); k != nil && rangeVal(k) <= hi; k, v = c.Next() {
		if pk != nil && rangeVal(k) == rangeVal(pk) {
			continue
		}
		hi = max(hi, rangeVal(v))
		drop = append(drop, k)
	}
	for _, k := range drop {
		if err := rb.Delete(k); err != nil {
			return fmt.Errorf("store: blob ranges: %w", err)
		}
	}
	if err := rb.Put(rangeKey(lo), rangeKey(hi)); err != nil {
		return fmt.Errorf("store: blob ranges: %w", err)
	}
	b.RangeN += 1 - len(drop)
	if lo == 0 {
		b.Received = hi
	}
	return nil
}

// BlobHolds reports whether the bytes [off, end) are among those b has
// stored.
func (tx *Tx) BlobHolds(b *Blob, off, end int64) bool {
	if !b.Unordered {
		return end <= b.Received
	}
	if len(b.Ranges) > 0 { // an earlier version's record, not migrated yet
		for _, r := range b.Ranges {
			if off >= r[0] && end <= r[1] {
				return true
			}
		}
		return false
	}
	if end <= b.Received {
		return true
	}
	rb := tx.ranges(b, false)
	if rb == nil {
		return false
	}
	c := rb.Cursor()
	k, v := c.Seek(rangeKey(off))
	if k == nil || rangeVal(k) != off {
		k, v = c.Prev()
		if k == nil {
			// Seek went past the end: the last range is the candidate.
			k, v = c.Last()
		}
	}
	return k != nil && rangeVal(k) <= off && end <= rangeVal(v)
}

// BlobRanges returns b's ranges (tests and tools; a copy).
func (tx *Tx) BlobRanges(b *Blob) [][2]int64 {
	if !b.Unordered {
		if b.Received == 0 {
			return nil
		}
		return [][2]int64{{0, b.Received}}
	}
	if len(b.Ranges) > 0 {
		return append([][2]int64(nil), b.Ranges...)
	}
	var out [][2]int64
	if rb := tx.ranges(b, false); rb != nil {
		_ = rb.ForEach(func(k, v []byte) error {
			out = append(out, [2]int64{rangeVal(k), rangeVal(v)})
			return nil
		})
	}
	return out
}
