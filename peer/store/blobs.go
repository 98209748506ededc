package store

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"sync"
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
	Ranges    [][2]int64 `json:"ranges,omitempty"`    // unordered: byte ranges received, merged
	Complete  bool       `json:"complete"`
	Corrupt   bool       `json:"corrupt"`
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
	v := tx.btx.Bucket(bBlobs).Get(blobKey(dir, peer, ref))
	if v == nil {
		return nil, false
	}
	b := &Blob{}
	if json.Unmarshal(v, b) != nil {
		return nil, false
	}
	return b, true
}

// PutBlob stores a blob's record.
func (tx *Tx) PutBlob(b *Blob) error {
	p, err := key.ParsePublic(b.Peer)
	if err != nil {
		return fmt.Errorf("store: put blob: %w", err)
	}
	v, err := json.Marshal(b)
	if err != nil {
		return fmt.Errorf("store: put blob: %w", err)
	}
	return tx.btx.Bucket(bBlobs).Put(blobKey(b.Dir, p, b.Ref), v)
}

// Blobs calls fn for every blob record.
func (tx *Tx) Blobs(fn func(*Blob) bool) {
	c := tx.btx.Bucket(bBlobs).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		b := &Blob{}
		if json.Unmarshal(v, b) == nil && !fn(b) {
			return
		}
	}
}

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
func (db *DB) ApplyChunk(b *Blob, off int64, data []byte, end bool, now time.Time) error {
	return db.ApplyChunkHashed(b, off, int64(len(data)), data, end, now, nil)
}

// ApplyChunkHashed is ApplyChunk for the n bytes at off, with the chunk's
// hash maybe computed ahead: pre is used only when its Before is exactly
// b's current hash state (so the result is the same as hashing the bytes
// here); otherwise the bytes are hashed: data, or, when data is nil (its
// buffer already reused), the bytes read back from b's file, where they
// were written and synced before this commit.
func (db *DB) ApplyChunkHashed(b *Blob, off, n int64, data []byte, end bool, now time.Time, pre *ChunkHash) error {
	if data != nil && int64(len(data)) != n {
		return fmt.Errorf("store: chunk of %d bytes given as %d", len(data), n)
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
			b.Unordered = true
			b.Ranges = addRange([][2]int64{{0, b.Received}}, off, off+n)
		case err != nil:
			return fmt.Errorf("store: blob hash: %w", err)
		default:
			b.HashState = st
			b.Received = off + n
		}
	case off+n <= b.Received && !b.Unordered:
		// Bytes we have already: a replay after a crash; nothing changes.
	default:
		if !b.Unordered {
			b.Unordered = true
			b.Ranges = [][2]int64{{0, b.Received}}
		}
		b.Ranges = addRange(b.Ranges, off, off+n)
	}
	if b.Unordered {
		// Received counts contiguous bytes from 0; holes keep it short.
		b.Received = 0
		if len(b.Ranges) > 0 && b.Ranges[0][0] == 0 {
			b.Received = b.Ranges[0][1]
		}
		if len(b.Ranges) > 0 && b.Ranges[len(b.Ranges)-1][1] > b.Size {
			b.Corrupt, b.Complete = true, false
			return nil
		}
	}
	b.Updated = now
	if b.Received > b.Size {
		b.Corrupt, b.Complete = true, false
		return nil
	}
	if b.Received != b.Size {
		if end && !b.Unordered {
			b.Corrupt = true // the last chunk came in order, and the blob is short
		}
		return nil
	}
	{
		sum, err := db.blobSum(b)
		if err != nil {
			return err
		}
		if b.Sha256 != "" && sum != b.Sha256 {
			b.Corrupt = true
			return nil
		}
		b.Complete = true
		b.HashState = nil
		db.CloseBlob(b.File)
	}
	return nil
}

// Holds reports whether the bytes [off, end) are among those b has stored.
func (b *Blob) Holds(off, end int64) bool {
	if !b.Unordered {
		return end <= b.Received
	}
	for _, r := range b.Ranges {
		if off >= r[0] && end <= r[1] {
			return true
		}
	}
	return false
}

