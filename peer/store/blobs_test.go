package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math/rand"
	"os"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/key/keytest"
)

var errRollback = errors.New("rollback")

// blobFixture is a received blob announced with its size (and sha256).
type blobFixture struct {
	db   *testDB
	peer key.PublicKey
	ref  string
	data []byte
	now  time.Time
}

func newBlobFixture(t *testing.T, db *testDB, size int, withSha bool, seed int64) *blobFixture {
	t.Helper()
	f := &blobFixture{db: db, peer: keytest.NewPublic(t), ref: "blob_t", now: time.Date(2026, 9, 25, 17, 0, 0, 0, time.UTC)}
	f.data = make([]byte, size)
	rand.New(rand.NewSource(seed)).Read(f.data)
	b := &Blob{Dir: "in", Peer: f.peer.String(), Ref: f.ref, Th: "thr_b", Name: "f.bin", Mime: "application/octet-stream",
		Size: int64(size), File: InBlobFile(f.peer, f.ref), Created: f.now, Updated: f.now}
	if withSha {
		sum := sha256.Sum256(f.data)
		b.Sha256 = hex.EncodeToString(sum[:])
	}
	db.update(func(tx *Tx) error { return tx.PutBlob(b) })
	return f
}

// apply does what the node does for one chunk: write and sync the bytes,
// then record them in one transaction. A non-nil abort rolls the
// transaction back after ApplyChunk (a crash before the commit).
func (f *blobFixture) apply(t *testing.T, off, n int, data []byte, end bool, abort error) *Blob {
	t.Helper()
	if data == nil {
		data = f.data[off : off+n]
	}
	var out *Blob
	err := f.db.Update(func(tx *Tx) error {
		b, ok := tx.Blob("in", f.peer, f.ref)
		if !ok {
			t.Fatal("blob record missing")
		}
		if err := f.db.writeSynced(b.File, off, data); err != nil {
			return err
		}
		if err := tx.ApplyChunk(b, int64(off), data, end, f.now); err != nil {
			return err
		}
		out = b
		if abort != nil {
			return abort
		}
		return tx.PutBlob(b)
	})
	if err != nil && !errors.Is(err, abort) {
		t.Fatalf("apply chunk at %d: %v", off, err)
	}
	return out
}

func (f *blobFixture) record(t *testing.T) *Blob {
	t.Helper()
	var b *Blob
	f.db.view(func(tx *Tx) error {
		var ok bool
		if b, ok = tx.Blob("in", f.peer, f.ref); !ok {
			t.Fatal("blob record missing")
		}
		return nil
	})
	return b
}

func (f *blobFixture) wantComplete(t *testing.T) {
	t.Helper()
	b := f.record(t)
	if !b.Complete || b.Corrupt || b.Received != int64(len(f.data)) {
		t.Fatalf("blob not complete: complete=%v corrupt=%v received=%d/%d unordered=%v", b.Complete, b.Corrupt, b.Received, b.Size, b.Unordered)
	}
	sum := sha256.Sum256(f.data)
	got, n, err := HashFile(f.db.Path(b.File))
	if err != nil || n != int64(len(f.data)) || got != hex.EncodeToString(sum[:]) {
		t.Fatalf("blob file: sha %s, %d bytes, %v", got, n, err)
	}
}

func (f *blobFixture) wantCorrupt(t *testing.T) {
	t.Helper()
	if b := f.record(t); !b.Corrupt || b.Complete {
		t.Fatalf("blob not corrupt: complete=%v corrupt=%v received=%d/%d", b.Complete, b.Corrupt, b.Received, b.Size)
	}
}

const chunk = 1000

// writeSynced writes data at off in the blob file rel and fsyncs it, as the
// node does before a chunk's commit.
func (db *testDB) writeSynced(rel string, off int, data []byte) error {
	if err := db.WriteBlobAt(rel, int64(off), data); err != nil {
		return err
	}
	return db.SyncBlob(rel)
}

