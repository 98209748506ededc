package store

import (
	"fmt"
	"math/rand"
	"os"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer/key/keytest"
)

// TestBlobRangesMerge adds chunks in random order, with repeats and
// overlaps, and checks after each that the stored ranges are exactly the
// merged set of bytes received (a bitmap kept beside), that BlobHolds
// agrees with it, and that the blob completes with its sha256 at the end.
func TestBlobRangesMerge(t *testing.T) {
	for seed := int64(1); seed <= 6; seed++ {
		db := mustOpenOpts(t, t.TempDir(), Options{NoSync: true}) // many small transactions
		const size = 5000
		f := newBlobFixture(t, db, size, true, seed)
		rng := rand.New(rand.NewSource(seed))
		have := make([]bool, size)
		full := func() bool {
			for _, h := range have {
				if !h {
					return false
				}
			}
			return true
		}
		for step := 0; !full(); step++ {
			off := rng.Intn(size)
			n := 1 + rng.Intn(min(300, size-off))
			if step%7 == 0 { // fill the first hole, so it ends
				for off = 0; have[off]; off++ {
				}
				n = 1
				for off+n < size && !have[off+n] && n < 200 {
					n++
				}
			}
			b := f.apply(t, off, n, nil, off+n == size, nil)
			for i := off; i < off+n; i++ {
				have[i] = true
			}
			if full() {
				break
			}
			if b.Corrupt || b.Complete {
				t.Fatalf("seed %d step %d: complete=%v corrupt=%v with bytes missing", seed, step, b.Complete, b.Corrupt)
			}
			var want [][2]int64
			for i := 0; i < size; {
				if !have[i] {
					i++
					continue
				}
				j := i
				for j < size && have[j] {
					j++
				}
				want = append(want, [2]int64{int64(i), int64(j)})
				i = j
			}
			db.view(func(tx *Tx) error {
				b, _ := tx.Blob("in", f.peer, f.ref)
				got := tx.BlobRanges(b)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("seed %d step %d: ranges %v, want %v", seed, step, got, want)
				}
				if b.Unordered && b.RangeN != len(want) {
					t.Fatalf("seed %d step %d: RangeN %d, %d ranges", seed, step, b.RangeN, len(want))
				}
				if want0 := int64(0); len(want) > 0 && want[0][0] == 0 {
					want0 = want[0][1]
					if b.Received != want0 {
						t.Fatalf("seed %d: received %d, want %d", seed, b.Received, want0)
					}
				}
				for k := 0; k < 50; k++ {
					o := rng.Intn(size)
					e := o + 1 + rng.Intn(size-o)
					held := true
					for i := o; i < e; i++ {
						held = held && have[i]
					}
					if tx.BlobHolds(b, int64(o), int64(e)) != held {
						t.Fatalf("seed %d: BlobHolds(%d, %d) = %v", seed, o, e, !held)
					}
				}
				return nil
			})
		}
		f.wantComplete(t)
		db.view(func(tx *Tx) error {
			if tx.btx.Bucket(bRanges).Stats().BucketN > 1 {
				t.Fatalf("seed %d: a complete blob left its ranges bucket", seed)
			}
			return nil
		})
	}
}

