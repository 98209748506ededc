package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer/key/keytest"
)

// scanThreads is the truth the cache must match: every record in the file.
func scanThreads(t *testing.T, db *testDB) map[ThreadKey]Thread {
	t.Helper()
	out := map[ThreadKey]Thread{}
	db.view(func(tx *Tx) error {
		return tx.Threads(func(k ThreadKey, th *Thread) bool {
			out[k] = *th
			return true
		})
	})
	return out
}

// cached returns RecentThreads as a map, checking its order.
func cached(t *testing.T, db *testDB) map[ThreadKey]Thread {
	t.Helper()
	es, err := db.RecentThreads()
	if err != nil {
		t.Fatal(err)
	}
	out := map[ThreadKey]Thread{}
	for i, e := range es {
		if i > 0 && es[i-1].Thread.Updated.Before(e.Thread.Updated) {
			t.Fatalf("RecentThreads not newest first at %d: %v before %v", i, es[i-1].Thread.Updated, e.Thread.Updated)
		}
		out[e.Key] = e.Thread
	}
	return out
}

func sameThreads(t *testing.T, what string, got, want map[ThreadKey]Thread) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d threads, want %d", what, len(got), len(want))
	}
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			t.Fatalf("%s: %s missing", what, k.Th)
		}
		// Times compare as instants (a decoded time may differ in location).
		if !g.Updated.Equal(w.Updated) || !g.Created.Equal(w.Created) {
			t.Fatalf("%s: %s times %v/%v, want %v/%v", what, k.Th, g.Updated, g.Created, w.Updated, w.Created)
		}
		g.Updated, g.Created, w.Updated, w.Created = time.Time{}, time.Time{}, time.Time{}, time.Time{}
		if !reflect.DeepEqual(g, w) {
			t.Fatalf("%s: %s\n got %+v\nwant %+v", what, k.Th, g, w)
		}
	}
}