func TestBlobInOrder(t *testing.T) {
	for _, withSha := range []bool{true, false} {
		db := mustOpen(t)
		f := newBlobFixture(t, db, 3*chunk+17, withSha, 1)
		for off := 0; off < len(f.data); off += chunk {
			n := min(chunk, len(f.data)-off)
			b := f.apply(t, off, n, nil, off+n == len(f.data), nil)
			if off+n < len(f.data) && (b.Complete || b.Corrupt || b.Received != int64(off+n)) {
				t.Fatalf("mid-way state: %+v", b)
			}
		}
		f.wantComplete(t)
		if b := f.record(t); b.HashState != nil || b.Unordered {
			t.Fatalf("complete blob keeps hash state %d bytes, unordered %v", len(b.HashState), b.Unordered)
		}
		db.reopen()
		f.wantComplete(t)
	}
}

func TestBlobEmpty(t *testing.T) {
	db := mustOpen(t)
	f := newBlobFixture(t, db, 0, true, 2)
	f.apply(t, 0, 0, []byte{}, true, nil)
	f.wantComplete(t)
}

func TestBlobWrongSha(t *testing.T) {
	db := mustOpen(t)
	f := newBlobFixture(t, db, 2*chunk, true, 3)
	f.apply(t, 0, chunk, nil, false, nil)
	bad := append([]byte(nil), f.data[chunk:]...)
	bad[0] ^= 1
	f.apply(t, chunk, chunk, bad, true, nil)
	f.wantCorrupt(t)
}

func TestBlobChunkPastSize(t *testing.T) {
	db := mustOpen(t)
	f := newBlobFixture(t, db, chunk+10, true, 4)
	f.apply(t, 0, chunk, nil, false, nil)
	f.apply(t, chunk, 20, make([]byte, 20), true, nil) // 10 bytes too many
	f.wantCorrupt(t)
}

func TestBlobEndTooEarly(t *testing.T) {
	db := mustOpen(t)
	f := newBlobFixture(t, db, 2*chunk, false, 5)
	f.apply(t, 0, chunk, nil, true, nil) // end after half the bytes
	f.wantCorrupt(t)
}

// TestBlobOutOfOrder: chunks that arrive out of order are kept and the blob
// is rehashed from its file once every byte is there.
func TestBlobOutOfOrder(t *testing.T) {
	for _, c := range []struct {
		name  string
		order []int // chunk indexes; the last chunk carries end
	}{
		{"last first", []int{1, 0}},
		{"middle last", []int{0, 2, 1}},
		{"reverse", []int{3, 2, 1, 0}},
		{"gap filled", []int{0, 2, 3, 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := mustOpen(t)
			n := 0
			for _, i := range c.order {
				n = max(n, i+1)
			}
			f := newBlobFixture(t, db, n*chunk, true, 6)
			for _, i := range c.order {
				b := f.apply(t, i*chunk, chunk, nil, i == n-1, nil)
				if b.Corrupt {
					t.Fatalf("corrupt after chunk %d (received %d/%d, unordered %v) although every byte so far is right", i, b.Received, b.Size, b.Unordered)
				}
			}
			f.wantComplete(t)
		})
	}
}

// TestBlobOutOfOrderNoShaHole: without a sha256 to catch it, a blob whose
// last chunk arrives first must not be marked complete while a hole of
// zeros is still in its file.
func TestBlobOutOfOrderNoShaHole(t *testing.T) {
	db := mustOpen(t)
	f := newBlobFixture(t, db, 2*chunk, false, 10)
	b := f.apply(t, chunk, chunk, nil, true, nil) // chunk 1 (end) before chunk 0
	if b.Complete {
		t.Fatalf("blob marked complete with bytes 0..%d never received (received %d/%d)", chunk, b.Received, b.Size)
	}
	f.apply(t, 0, chunk, nil, false, nil)
	f.wantComplete(t)
}