// TestBlobRangesBounded: a blob whose chunks leave it in more than
// MaxBlobRanges pieces is marked corrupt, its ranges dropped and its
// quota given back.
func TestBlobRangesBounded(t *testing.T) {
	db := mustOpen(t)
	size := 2*MaxBlobRanges + 10
	f := newBlobFixture(t, db, size, true, 3)
	db.update(func(tx *Tx) error {
		b, _ := tx.Blob("in", f.peer, f.ref)
		b.Counted = true
		tx.AddUsage(f.peer, 0, b.Size)
		return tx.PutBlob(b)
	})
	// Odd offsets: every chunk a new piece. In a few transactions (each
	// chunk in its own would cost an fsync each).
	var b *Blob
	for i := 0; i <= MaxBlobRanges; {
		db.update(func(tx *Tx) error {
			b, _ = tx.Blob("in", f.peer, f.ref)
			for end := min(i+1000, MaxBlobRanges+1); i < end; i++ {
				off := 2*i + 1
				if err := db.WriteBlobAt(b.File, int64(off), f.data[off:off+1]); err != nil {
					return err
				}
				if err := tx.ApplyChunk(b, int64(off), f.data[off:off+1], false, f.now); err != nil {
					return err
				}
				if i < MaxBlobRanges && b.Corrupt {
					t.Fatalf("corrupt after %d pieces", i+1)
				}
			}
			return tx.PutBlob(b)
		})
	}
	if !b.Corrupt || b.Reason != ReasonFragmented || b.RangeN != 0 {
		t.Fatalf("after %d pieces: corrupt=%v reason %q ranges %d", MaxBlobRanges+1, b.Corrupt, b.Reason, b.RangeN)
	}
	db.view(func(tx *Tx) error {
		if tx.btx.Bucket(bRanges).Bucket([]byte(b.File)) != nil {
			t.Fatal("the corrupt blob's ranges are still stored")
		}
		if u := tx.Usage(f.peer); u.Blobs != 0 {
			t.Fatalf("usage after the blob went corrupt: %+v", u)
		}
		return nil
	})
}

// TestBlobRangesMigrated: a record of an earlier version that keeps its
// ranges in JSON still answers BlobHolds and completes, its ranges moved
// to the bucket on its next chunk.
func TestBlobRangesMigrated(t *testing.T) {
	db := mustOpen(t)
	f := newBlobFixture(t, db, 4*chunk, true, 4)
	f.apply(t, 0, chunk, nil, false, nil)
	f.apply(t, 2*chunk, chunk, nil, false, nil) // out of order: now in the bucket
	// Make it look like an earlier version's record.
	db.update(func(tx *Tx) error {
		b, _ := tx.Blob("in", f.peer, f.ref)
		b.Ranges, b.RangeN = [][2]int64{{0, chunk}, {2 * chunk, 3 * chunk}}, 0
		if err := tx.dropRanges(b); err != nil {
			return err
		}
		return tx.PutBlob(b)
	})
	db.view(func(tx *Tx) error {
		b, _ := tx.Blob("in", f.peer, f.ref)
		if !tx.BlobHolds(b, 2*chunk, 3*chunk) || tx.BlobHolds(b, chunk, 2*chunk) {
			t.Fatal("an earlier version's ranges are not read")
		}
		return nil
	})
	b := f.apply(t, chunk, chunk, nil, false, nil)
	if len(b.Ranges) != 0 || b.RangeN != 1 || b.Received != 3*chunk {
		t.Fatalf("after migration: ranges %v, %d in the bucket, received %d", b.Ranges, b.RangeN, b.Received)
	}
	f.apply(t, 3*chunk, chunk, nil, true, nil)
	f.wantComplete(t)
}

// TestBlobFilesBounded writes chunks into many more blob files than
// MaxOpenBlobFiles: no more than that many stay open, every byte lands,
// and a file closed in between is synced and written again.
func TestBlobFilesBounded(t *testing.T) {
	db := mustOpen(t)
	p := keytest.NewPublic(t)
	fds := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("no /proc/self/fd here") // the bound itself is checked below
		}
		return len(ents)
	}
	before := fds()
	const files = 5 * MaxOpenBlobFiles
	for round := 0; round < 2; round++ {
		for i := 0; i < files; i++ {
			rel := InBlobFile(p, fmt.Sprintf("blob_%d", i))
			if err := db.WriteBlobAt(rel, int64(round), []byte{byte(i)}); err != nil {
				t.Fatal(err)
			}
			if open := db.OpenBlobFiles(); open > MaxOpenBlobFiles {
				t.Fatalf("%d blob files open, bound %d", open, MaxOpenBlobFiles)
			}
		}
	}
	if got := fds() - before; got > MaxOpenBlobFiles+4 {
		t.Fatalf("%d more descriptors open after writing %d files, bound %d", got, files, MaxOpenBlobFiles)
	}
	for i := 0; i < files; i++ {
		rel := InBlobFile(p, fmt.Sprintf("blob_%d", i))
		if err := db.SyncBlob(rel); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(db.Path(rel))
		if err != nil || len(got) != 2 || got[0] != byte(i) || got[1] != byte(i) {
			t.Fatalf("file %d: %v %v", i, got, err)
		}
	}
	if n := db.CloseIdleBlobs(0); n == 0 || db.OpenBlobFiles() != 0 {
		t.Fatalf("CloseIdleBlobs closed %d, %d still open", n, db.OpenBlobFiles())
	}
}