// TestRecentThreads: the cache lists every thread newest first and follows
// commits (new, changed, deleted threads), but not transactions that fail.
func TestRecentThreads(t *testing.T) {
	db := mustOpen(t)
	p := keytest.NewPublic(t)
	base := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	keys := make([]ThreadKey, 20)
	db.update(func(tx *Tx) error {
		for i := range keys {
			keys[i] = ThreadKey{NS: NSOwn, Peer: p, Th: fmt.Sprintf("thr_%02d", i)}
			th, _ := tx.EnsureThread(keys[i], base)
			th.Updated = base.Add(time.Duration((i*7)%20) * time.Hour)
			th.Subject = fmt.Sprint("s", i)
			tx.Touch(keys[i])
		}
		return nil
	})
	sameThreads(t, "after create", cached(t, db), scanThreads(t, db))

	// Loaded now: later commits change it.
	db.update(func(tx *Tx) error {
		th, _ := tx.Thread(keys[3])
		th.Updated = base.Add(100 * time.Hour)
		th.Unread = 7
		tx.Touch(keys[3])
		return tx.DeleteThread(keys[5])
	})
	es, _ := db.RecentThreads()
	if es[0].Key != keys[3] || es[0].Thread.Unread != 7 {
		t.Fatalf("changed thread not first: %+v", es[0])
	}
	got := cached(t, db)
	if _, ok := got[keys[5]]; ok {
		t.Fatal("deleted thread still listed")
	}
	sameThreads(t, "after change", got, scanThreads(t, db))

	// A failed transaction leaves the cache as the file is.
	boom := errors.New("boom")
	err := db.Update(func(tx *Tx) error {
		th, _ := tx.Thread(keys[4])
		th.Subject = "never"
		tx.Touch(keys[4])
		if err := tx.flush(); err != nil { // noted for the cache, then rolled back
			return err
		}
		_, _ = tx.EnsureThread(ThreadKey{NS: NSOwn, Peer: p, Th: "thr_never"}, base)
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatal(err)
	}
	sameThreads(t, "after rollback", cached(t, db), scanThreads(t, db))

	// Entries handed out are not changed by later commits.
	before, _ := db.RecentThreads()
	first := *before[0]
	db.update(func(tx *Tx) error {
		th, _ := tx.Thread(first.Key)
		th.Subject = "changed"
		tx.Touch(first.Key)
		return nil
	})
	if before[0].Thread.Subject != first.Thread.Subject {
		t.Fatal("a listing handed out changed under its holder")
	}
}

// currentMeta reads the freelist page id of the current bbolt meta page:
// common.PgidNoFreelist (all ones) when the last commit did not write it.
func currentMeta(t *testing.T, path string) (freelist uint64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const pageHdr = 16
	// meta: magic, version, pageSize, flags (4 each), root bucket (16),
	// freelist (8), pgid (8), txid (8), checksum (8).
	ps := int(binary.LittleEndian.Uint32(b[pageHdr+8:]))
	var best, bestTx uint64
	for _, off := range []int{0, ps} {
		m := b[off+pageHdr:]
		if tx := binary.LittleEndian.Uint64(m[48:]); tx >= bestTx {
			best, bestTx = binary.LittleEndian.Uint64(m[32:]), tx
		}
	}
	return best
}

// TestFreelistSavedAtClose: a closed store's last commit wrote the free
// list (the next Open reads it instead of walking every page); a store
// left without Close (a crash) has none, and still opens.
func TestFreelistSavedAtClose(t *testing.T) {
	dir := t.TempDir()
	db := mustOpenDir(t, dir)
	p := keytest.NewPublic(t)
	k := ThreadKey{NS: NSOwn, Peer: p, Th: "thr_a"}
	db.update(func(tx *Tx) error {
		tx.EnsureThread(k, time.Now())
		for range 1000 {
			if _, err := tx.AppendLine(k, Line{Raw: make([]byte, 300)}); err != nil {
				return err
			}
		}
		return nil
	})
	if currentMeta(t, filepath.Join(dir, "awp.db")) != ^uint64(0) {
		t.Fatal("a running store's commits wrote the free list (NoFreelistSync is off?)")
	}
	db.mustClose()
	if currentMeta(t, filepath.Join(dir, "awp.db")) == ^uint64(0) {
		t.Fatal("Close did not write the free list: the next Open walks the whole file")
	}
	db.reopen()
	// A crash: a commit, then the file closed without the store's Close.
	db.update(func(tx *Tx) error {
		_, err := tx.AppendLine(k, Line{Raw: []byte("x")})
		return err
	})
	if err := db.DB.db.Close(); err != nil {
		t.Fatal(err)
	}
	if currentMeta(t, filepath.Join(dir, "awp.db")) != ^uint64(0) {
		t.Fatal("the commit after Open kept a free list that is no longer right")
	}
	d2, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.DB = d2
	db.view(func(tx *Tx) error {
		if th, _ := tx.Thread(k); th.LastSeq != 1001 {
			t.Fatalf("after the crash: last seq %d, want 1001", th.LastSeq)
		}
		return nil
	})
}

// TestThreadSnapshot: Close stores the loaded cache; the next run loads it
// from there; the first commit changing a thread drops it in the same
// transaction, so a crash after it leaves no stale snapshot.
func TestThreadSnapshot(t *testing.T) {
	dir := t.TempDir()
	db := mustOpenDir(t, dir)
	p := keytest.NewPublic(t)
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	db.update(func(tx *Tx) error {
		for i := range 50 {
			k := ThreadKey{NS: byte(i % 2), Peer: p, Th: fmt.Sprintf("thr_%d", i)}
			th, _ := tx.EnsureThread(k, now)
			th.Updated, th.Subject, th.Mirror, th.LastSeq = now.Add(time.Duration(i)*time.Minute), fmt.Sprint("subject ", i), i%3 == 0, uint64(i)
			tx.Touch(k)
		}
		return nil
	})
	hasSnap := func() bool {
		var ok bool
		db.view(func(tx *Tx) error { ok = tx.Meta(string(snapKey)) != nil; return nil })
		return ok
	}
	db.reopen() // the cache was never loaded: nothing to store
	if hasSnap() {
		t.Fatal("snapshot stored without a loaded cache")
	}
	want := scanThreads(t, db)
	cached(t, db)
	db.reopen()
	if !hasSnap() || !db.thr.snap {
		t.Fatal("Close did not store the loaded cache")
	}
	sameThreads(t, "from the snapshot", cached(t, db), want)

	// A run that changes nothing keeps it.
	db.reopen()
	if !hasSnap() {
		t.Fatal("snapshot lost by a run that changed no thread")
	}
	// A change drops it in its own transaction; a crash then leaves none.
	k := ThreadKey{NS: NSOwn, Peer: p, Th: "thr_4"}
	db.update(func(tx *Tx) error {
		th, _ := tx.Thread(k)
		th.Subject = "changed after the snapshot"
		tx.Touch(k)
		return nil
	})
	if hasSnap() {
		t.Fatal("a thread changed and the snapshot stayed")
	}
	if err := db.DB.db.Close(); err != nil { // the crash
		t.Fatal(err)
	}
	d2, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.DB = d2
	if db.thr.snap {
		t.Fatal("snapshot present after the crash")
	}
	want = scanThreads(t, db)
	if want[k].Subject != "changed after the snapshot" {
		t.Fatal("change lost")
	}
	sameThreads(t, "after the crash", cached(t, db), want)

	// An unreadable snapshot is passed over for the records.
	db.reopen()
	db.update(func(tx *Tx) error { return tx.PutMeta(string(snapKey), []byte("awp-threads-1\ngarbage")) })
	db.DB.thr.snap = true
	if err := db.DB.db.Close(); err != nil {
		t.Fatal(err)
	}
	d3, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.DB = d3
	sameThreads(t, "with a bad snapshot", cached(t, db), want)
}

// TestThreadFieldsInSnapshot: every Thread field survives the snapshot
// (gob takes exported fields; this fails if one is added unexported or
// of a type gob drops).
func TestThreadFieldsInSnapshot(t *testing.T) {
	var th Thread
	v := reflect.ValueOf(&th).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString("x" + v.Type().Field(i).Name)
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(i + 1))
		case reflect.Uint64:
			f.SetUint(uint64(i + 1))
		case reflect.Struct:
			f.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC).Add(time.Duration(i) * time.Hour)))
		default:
			t.Fatalf("Thread.%s has a kind this test does not fill: teach it", v.Type().Field(i).Name)
		}
	}
	db := mustOpen(t)
	k := ThreadKey{NS: NSOwn, Peer: keytest.NewPublic(t), Th: "thr_x"}
	db.update(func(tx *Tx) error {
		got, _ := tx.EnsureThread(k, time.Now())
		*got = th
		tx.Touch(k)
		return nil
	})
	cached(t, db)
	db.reopen()
	sameThreads(t, "all fields", cached(t, db), map[ThreadKey]Thread{k: th})
}

