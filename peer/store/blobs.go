package store

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
)

// Blob is a blob's record. Its bytes are in File (relative to the data dir).
type Blob struct {
	Dir       string     `json:"dir"` // "in" (received) or "out" (sent)
	Peer      string     `json:"peer"`
	Ref       string     `json:"ref"`
	Th        string     `json:"th"`
	Name      string     `json:"name"`
	Mime      string     `json:"mime"`
	Size      int64      `json:"size"`
	Sha256    string     `json:"sha256,omitempty"`
	Received  int64      `json:"received"` // in: bytes stored so far (contiguous from 0 unless Unordered)
	HashState []byte     `json:"hs,omitempty"`
	Unordered bool       `json:"unordered,omitempty"` // a chunk came out of order: rehash at the end
	Ranges    [][2]int64 `json:"ranges,omitempty"`    // earlier versions: unordered ranges (now in the ranges bucket)
	RangeN    int        `json:"range_n,omitempty"`   // unordered: how many ranges the ranges bucket holds
	Complete  bool       `json:"complete"`
	Corrupt   bool       `json:"corrupt"`
	Reason    string     `json:"reason,omitempty"`  // why it is corrupt or was refused (Reason*)
	Counted   bool       `json:"counted,omitempty"` // in: Size is counted in the sender's Usage
	File      string     `json:"file"`
	Created   time.Time  `json:"created"`
	Updated   time.Time  `json:"updated"`
}

func blobKey(dir string, peer key.PublicKey, ref string) []byte {
	b := []byte{0}
	if dir == "out" {
		b[0] = 1
	}
	b = append(b, peerBytes(peer)...)
	return append(b, ref...)
}

// InBlobFile is where a received blob's bytes live: named by a digest of
// (sender, ref), so a hostile ref cannot name a path.
func InBlobFile(peer key.PublicKey, ref string) string {
	h := sha256.New()
	h.Write(peerBytes(peer))
	h.Write([]byte(ref))
	return filepath.Join("blobs", "in", hex.EncodeToString(h.Sum(nil))[:40])
}

// OutBlobFile is where a sent blob's bytes live.
func OutBlobFile(ref string) string {
	h := sha256.Sum256([]byte(ref))
	return filepath.Join("blobs", "out", hex.EncodeToString(h[:])[:40])
}

// Blob returns a blob's record.
func (tx *Tx) Blob(dir string, peer key.PublicKey, ref string) (*Blob, bool) {
	return getRecord[Blob](tx.btx.Bucket(bBlobs), blobKey(dir, peer, ref))
}

// PutBlob stores a blob's record.
func (tx *Tx) PutBlob(b *Blob) error {
	p, err := key.ParsePublic(b.Peer)
	if err != nil {
		return fmt.Errorf("store: put blob: %w", err)
	}
	return putRecord(tx.btx.Bucket(bBlobs), blobKey(b.Dir, p, b.Ref), b, "put blob")
}

// Blobs calls fn for every blob record.
func (tx *Tx) Blobs(fn func(*Blob) bool) { eachRecord(tx.btx.Bucket(bBlobs), fn) }

// ChunkHash is a chunk's sha256 computed ahead of ApplyChunk (off the
// commit path): the blob's hash state (HashState) before the chunk, and the
// state after hashing the chunk's data on top of it.
type ChunkHash struct {
	Before, After []byte
}

// HashChunk returns the hash state after data, on top of the state before
// (empty: the start of a blob); ok is false when before is not a valid state.
func HashChunk(before, data []byte) (after []byte, ok bool) {
	after, err := hashChunk(before, data)
	return after, err == nil
}

// errHashState is a stored hash state that does not unmarshal.
var errHashState = errors.New("store: blob hash state unreadable")

// hashChunk is HashChunk with its failures told apart: errHashState for a
// bad state before, any other error from marshalling the state after.
func hashChunk(before, data []byte) ([]byte, error) {
	h := sha256.New()
	if len(before) > 0 {
		if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(before); err != nil {
			return nil, errHashState
		}
	}
	h.Write(data)
	return h.(encoding.BinaryMarshaler).MarshalBinary()
}

// ApplyChunk records chunk bytes already written (WriteBlobAt) and synced
// into b's file: it advances Received and the running sha256, and settles
// Complete or Corrupt at the end.
func (tx *Tx) ApplyChunk(b *Blob, off int64, data []byte, end bool, now time.Time) error {
	return tx.ApplyChunkHashed(b, off, int64(len(data)), data, end, now, nil)
}