// TestBlobReplayAfterCrash: the sender replays chunks the receiver may or
// may not have recorded; whatever the record says, the blob completes.
func TestBlobReplayAfterCrash(t *testing.T) {
	t.Run("recorded chunk replayed", func(t *testing.T) {
		db := mustOpen(t)
		f := newBlobFixture(t, db, 3*chunk, true, 7)
		f.apply(t, 0, chunk, nil, false, nil)
		f.apply(t, chunk, chunk, nil, false, nil)
		db.reopen() // restart: state comes from the record
		before := f.record(t)
		b := f.apply(t, chunk, chunk, nil, false, nil) // replay of chunk 1
		if b.Received != before.Received || b.Unordered || string(b.HashState) != string(before.HashState) {
			t.Fatalf("replayed chunk changed state: %+v", b)
		}
		f.apply(t, 0, chunk, nil, false, nil) // and chunk 0
		f.apply(t, 2*chunk, chunk, nil, true, nil)
		f.wantComplete(t)
	})
	t.Run("bytes written, record lost", func(t *testing.T) {
		db := mustOpen(t)
		f := newBlobFixture(t, db, 3*chunk, true, 8)
		f.apply(t, 0, chunk, nil, false, nil)
		// Chunk 1's bytes reach the file but the transaction never commits.
		f.apply(t, chunk, chunk, nil, false, errRollback)
		db.reopen()
		if b := f.record(t); b.Received != chunk {
			t.Fatalf("record after crash: received %d", b.Received)
		}
		f.apply(t, chunk, chunk, nil, false, nil)
		f.apply(t, 2*chunk, chunk, nil, true, nil)
		f.wantComplete(t)
	})
	t.Run("stale garbage in file overwritten", func(t *testing.T) {
		db := mustOpen(t)
		f := newBlobFixture(t, db, 2*chunk, true, 9)
		f.apply(t, 0, chunk, nil, false, nil)
		// A crash left wrong bytes at chunk 1's place, unrecorded.
		f.apply(t, chunk, chunk, make([]byte, chunk), false, errRollback)
		db.reopen()
		f.apply(t, chunk, chunk, nil, true, nil)
		f.wantComplete(t)
	})
}

func TestBlobRecords(t *testing.T) {
	db := mustOpen(t)
	p := keytest.NewPublic(t)
	db.update(func(tx *Tx) error {
		for _, b := range []*Blob{
			{Dir: "in", Peer: p.String(), Ref: "blob_x", Size: 5},
			{Dir: "out", Peer: p.String(), Ref: "blob_x", Size: 7, Complete: true},
		} {
			if err := tx.PutBlob(b); err != nil {
				return err
			}
		}
		if err := tx.PutBlob(&Blob{Dir: "in", Peer: "nope", Ref: "r"}); err == nil {
			t.Fatal("PutBlob with a bad peer key succeeded")
		}
		return nil
	})
	db.reopen()
	db.view(func(tx *Tx) error {
		in, ok1 := tx.Blob("in", p, "blob_x")
		out, ok2 := tx.Blob("out", p, "blob_x")
		if !ok1 || !ok2 || in.Size != 5 || out.Size != 7 || !out.Complete {
			t.Fatalf("in %+v, out %+v", in, out)
		}
		if _, ok := tx.Blob("in", p, "blob_y"); ok {
			t.Fatal("unknown blob found")
		}
		n := 0
		tx.Blobs(func(*Blob) bool { n++; return true })
		if n != 2 {
			t.Fatalf("Blobs: %d", n)
		}
		return nil
	})
	// Blob file names do not depend on the ref's characters.
	if f := InBlobFile(p, "../../etc/passwd"); f != InBlobFile(p, "../../etc/passwd") || len(f) != len(InBlobFile(p, "x")) {
		t.Fatalf("InBlobFile %q", f)
	}
	if _, err := os.Stat(db.Path("blobs")); err != nil {
		t.Fatalf("blobs dir: %v", err)
	}
}

