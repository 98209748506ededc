package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/key/keytest"
)

// retFixture builds threads and blobs of known ages.
type retFixture struct {
	t   *testing.T
	db  *testDB
	now time.Time
}

// retNow is the fixed now of most retention tests.
var retNow = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// newRetFixture opens a store and returns a fixture on it at now, the store,
// and a peer key for its threads.
func newRetFixture(t *testing.T, now time.Time) (*retFixture, *testDB, key.PublicKey) {
	t.Helper()
	db := mustOpen(t)
	return &retFixture{t: t, db: db, now: now}, db, keytest.NewPublic(t)
}

func (f *retFixture) thread(p key.PublicKey, th string, age time.Duration, lines int, mine, theirs string) ThreadKey {
	k := ThreadKey{NS: NSOwn, Peer: p, Th: th}
	when := f.now.Add(-age)
	f.db.update(func(tx *Tx) error {
		t, _ := tx.EnsureThread(k, when)
		for i := range lines {
			if _, err := tx.AppendLine(k, Line{Dir: byte(i % 2), From: p, Stored: when, Raw: fmt.Appendf(nil, `{"i":%d}`, i)}); err != nil {
				return err
			}
		}
		t.Updated, t.Mine, t.Theirs = when, mine, theirs
		tx.Touch(k)
		return tx.MarkReceived(p, th, testID(lines))
	})
	return k
}

// blob records a blob of thread k with a file of size bytes.
func (f *retFixture) blob(k ThreadKey, dir, ref string, age time.Duration, size int, complete bool) string {
	rel := InBlobFile(k.Peer, ref)
	if dir == "out" {
		rel = OutBlobFile(ref)
	}
	if err := os.MkdirAll(f.db.Path("blobs/"+dir), 0o700); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(f.db.Path(rel), make([]byte, size), 0o600); err != nil {
		f.t.Fatal(err)
	}
	when := f.now.Add(-age)
	f.db.update(func(tx *Tx) error {
		return tx.PutBlob(&Blob{Dir: dir, Peer: k.Peer.String(), Ref: ref, Th: k.Th, Name: ref, Size: int64(size),
			Received: int64(size), Complete: complete, File: rel, Created: when, Updated: when})
	})
	return rel
}

func (f *retFixture) hasThread(k ThreadKey) bool {
	var ok bool
	f.db.view(func(tx *Tx) error { _, ok = tx.Thread(k); return nil })
	return ok
}

func (f *retFixture) lineCount(k ThreadKey) int {
	n := 0
	f.db.view(func(tx *Tx) error {
		tx.Lines(k, 0, func(Line) bool { n++; return true })
		return nil
	})
	return n
}

func (f *retFixture) hasBlob(dir string, p key.PublicKey, ref string) bool {
	var ok bool
	f.db.view(func(tx *Tx) error { _, ok = tx.Blob(dir, p, ref); return nil })
	return ok
}