// ApplyChunkHashed is ApplyChunk for the n bytes at off, with the chunk's
// hash maybe computed ahead: pre is used only when its Before is exactly
// b's current hash state (so the result is the same as hashing the bytes
// here); otherwise the bytes are hashed: data, or, when data is nil (its
// buffer already reused), the bytes read back from b's file, where they
// were written and synced before this commit. Out of order, the chunk's
// range is merged into the blob's ranges in O(log n) (blobranges.go).
func (tx *Tx) ApplyChunkHashed(b *Blob, off, n int64, data []byte, end bool, now time.Time, pre *ChunkHash) error {
	db := tx.db
	if data != nil && int64(len(data)) != n {
		return fmt.Errorf("store: chunk of %d bytes given as %d", len(data), n)
	}
	if err := tx.migrateRanges(b); err != nil {
		return err
	}
	switch {
	case off == b.Received && !b.Unordered && pre != nil && pre.After != nil && bytes.Equal(pre.Before, b.HashState):
		b.HashState = pre.After
		b.Received = off + n
	case off == b.Received && !b.Unordered:
		if data == nil && n > 0 {
			var err error
			if data, err = db.readBlobRange(b.File, off, n); err != nil {
				return fmt.Errorf("store: blob read back: %w", err)
			}
		}
		st, err := hashChunk(b.HashState, data)
		switch {
		case errors.Is(err, errHashState):
			if err := tx.unorder(b); err != nil {
				return err
			}
			if err := tx.addRange(b, off, off+n); err != nil {
				return err
			}
		case err != nil:
			return fmt.Errorf("store: blob hash: %w", err)
		default:
			b.HashState = st
			b.Received = off + n
		}
	case off+n <= b.Received && !b.Unordered:
		// Bytes we have already: a replay after a crash; nothing changes.
	default:
		if err := tx.unorder(b); err != nil {
			return err
		}
		if err := tx.addRange(b, off, off+n); err != nil {
			return err
		}
	}
	b.Updated = now
	if b.Unordered {
		if b.RangeN > MaxBlobRanges {
			return tx.markCorrupt(b, ReasonFragmented)
		}
		if off+n > b.Size {
			return tx.markCorrupt(b, ReasonPastSize)
		}
	}
	if b.Received > b.Size {
		return tx.markCorrupt(b, ReasonPastSize)
	}
	if b.Received != b.Size {
		if end && !b.Unordered {
			// The last chunk came in order, and the blob is short.
			return tx.markCorrupt(b, ReasonShort)
		}
		return nil
	}
	sum, err := db.blobSum(b)
	if err != nil {
		return err
	}
	if b.Sha256 != "" && sum != b.Sha256 {
		return tx.markCorrupt(b, ReasonMismatch)
	}
	b.Complete = true
	b.HashState = nil
	db.CloseBlob(b.File)
	return tx.settleRanges(b)
}

// unorder switches b to range tracking (a chunk out of order, or bytes
// whose hash the record no longer vouches for).
func (tx *Tx) unorder(b *Blob) error {
	if b.Unordered {
		return nil
	}
	b.Unordered = true
	b.RangeN = 0
	if err := tx.dropRanges(b); err != nil {
		return err
	}
	return tx.addRange(b, 0, b.Received)
}

// settleRanges drops the ranges of a blob that is complete or corrupt
// (nothing is added to it any more).
func (tx *Tx) settleRanges(b *Blob) error {
	b.Ranges, b.RangeN = nil, 0
	return tx.dropRanges(b)
}

// markCorrupt marks b corrupt for reason and drops its ranges. Nothing
// opens a corrupt blob's bytes: the node removes its file after the commit
// (DB.RemoveBlobFile).
func (tx *Tx) markCorrupt(b *Blob, reason string) error {
	if b.Counted {
		if p, err := key.ParsePublic(b.Peer); err == nil {
			tx.AddUsage(p, 0, -b.Size)
		}
		b.Counted = false
	}
	b.Corrupt, b.Complete = true, false
	b.HashState = nil
	if b.Reason == "" {
		b.Reason = reason
	}
	return tx.settleRanges(b)
}

// MarkCorrupt is markCorrupt for the node (refusals, expiry).
func (tx *Tx) MarkCorrupt(b *Blob, reason string) error { return tx.markCorrupt(b, reason) }

// Rewritten records that chunk bytes were written again over bytes b
// already holds, where they may differ from the ones hashed: the running
// hash no longer vouches for the file, so the sum is taken from the file
// when the blob completes (as for chunks out of order). A complete blob's
// file is checked again now and marked corrupt if it no longer matches.
func (tx *Tx) Rewritten(b *Blob) error {
	switch {
	case b.Corrupt:
	case b.Complete:
		if b.Sha256 == "" {
			return nil // nothing to check against
		}
		sum, err := tx.db.blobSum(b)
		if err != nil {
			return err
		}
		if sum != b.Sha256 {
			return tx.markCorrupt(b, ReasonMismatch)
		}
	default:
		if err := tx.migrateRanges(b); err != nil {
			return err
		}
		return tx.unorder(b)
	}
	return nil
}

func (db *DB) blobSum(b *Blob) (string, error) {
	if !b.Unordered && len(b.HashState) > 0 {
		h := sha256.New()
		if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(b.HashState); err == nil {
			return hex.EncodeToString(h.Sum(nil)), nil
		}
	}
	if b.Size == 0 && !b.Unordered {
		return hex.EncodeToString(sha256.New().Sum(nil)), nil
	}
	f, err := os.Open(db.Path(b.File))
	if err != nil {
		return "", fmt.Errorf("store: blob sum: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, b.Size)); err != nil {
		return "", fmt.Errorf("store: blob sum: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// HashFile returns the sha256 of a file in hex (for tests and checks).
func HashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	var h hash.Hash = sha256.New()
	n, err := io.Copy(h, f)
	return hex.EncodeToString(h.Sum(nil)), n, err
}

// Path turns a data-relative path into an absolute one.
func (db *DB) Path(rel string) string { return filepath.Join(db.dir, rel) }

// readBlobRange reads n bytes at off from a blob file.
func (db *DB) readBlobRange(rel string, off, n int64) ([]byte, error) {
	f, err := os.Open(db.Path(rel))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	if _, err := f.ReadAt(b, off); err != nil {
		return nil, err
	}
	return b, nil
}