// TestUsage: lines a peer sends and blobs it announces count in its usage,
// across a restart; dropping a mirrored thread gives its bytes back; a
// data directory of an earlier version gets its usage computed at open.
func TestUsage(t *testing.T) {
	db := mustOpen(t)
	p := keytest.NewPublic(t)
	own := ThreadKey{NS: NSOwn, Peer: p, Th: "thr_u"}
	mir := ThreadKey{NS: NSMirrored, Peer: p, Th: "thr_m"}
	db.update(func(tx *Tx) error {
		for _, tk := range []ThreadKey{own, mir} {
			tx.EnsureThread(tk, time.Date(2026, 9, 25, 17, 0, 0, 0, time.UTC))
			for _, dir := range []byte{DirIn, DirOut} {
				if _, err := tx.AppendLine(tk, Line{Dir: dir, From: p, Raw: []byte(`{"t":"msg","x":"0123456789"}`)}); err != nil {
					return err
				}
			}
		}
		b := &Blob{Dir: "in", Peer: p.String(), Ref: "blob_u", Size: 1000, File: InBlobFile(p, "blob_u"), Counted: true}
		tx.AddUsage(p, 0, b.Size)
		return tx.PutBlob(b)
	})
	line := int64(len(`{"t":"msg","x":"0123456789"}`))
	want := Usage{Lines: 3 * line, Blobs: 1000} // own: the inbound line; mirrored: both
	check := func(what string, want Usage) {
		t.Helper()
		db.view(func(tx *Tx) error {
			if got := tx.Usage(p); got != want {
				t.Fatalf("%s: usage %+v, want %+v", what, got, want)
			}
			return nil
		})
	}
	check("stored", want)
	db.reopen()
	check("after a restart", want)
	// An earlier version: no usage bucket; it is computed at open.
	db.update(func(tx *Tx) error { return tx.btx.DeleteBucket(bUsage) })
	db.reopen()
	check("computed at open", want)
	db.update(func(tx *Tx) error { return tx.DeleteThread(mir) })
	check("mirrored thread dropped", Usage{Lines: line, Blobs: 1000})
	db.update(func(tx *Tx) error {
		b, _ := tx.Blob("in", p, "blob_u")
		if err := tx.MarkCorrupt(b, ReasonExpired); err != nil {
			return err
		}
		return tx.PutBlob(b)
	})
	check("blob dropped", Usage{Lines: line})
}

// BenchmarkOutOfOrderChunk records a one-byte chunk at an even offset in
// a blob that already holds n such pieces (one transaction for all, as a
// batch would): the cost per chunk must not grow with n (it grew linearly
// when the ranges lived in the blob record, so a flood was quadratic).
func BenchmarkOutOfOrderChunk(b *testing.B) {
	for _, n := range []int{10, 1000, MaxBlobRanges - 100} {
		b.Run(fmt.Sprintf("ranges=%d", n), func(b *testing.B) {
			db := mustOpenOpts(b, b.TempDir(), Options{NoSync: true})
			p := keytest.NewPublic(b)
			size := int64(2*(n+b.N) + 10)
			blob := &Blob{Dir: "in", Peer: p.String(), Ref: "blob_b", Size: size, File: InBlobFile(p, "blob_b")}
			err := db.Update(func(tx *Tx) error {
				for i := 0; i < n; i++ {
					if err := tx.ApplyChunk(blob, int64(2*i+1), []byte{1}, false, time.Time{}); err != nil {
						return err
					}
				}
				return tx.PutBlob(blob)
			})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			err = db.Update(func(tx *Tx) error {
				for i := n; i < n+b.N; i++ {
					// A chunk's commit: read the record, add the range, write it.
					rec, _ := tx.Blob("in", p, "blob_b")
					if err := tx.ApplyChunk(rec, int64(2*(i%(MaxBlobRanges-n))+2*n+1), []byte{1}, false, time.Time{}); err != nil {
						return err
					}
					if err := tx.PutBlob(rec); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}