func fileExists(t *testing.T, path string) bool {
	_, err := os.Stat(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return err == nil
}

const day = 24 * time.Hour

// TestSweepThreads: threads idle past KeepThreads go with their lines, seen
// id and blobs; younger ones stay; one with lines still in the outbox
// stays whatever its age; a run with retention off deletes nothing.
func TestSweepThreads(t *testing.T) {
	f, db, p := newRetFixture(t, retNow)
	old := f.thread(p, "thr_old", 100*day, 30, "", "")
	young := f.thread(p, "thr_young", 10*day, 5, "", "")
	queued := f.thread(p, "thr_queued", 200*day, 3, "", "")
	oldBlob := f.blob(old, "in", "blob_old", 100*day, 1000, true)
	db.update(func(tx *Tx) error {
		// My line of the old thread, never acked: its thread must stay.
		_, err := tx.AppendOutbox(p, Out{Th: queued.Th, ID: testID(99), LineSeq: 3, Raw: []byte(`{"i":2}`)})
		return err
	})

	if res, err := db.Sweep(f.now, Retention{}); err != nil || res.Changed() {
		t.Fatalf("retention off: %+v %v", res, err)
	}
	res, err := db.Sweep(f.now, Retention{KeepThreads: 90 * day})
	if err != nil {
		t.Fatal(err)
	}
	if res.Threads != 1 || res.Lines != 30 {
		t.Fatalf("sweep: %+v, want 1 thread of 30 lines", res)
	}
	if f.hasThread(old) || f.lineCount(old) != 0 {
		t.Fatal("old thread kept")
	}
	if !f.hasThread(young) || f.lineCount(young) != 5 {
		t.Fatal("young thread touched")
	}
	if !f.hasThread(queued) || f.lineCount(queued) != 3 {
		t.Fatal("thread with an unacked outbox line deleted")
	}
	db.view(func(tx *Tx) error {
		if tx.LastSeen(p, old.Th) != "" {
			t.Fatal("the deleted thread's last id is still listed for resume")
		}
		if tx.LastSeen(p, young.Th) == "" {
			t.Fatal("the kept thread lost its last id")
		}
		if out, _ := tx.Outbox(p, 0, 10); len(out) != 1 || string(out[0].Raw) != `{"i":2}` {
			t.Fatalf("outbox after the sweep: %+v", out)
		}
		if ths := tx.FindThreads(old.Th); len(ths) != 0 {
			t.Fatal("th index still names the deleted thread")
		}
		return nil
	})
	// Its blob: the record, then the file.
	if f.hasBlob("in", p, "blob_old") || fileExists(t, db.Path(oldBlob)) {
		t.Fatal("blob of the deleted thread kept")
	}
	if es, _ := db.RecentThreads(); len(es) != 2 {
		t.Fatalf("cache lists %d threads, want 2", len(es))
	}
	db.reopen()
	if f.hasThread(old) || !f.hasThread(queued) {
		t.Fatal("sweep not durable")
	}
	// Once the line is acked, the thread may go.
	db.update(func(tx *Tx) error {
		_, ok, err := tx.AckOutbox(p, queued.Th, testID(99))
		if !ok {
			t.Fatal("ack did not apply")
		}
		return err
	})
	if res, _ := db.Sweep(f.now, Retention{KeepThreads: 90 * day}); res.Threads != 1 || f.hasThread(queued) {
		t.Fatalf("acked old thread kept: %+v", res)
	}
}

// TestSweepBounded: a thread longer than SweepLines goes over several
// passes, each within the bound, and More says when another is due.
func TestSweepBounded(t *testing.T) {
	f, db, p := newRetFixture(t, retNow)
	big := f.thread(p, "thr_big", 400*day, SweepLines+SweepLines/2, "", "")
	small := f.thread(p, "thr_small", 300*day, 10, "", "")
	r := Retention{KeepThreads: 30 * day}
	res, err := db.Sweep(f.now, r)
	if err != nil {
		t.Fatal(err)
	}
	if res.Lines != SweepLines || res.Threads != 0 || !res.More {
		t.Fatalf("first pass: %+v, want %d lines, no thread, more", res, SweepLines)
	}
	if got := f.lineCount(big); got != SweepLines/2 {
		t.Fatalf("after one pass the big thread has %d lines, want %d", got, SweepLines/2)
	}
	if !f.hasThread(big) {
		t.Fatal("thread record gone before its lines")
	}
	res, err = db.Sweep(f.now, r)
	if err != nil {
		t.Fatal(err)
	}
	if res.Threads != 2 || res.Lines != SweepLines/2+10 || f.hasThread(big) || f.hasThread(small) {
		t.Fatalf("second pass: %+v", res)
	}
	if res, _ := db.Sweep(f.now, r); res.Changed() || res.More {
		t.Fatalf("third pass: %+v, want nothing", res)
	}
}

// TestSweepBlobs: KeepBlobs drops the blobs of closed threads idle past
// it (record, then file) and keeps the thread and its lines; it keeps
// blobs of open threads, of younger closed ones, blobs still arriving and
// blobs whose chunks may be queued.
func TestSweepBlobs(t *testing.T) {
	f, db, p := newRetFixture(t, retNow)
	closed := f.thread(p, "thr_closed", 40*day, 4, "done", "")
	closedTheirs := f.thread(p, "thr_closed2", 40*day, 4, "working", "closed")
	open := f.thread(p, "thr_open", 40*day, 4, "working", "waiting")
	recent := f.thread(p, "thr_recent", 5*day, 4, "done", "done")
	sending := f.thread(p, "thr_sending", 40*day, 4, "failed", "")
	a := f.blob(closed, "in", "blob_a", 40*day, 5000, true)
	b := f.blob(closedTheirs, "out", "blob_b", 40*day, 7000, true)
	c := f.blob(open, "in", "blob_c", 40*day, 100, true)
	d := f.blob(recent, "in", "blob_d", 5*day, 100, true)
	e := f.blob(closed, "in", "blob_e", 40*day, 100, false) // still arriving
	g := f.blob(sending, "out", "blob_g", 40*day, 100, true)
	db.update(func(tx *Tx) error {
		_, err := tx.AppendOutbox(p, Out{Th: sending.Th, ID: testID(50), Chunk: &ChunkRef{Ref: "blob_g", File: g, Len: 100, End: true}})
		return err
	})
	res, err := db.Sweep(f.now, Retention{KeepBlobs: 30 * day})
	if err != nil {
		t.Fatal(err)
	}
	if res.Blobs != 2 || res.BlobBytes != 12000 || res.Files != 2 || res.Threads != 0 || res.Lines != 0 {
		t.Fatalf("sweep: %+v, want blobs a and b (12000 bytes)", res)
	}
	for _, x := range []struct {
		dir, ref, file string
		kept           bool
	}{{"in", "blob_a", a, false}, {"out", "blob_b", b, false}, {"in", "blob_c", c, true}, {"in", "blob_d", d, true},
		{"in", "blob_e", e, true}, {"out", "blob_g", g, true}} {
		if f.hasBlob(x.dir, p, x.ref) != x.kept || fileExists(t, db.Path(x.file)) != x.kept {
			t.Errorf("%s: record %v, file %v; want kept = %v", x.ref, f.hasBlob(x.dir, p, x.ref), fileExists(t, db.Path(x.file)), x.kept)
		}
	}
	if f.lineCount(closed) != 4 || !f.hasThread(closed) {
		t.Fatal("KeepBlobs touched the thread")
	}
}

// TestSweepUnlinkAfterCrash: a pass that committed the records' deletion
// and died before removing the files leaves them listed; the next pass
// removes them (and never a file outside blobs/).
func TestSweepUnlinkAfterCrash(t *testing.T) {
	f, db, p := newRetFixture(t, time.Now())
	k := f.thread(p, "thr_x", 0, 1, "", "")
	rel := f.blob(k, "in", "blob_x", 0, 10, true)
	outside := db.Path("keep.me")
	if err := os.WriteFile(outside, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	db.update(func(tx *Tx) error {
		ul, err := tx.btx.CreateBucketIfNotExists(bUnlink)
		if err != nil {
			return err
		}
		for _, f := range []string{rel, "keep.me", "../keep.me", "blobs/../keep.me"} {
			if err := ul.Put([]byte(f), nil); err != nil {
				return err
			}
		}
		return nil
	})
	db.reopen()
	res, err := db.Sweep(time.Now(), Retention{})
	if err != nil {
		t.Fatal(err)
	}
	if fileExists(t, db.Path(rel)) || res.Files != 1 {
		t.Fatalf("listed blob file not removed: %+v", res)
	}
	if !fileExists(t, outside) {
		t.Fatal("a file outside blobs/ was removed")
	}
	db.view(func(tx *Tx) error {
		if k, _ := tx.btx.Bucket(bUnlink).Cursor().First(); k != nil {
			t.Fatalf("unlink list not emptied: %q", k)
		}
		return nil
	})
}

// TestSweepBlobsResume: more blob records than one pass looks at are all
// looked at, over passes that each say More until the last.
func TestSweepBlobsResume(t *testing.T) {
	f, db, p := newRetFixture(t, retNow)
	k := f.thread(p, "thr_closed", 60*day, 1, "closed", "")
	n := SweepBlobs*2 + 10
	db.update(func(tx *Tx) error {
		for i := range n {
			ref := fmt.Sprintf("blob_%04d", i)
			if err := tx.PutBlob(&Blob{Dir: "in", Peer: p.String(), Ref: ref, Th: k.Th, Size: 1, Complete: true,
				File: InBlobFile(p, ref), Updated: f.now.Add(-60 * day)}); err != nil {
				return err
			}
		}
		return nil
	})
	total, passes := 0, 0
	for {
		res, err := db.Sweep(f.now, Retention{KeepBlobs: day})
		if err != nil {
			t.Fatal(err)
		}
		total += res.Blobs
		passes++
		if res.Blobs > SweepBlobs {
			t.Fatalf("one pass dropped %d blobs, bound %d", res.Blobs, SweepBlobs)
		}
		if !res.More {
			break
		}
		if passes > 10 {
			t.Fatal("More never ends")
		}
	}
	if total != n || passes != 3 {
		t.Fatalf("dropped %d of %d blobs in %d passes", total, n, passes)
	}
}

// TestSweepUsage: what retention deletes leaves the sender's usage (its
// quota), whether a thread goes in one pass or over several, and a kept
// blob's size with its record.
func TestSweepUsage(t *testing.T) {
	f, db, p := newRetFixture(t, retNow)
	k := f.thread(p, "thr_u", 100*day, 40, "done", "done")
	f.blob(k, "in", "blob_u", 100*day, 5000, true)
	db.update(func(tx *Tx) error {
		b, _ := tx.Blob("in", p, "blob_u")
		b.Counted = true
		tx.AddUsage(p, 0, b.Size)
		return tx.PutBlob(b)
	})
	usage := func() (u Usage) {
		db.view(func(tx *Tx) error { u = tx.Usage(p); return nil })
		return u
	}
	var want int64 // the fixture's in lines (even i) are charged
	for i := 0; i < 40; i += 2 {
		want += int64(len(fmt.Sprintf(`{"i":%d}`, i)))
	}
	if u := usage(); u.Lines != want || u.Blobs != 5000 {
		t.Fatalf("usage before: %+v, want %d line bytes and 5000 blob bytes", u, want)
	}
	// A pass that stops inside the thread (as one over SweepLines does).
	db.update(func(tx *Tx) error {
		n, whole, err := tx.dropThreadLines(k, 11)
		if n != 11 || whole {
			t.Fatalf("dropThreadLines: %d, whole %v", n, whole)
		}
		return err
	})
	var gone int64
	for i := 0; i < 11; i += 2 {
		gone += int64(len(fmt.Sprintf(`{"i":%d}`, i)))
	}
	if u := usage(); u.Lines != want-gone {
		t.Fatalf("usage after 11 lines went: %d, want %d", u.Lines, want-gone)
	}
	if _, err := db.Sweep(f.now, Retention{KeepThreads: 90 * day}); err != nil {
		t.Fatal(err)
	}
	if u := usage(); u.Lines != 0 || u.Blobs != 0 {
		t.Fatalf("usage after the thread and its blob went: %+v, want none", u)
	}
}