// TestApplyChunkHashed: a hash computed ahead is used only when it starts
// from the blob's stored state; a stale or bogus one is ignored and the
// chunk is hashed as ApplyChunk would, so the result is always the same,
// also when the chunk's bytes are not given (nil: its buffer went back to
// a pool) and are read back from the file.
func TestApplyChunkHashed(t *testing.T) {
	const size = 4 * 8192
	db := mustOpen(t)
	f := newBlobFixture(t, db, size, true, 11)
	var state []byte // the chain as a hasher ahead of the commit sees it
	for off := 0; off < size; off += 8192 {
		d := f.data[off : off+8192]
		after, ok := HashChunk(state, d)
		if !ok {
			t.Fatal("HashChunk refused a state it made")
		}
		var pre *ChunkHash
		switch off / 8192 {
		case 0:
			pre = &ChunkHash{Before: state, After: after} // right
		case 1:
			pre = &ChunkHash{Before: []byte("stale"), After: []byte("bogus")} // wrong start: ignored
		case 2:
			pre = &ChunkHash{Before: state} // not computed
		case 3:
			pre = &ChunkHash{Before: state, After: after}
		}
		state = after
		err := f.db.Update(func(tx *Tx) error {
			b, _ := tx.Blob("in", f.peer, f.ref)
			if err := f.db.writeSynced(b.File, off, d); err != nil {
				return err
			}
			given := d
			if off/8192 == 1 || off/8192 == 2 {
				given = nil // the stale and the missing hash: read back
			}
			if err := tx.ApplyChunkHashed(b, int64(off), 8192, given, off+8192 == size, f.now, pre); err != nil {
				return err
			}
			if off+8192 < size && string(b.HashState) != string(after) {
				t.Fatalf("chunk at %d: hash state differs from hashing the chunk", off)
			}
			return tx.PutBlob(b)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	f.wantComplete(t)
	f.db.view(func(tx *Tx) error {
		if err := tx.ApplyChunkHashed(&Blob{}, 0, 10, make([]byte, 9), false, f.now, nil); err == nil {
			t.Fatal("a chunk whose bytes differ from its length was accepted")
		}
		return nil
	})
}

// TestBlobWriteDirectAndBuffered mixes writes that can bypass the page
// cache (aligned, large) with ones that cannot, in one file, rewrites some,
// and checks the file's bytes.
func TestBlobWriteDirectAndBuffered(t *testing.T) {
	db := mustOpen(t)
	want := make([]byte, 3<<20+1234)
	rand.New(rand.NewSource(12)).Read(want)
	rel := InBlobFile(keytest.NewPublic(t), "blob_dio")
	// A block-aligned buffer, as pooled chunk buffers are, and unaligned views.
	buf := make([]byte, 1<<20+8192)
	for _, w := range []struct{ off, n, shift int }{
		{0, 512 << 10, 0},         // aligned: direct where possible
		{512 << 10, 512 << 10, 1}, // memory not aligned: buffered
		{1 << 20, 100000, 0},      // length not aligned
		{1<<20 + 100000, 1000, 0}, // small
		{1<<20 + 101000, 1<<20 - 101000, 0},
		{2 << 20, 1 << 20, 0},        // aligned again, after buffered writes
		{3 << 20, 1234, 0},           // the tail
		{1 << 20, 512 << 10, 0},      // rewrite over buffered bytes, aligned
		{512 << 10, 512 << 10, 4096}, // rewrite, page-aligned view
	} {
		d := buf[w.shift : w.shift+w.n]
		copy(d, want[w.off:w.off+w.n])
		if err := db.WriteBlobAt(rel, int64(w.off), d); err != nil {
			t.Fatalf("write %d at %d: %v", w.n, w.off, err)
		}
	}
	syncAndCheckBlob(t, db.DB, rel, want)
}

// TestBlobWriteRun writes runs of consecutive pieces (store.WriteBlobRun,
// what a session's chunk writer uses): all aligned (one vectored direct
// write), with an unaligned last piece, with a piece whose memory is not
// aligned, a single piece, and a run over bytes already written; the file
// must hold exactly the bytes.
func TestBlobWriteRun(t *testing.T) {
	db := mustOpen(t)
	const piece = 512 << 10
	want := make([]byte, 12*piece+777)
	rand.New(rand.NewSource(13)).Read(want)
	rel := InBlobFile(keytest.NewPublic(t), "blob_run")
	// pieces returns copies of want[off:] in separately allocated buffers
	// (page-aligned, as pooled chunk buffers are); shift > 0 misaligns the
	// memory of piece number bad.
	pieces := func(off int, lens []int, bad, shift int) [][]byte {
		var out [][]byte
		for i, n := range lens {
			b := make([]byte, n+shift)
			if i == bad {
				b = b[shift:]
			} else {
				b = b[:n]
			}
			copy(b, want[off:off+n])
			out = append(out, b)
			off += n
		}
		return out
	}
	for _, r := range []struct {
		name     string
		off      int
		lens     []int
		bad, sft int
	}{
		{"aligned run", 0, []int{piece, piece, piece, piece}, -1, 0},
		{"single piece", 4 * piece, []int{piece}, -1, 0},
		{"memory not aligned", 5 * piece, []int{piece, piece, piece}, 1, 8},
		{"tail not aligned", 8 * piece, []int{piece, piece, piece, piece + 777}, -1, 0},
		{"rewrite", piece, []int{piece, piece}, -1, 0},
	} {
		if err := db.WriteBlobRun(rel, int64(r.off), pieces(r.off, r.lens, r.bad, r.sft)); err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
	}
	syncAndCheckBlob(t, db.DB, rel, want)
}

// syncAndCheckBlob fsyncs and closes a blob file written by a test and
// checks that it holds exactly want.
func syncAndCheckBlob(t *testing.T, db *DB, rel string, want []byte) {
	t.Helper()
	if err := db.SyncBlob(rel); err != nil {
		t.Fatal(err)
	}
	if b, _ := db.acquireBlob(rel); b.direct == nil {
		t.Logf("no direct I/O here (noDirect=%v): buffered writes only", b.noDirect)
		db.releaseBlob(b)
	} else {
		db.releaseBlob(b)
	}
	db.CloseBlob(rel)
	got, err := os.ReadFile(db.Path(rel))
	if err != nil || !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("file: %d bytes (%v), want %d; first difference at %d", len(got), err, len(want), i)
	}
}

// rewrite writes other bytes over [off, off+n) of the blob's file and
// records that (Rewritten), as the node does for a repeated chunk it could
// not tell from new bytes; then the chunk is applied as a repeat.
func (f *blobFixture) rewrite(t *testing.T, off, n int, end bool, same bool) {
	t.Helper()
	data := bytes.Repeat([]byte{7}, n)
	if same {
		data = f.data[off : off+n]
	}
	err := f.db.Update(func(tx *Tx) error {
		b, _ := tx.Blob("in", f.peer, f.ref)
		if err := f.db.writeSynced(b.File, off, data); err != nil {
			return err
		}
		if !tx.BlobHolds(b, int64(off), int64(off+n)) {
			t.Fatalf("[%d, %d) not held", off, off+n)
		}
		if err := tx.Rewritten(b); err != nil {
			return err
		}
		if !b.Complete && !b.Corrupt {
			if err := tx.ApplyChunk(b, int64(off), data, end, f.now); err != nil {
				return err
			}
		}
		return tx.PutBlob(b)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestBlobRewritten: bytes written again over bytes already hashed leave
// the sum to the file: other bytes make the blob corrupt (not complete
// with a file that differs from its sha256), the same bytes complete it;
// in a complete blob the file is checked again at once.
func TestBlobRewritten(t *testing.T) {
	for _, same := range []bool{false, true} {
		db := mustOpen(t)
		f := newBlobFixture(t, db, 3*chunk, true, 5)
		f.apply(t, 0, chunk, nil, false, nil)
		f.apply(t, chunk, chunk, nil, false, nil)
		f.rewrite(t, 0, chunk, false, same)
		if b := f.record(t); !b.Unordered || b.Received != 2*chunk {
			t.Fatalf("after a rewrite: unordered=%v received=%d, want the file to decide and 2000 bytes", b.Unordered, b.Received)
		}
		f.apply(t, 2*chunk, chunk, nil, true, nil)
		if same {
			f.wantComplete(t)
		} else {
			f.wantCorrupt(t)
		}
	}
	for _, same := range []bool{false, true} {
		db := mustOpen(t)
		f := newBlobFixture(t, db, 2*chunk, true, 6)
		f.apply(t, 0, chunk, nil, false, nil)
		f.apply(t, chunk, chunk, nil, true, nil)
		f.wantComplete(t)
		f.rewrite(t, chunk, chunk, true, same)
		if same {
			f.wantComplete(t)
		} else {
			f.wantCorrupt(t)
		}
	}
}