// Rewritten records that chunk bytes were written again over bytes b
// already holds, where they may differ from the ones hashed: the running
// hash no longer vouches for the file, so the sum is taken from the file
// when the blob completes (as for chunks out of order). A complete blob's
// file is checked again now and marked corrupt if it no longer matches.
func (db *DB) Rewritten(b *Blob) error {
	switch {
	case b.Corrupt:
	case b.Complete:
		if b.Sha256 == "" {
			return nil // nothing to check against
		}
		sum, err := db.blobSum(b)
		if err != nil {
			return err
		}
		if sum != b.Sha256 {
			b.Complete, b.Corrupt = false, true
		}
	case !b.Unordered:
		b.Unordered = true
		b.Ranges = [][2]int64{{0, b.Received}}
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

// addRange merges [from, to) into sorted, disjoint ranges.
func addRange(rs [][2]int64, from, to int64) [][2]int64 {
	if to <= from {
		return rs
	}
	out := make([][2]int64, 0, len(rs)+1)
	placed := false
	for _, r := range rs {
		switch {
		case r[1] < from:
			out = append(out, r)
		case to < r[0]:
			if !placed {
				out = append(out, [2]int64{from, to})
				placed = true
			}
			out = append(out, r)
		default:
			from, to = min(from, r[0]), max(to, r[1])
		}
	}
	if !placed {
		out = append(out, [2]int64{from, to})
	}
	return out
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

// blobFiles caches open blob files being received.
type blobFiles struct {
	mu    sync.Mutex // guards files
	files map[string]*blobFile
}

// blobFile is a blob file being received: f for buffered writes and fsync,
// direct (opened on first use) for writes that bypass the page cache.
type blobFile struct {
	f        *os.File
	direct   *os.File
	noDirect bool // direct I/O failed once: buffered only
}

func (db *DB) bf() *blobFiles { return &db.files }

func (db *DB) blobFile(rel string) (*blobFile, error) {
	bf := db.bf()
	bf.mu.Lock()
	defer bf.mu.Unlock()
	if f := bf.files[rel]; f != nil {
		return f, nil
	}
	p := db.Path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	b := &blobFile{f: f}
	bf.files[rel] = b
	return b, nil
}

// directFile returns b's direct-I/O handle, opening it on first use (nil
// where the file system refuses direct I/O).
func (db *DB) directFile(rel string, b *blobFile) *os.File {
	bf := db.bf()
	bf.mu.Lock()
	defer bf.mu.Unlock()
	if b.direct == nil && !b.noDirect {
		b.direct = openDirect(db.Path(rel))
		b.noDirect = b.direct == nil
	}
	return b.direct
}

func (db *DB) noDirect(b *blobFile) {
	bf := db.bf()
	bf.mu.Lock()
	defer bf.mu.Unlock()
	b.noDirect = true
}

// WriteBlobAt writes chunk bytes into a blob file (not yet synced). A
// large write whose offset, length and memory are aligned goes around the
// page cache (direct I/O, where the system has it): blob bytes are written
// once and read rarely, so copying them into fresh page-cache pages (and
// writing those back later) costs CPU for nothing; SyncBlob still makes
// them durable.
func (db *DB) WriteBlobAt(rel string, off int64, data []byte) error {
	b, err := db.blobFile(rel)
	if err != nil {
		return fmt.Errorf("store: blob write: %w", err)
	}
	if len(data) >= directMin && directAligned(off, data) {
		if d := db.directFile(rel, b); d != nil {
			if _, err := d.WriteAt(data, off); err == nil {
				return nil
			}
			// Refused (or failed): write it the ordinary way, which reports
			// a real failure, and stop trying direct I/O on this file.
			db.noDirect(b)
		}
	}
	if _, err := b.f.WriteAt(data, off); err != nil {
		return fmt.Errorf("store: blob write: %w", err)
	}
	return nil
}

// WriteBlobRun writes consecutive pieces of a blob file, bufs[0] at off and
// each next one where the previous ends, as WriteBlobAt would one by one;
// a run of aligned pieces goes to the disk in one vectored direct write.
// One system call for several chunks matters on a busy machine: a direct
// write waits for the disk, and the next one only starts once its thread
// runs again (on this kind of VM, 512 KiB writes reached ~350 MB/s with
// both CPUs busy, 4 MiB ones ~680).
func (db *DB) WriteBlobRun(rel string, off int64, bufs [][]byte) error {
	if len(bufs) == 1 {
		return db.WriteBlobAt(rel, off, bufs[0])
	}
	aligned := true
	o := off
	for _, p := range bufs {
		if len(p) < directMin || !directAligned(o, p) {
			aligned = false
			break
		}
		o += int64(len(p))
	}
	if aligned {
		b, err := db.blobFile(rel)
		if err != nil {
			return fmt.Errorf("store: blob write: %w", err)
		}
		if d := db.directFile(rel, b); d != nil {
			if err := writevAt(d, off, bufs); err == nil {
				return nil
			}
			db.noDirect(b)
		}
	}
	for _, p := range bufs {
		if err := db.WriteBlobAt(rel, off, p); err != nil {
			return err
		}
		off += int64(len(p))
	}
	return nil
}

// directMin is the smallest write worth direct I/O.
const directMin = 64 << 10

// SyncBlob fsyncs a blob file written with WriteBlobAt (fsync covers the
// file's data whichever handle wrote it).
func (db *DB) SyncBlob(rel string) error {
	b, err := db.blobFile(rel)
	if err != nil {
		return fmt.Errorf("store: blob sync: %w", err)
	}
	if err := b.f.Sync(); err != nil {
		return fmt.Errorf("store: blob sync: %w", err)
	}
	return nil
}

// CloseBlob closes a cached blob file.
func (db *DB) CloseBlob(rel string) {
	bf := db.bf()
	bf.mu.Lock()
	defer bf.mu.Unlock()
	if b := bf.files[rel]; b != nil {
		b.close()
		delete(bf.files, rel)
	}
}

func (b *blobFile) close() {
	b.f.Close()
	if b.direct != nil {
		b.direct.Close()
	}
}

func (db *DB) closeBlobs() {
	bf := db.bf()
	bf.mu.Lock()
	defer bf.mu.Unlock()
	for rel, b := range bf.files {
		b.close()
		delete(bf.files, rel)
	}
}

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