// TestLinesLast: the last n lines, in order, read from the end.
func TestLinesLast(t *testing.T) {
	db := mustOpen(t)
	k := ThreadKey{NS: NSOwn, Peer: keytest.NewPublic(t), Th: "thr_long"}
	db.update(func(tx *Tx) error {
		tx.EnsureThread(k, time.Now())
		for i := 1; i <= 1000; i++ {
			if _, err := tx.AppendLine(k, Line{Raw: fmt.Appendf(nil, `{"n":%d}`, i)}); err != nil {
				return err
			}
		}
		return nil
	})
	seqs := func(n int) []uint64 {
		var out []uint64
		db.view(func(tx *Tx) error {
			tx.LinesLast(k, n, func(l Line) bool {
				if string(l.Raw) != fmt.Sprintf(`{"n":%d}`, l.Seq) {
					t.Fatalf("line %d holds %s", l.Seq, l.Raw)
				}
				out = append(out, l.Seq)
				return true
			})
			return nil
		})
		return out
	}
	got := seqs(200)
	if len(got) != 200 || got[0] != 801 || got[199] != 1000 {
		t.Fatalf("last 200: %d lines, %v … %v", len(got), got[:1], got[len(got)-1:])
	}
	for i := 1; i < len(got); i++ {
		if got[i] != got[i-1]+1 {
			t.Fatalf("out of order at %d: %v", i, got[i-1:i+1])
		}
	}
	if got := seqs(5000); len(got) != 1000 || got[0] != 1 {
		t.Fatalf("more than held: %d lines from %d", len(got), got[0])
	}
	if got := seqs(0); len(got) != 0 {
		t.Fatal("n = 0 gave lines")
	}
	db.view(func(tx *Tx) error {
		n := 0
		tx.LinesLast(ThreadKey{NS: NSOwn, Peer: k.Peer, Th: "thr_none"}, 10, func(Line) bool { n++; return true })
		tx.LinesLast(k, 10, func(Line) bool { n++; return n < 3 }) // stops when told
		if n != 3 {
			t.Fatalf("got %d lines, want 3", n)
		}
		return nil
	})
}

// TestReaderSeesCacheOfWhatItReads: a reader whose transaction holds a
// commit finds that commit in the thread list too (the MCP inbox reads the
// lines, then the list: a line in one and not the other was handed out
// late, or marked read unseen).
func TestReaderSeesCacheOfWhatItReads(t *testing.T) {
	db := mustOpen(t)
	tk := ThreadKey{NS: NSOwn, Peer: keytest.NewPublic(t), Th: "thr_race"}
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	if _, err := db.RecentThreads(); err != nil { // loaded: commits apply to it
		t.Fatal(err)
	}
	const n = 2000
	done, stop := make(chan struct{}), make(chan struct{})
	defer func() { close(stop); <-done }()
	go func() {
		defer close(done)
		for i := 0; i < n; i++ {
			select {
			case <-stop:
				return
			default:
			}
			db.update(func(tx *Tx) error {
				th, _ := tx.EnsureThread(tk, now)
				th.Unread++
				tx.Touch(tk)
				return nil
			})
		}
	}()
	for running, behind := true, 0; running; {
		select {
		case <-done:
			running = false
		default:
		}
		var inFile int
		db.view(func(tx *Tx) error {
			if th, ok := tx.Thread(tk); ok {
				inFile = th.Unread
			}
			return nil
		})
		es, err := db.RecentThreads()
		if err != nil {
			t.Fatal(err)
		}
		listed := 0
		for _, e := range es {
			if e.Key == tk {
				listed = e.Thread.Unread
			}
		}
		if listed < inFile {
			behind++
			t.Errorf("the file holds unread %d, the thread list %d (%d times)", inFile, listed, behind)
			if behind > 3 {
				return
			}
		}
	}
}

// A write transaction reads a thread's record from the loaded cache: what
// the last commit left, a copy its changes do not leak from (a failed
// transaction's in-place change is gone), and nothing of a thread it has
// deleted itself.
func TestWriteTxThreadFromCache(t *testing.T) {
	db := mustOpen(t)
	now := time.Date(2026, 9, 25, 17, 3, 11, 0, time.UTC)
	k := ThreadKey{NS: NSOwn, Peer: keytest.NewPublic(t), Th: "thr_aaaa"}
	db.update(func(tx *Tx) error {
		th, _ := tx.EnsureThread(k, now)
		th.Subject = "committed"
		return nil
	})
	if _, err := db.RecentThreads(); err != nil { // loads the cache
		t.Fatal(err)
	}
	if _, _, known := db.thr.committed(string(k.bytes())); !known {
		t.Fatal("the cache is not loaded")
	}
	errFail := errors.New("fail on purpose")
	if err := db.Update(func(tx *Tx) error {
		th, ok := tx.Thread(k)
		if !ok || th.Subject != "committed" {
			t.Fatalf("Thread = %+v, %v; want the committed record", th, ok)
		}
		th.Subject = "rolled back"
		tx.Touch(k)
		return errFail
	}); !errors.Is(err, errFail) {
		t.Fatalf("Update = %v", err)
	}
	db.update(func(tx *Tx) error {
		th, ok := tx.Thread(k)
		if !ok || th.Subject != "committed" {
			t.Fatalf("after a failed transaction Thread = %+v, %v; want the committed record", th, ok)
		}
		th.Subject, th.Unread = "changed", 3
		tx.Touch(k)
		return nil
	})
	db.update(func(tx *Tx) error {
		if th, ok := tx.Thread(k); !ok || th.Subject != "changed" || th.Unread != 3 {
			t.Fatalf("Thread = %+v, %v; want the last commit's change", th, ok)
		}
		if err := tx.DeleteThread(k); err != nil {
			return err
		}
		if th, ok := tx.Thread(k); ok {
			t.Fatalf("Thread after DeleteThread in the same transaction = %+v", th)
		}
		return nil
	})
	db.update(func(tx *Tx) error {
		if th, ok := tx.Thread(k); ok {
			t.Fatalf("Thread of a deleted thread = %+v", th)
		}
		return nil
	})
	sameThreads(t, "cache", cached(t, db), scanThreads(t, db))
}
