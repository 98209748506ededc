package store

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer/key/keytest"
	bolt "go.etcd.io/bbolt"
)

// dumpStore writes every bucket (with its sequence) and key of dir's
// awp.db, in order: two stores with the same dump hold the same data.
func dumpStore(t *testing.T, dir string) string {
	t.Helper()
	bdb, err := bolt.Open(filepath.Join(dir, "awp.db"), 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	var b strings.Builder
	err = bdb.View(func(tx *bolt.Tx) error {
		return walkBuckets(tx, func(path [][]byte, k, v []byte, seq uint64) error {
			fmt.Fprintf(&b, "%x/%x", bytes.Join(path, []byte("/")), k)
			if v == nil {
				fmt.Fprintf(&b, " bucket seq %d\n", seq)
			} else {
				fmt.Fprintf(&b, " = %x\n", v)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// fillStore writes threads of lines, outboxes, blobs records and settings,
// then deletes most threads (leaving free pages for compaction to drop).
func fillStore(t *testing.T, db *testDB, threads, lines int) {
	t.Helper()
	p := keytest.NewPublic(t)
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	var keys []ThreadKey
	for i := range threads {
		k := ThreadKey{NS: NSOwn, Peer: p, Th: fmt.Sprintf("thr_%04d", i)}
		keys = append(keys, k)
		db.update(func(tx *Tx) error {
			tx.EnsureThread(k, now)
			for j := range lines {
				seq, err := tx.AppendLine(k, Line{Dir: DirOut, From: p, Stored: now, Raw: fmt.Appendf(nil, `{"t":"msg","th":%q,"n":%d,"pad":"%0200d"}`, k.Th, j, j)})
				if err != nil {
					return err
				}
				if j == lines-1 {
					if _, err := tx.AppendOutbox(p, Out{Th: k.Th, ID: testID(i*lines + j), LineSeq: seq, Raw: fmt.Appendf(nil, `{"t":"msg","th":%q,"n":%d,"pad":"%0200d"}`, k.Th, j, j)}); err != nil {
						return err
					}
				}
			}
			if err := tx.MarkReceived(p, k.Th, testID(i)); err != nil {
				return err
			}
			return tx.PutBlob(&Blob{Dir: "in", Peer: p.String(), Ref: fmt.Sprint("blob_", i), Th: k.Th, Complete: true, File: InBlobFile(p, fmt.Sprint("blob_", i))})
		})
	}
	db.update(func(tx *Tx) error {
		for i, k := range keys {
			if i%4 != 0 {
				if err := tx.DeleteThread(k); err != nil {
					return err
				}
			}
		}
		return tx.PutRetention(Retention{KeepThreads: 90 * day})
	})
}

// TestCompact: the file shrinks, every key, value and bucket sequence is
// kept (a new line takes the next seq, not one in use), and the store
// opens without a free-list walk.
func TestCompact(t *testing.T) {
	dir := t.TempDir()
	db := mustOpenDir(t, dir)
	fillStore(t, db, 200, 40)
	db.mustClose()
	before := dumpStore(t, dir)
	fi, _ := os.Stat(filepath.Join(dir, "awp.db"))
	var reports []CompactProgress
	res, err := Compact(dir, func(p CompactProgress) { reports = append(reports, p) })
	if err != nil {
		t.Fatal(err)
	}
	if res.SrcBytes != fi.Size() || res.DstBytes >= res.SrcBytes/2 {
		t.Fatalf("compacted %d → %d bytes; want under half (most threads were deleted)", res.SrcBytes, res.DstBytes)
	}
	if fi2, _ := os.Stat(filepath.Join(dir, "awp.db")); fi2.Size() != res.DstBytes {
		t.Fatalf("awp.db is %d bytes, the result says %d", fi2.Size(), res.DstBytes)
	}
	if after := dumpStore(t, dir); after != before {
		t.Fatal("compaction changed the data")
	}
	if len(reports) < 2 || reports[0].Keys != 0 || reports[len(reports)-1].Keys != reports[0].TotalKeys || res.Keys != reports[0].TotalKeys {
		t.Fatalf("progress: %d reports, first %+v, last %+v, result %d keys", len(reports), reports[0], reports[len(reports)-1], res.Keys)
	}
	for i := 1; i < len(reports); i++ {
		if reports[i].Keys < reports[i-1].Keys {
			t.Fatal("progress went backwards")
		}
	}
	if currentMeta(t, filepath.Join(dir, "awp.db")) == ^uint64(0) {
		t.Fatal("the compacted file has no free list: its first Open walks it")
	}
	if _, err := os.Stat(filepath.Join(dir, "awp.db"+compactSuffix)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("temporary file left behind")
	}
	db.reopen()
	k := ThreadKey{NS: NSOwn, Peer: firstThread(t, db).Peer, Th: "thr_0000"}
	db.update(func(tx *Tx) error {
		seq, err := tx.AppendLine(k, Line{Raw: []byte(`{"new":1}`)})
		if seq != 41 {
			t.Fatalf("a new line after compaction got seq %d, want 41", seq)
		}
		return err
	})
	db.view(func(tx *Tx) error {
		if r := tx.Retention(); r.KeepThreads != 90*day {
			t.Fatalf("setting lost: %+v", r)
		}
		return nil
	})
}

func firstThread(t *testing.T, db *testDB) (p ThreadKey) {
	t.Helper()
	db.view(func(tx *Tx) error {
		return tx.Threads(func(k ThreadKey, _ *Thread) bool { p = k; return false })
	})
	return p
}

// TestCompactRefused: not while the store is open (a running node), and
// not where there is no store (it does not make one).
func TestCompactRefused(t *testing.T) {
	dir := t.TempDir()
	db := mustOpenDir(t, dir)
	_, err := Compact(dir, nil)
	if !errors.Is(err, ErrAlreadyRunning) {
		t.Fatalf("compact of an open store: %v, want ErrAlreadyRunning", err)
	}
	db.mustClose()
	empty := t.TempDir()
	if _, err := Compact(empty, nil); !errors.Is(err, ErrNoStore) {
		t.Fatalf("compact of an empty dir: %v, want ErrNoStore", err)
	}
	if _, err := os.Stat(filepath.Join(empty, "awp.db")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("compact made a store")
	}
}

// TestCompactCrashChild is the child of TestCompactCrash: it compacts
// $AWP_COMPACT_DIR until killed.
func TestCompactCrashChild(t *testing.T) {
	dir := os.Getenv("AWP_COMPACT_DIR")
	if dir == "" {
		t.Skip("child of TestCompactCrash")
	}
	fmt.Println("started")
	if _, err := Compact(dir, nil); err != nil {
		t.Fatal(err)
	}
	fmt.Println("done")
}

// TestCompactCrash kills a compaction at random points and checks the
// store each time: it opens, holds exactly what it held (whichever file
// survived), passes bbolt's check, and a leftover temporary file is gone.
// make test-long runs more kills (AWP_LONG=1).
func TestCompactCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	dir := t.TempDir()
	db := mustOpenDir(t, dir)
	fillStore(t, db, 600, 60)
	db.mustClose()
	want := dumpStore(t, dir)

	// How long one compaction takes here, to spread the kills over it.
	t0 := time.Now()
	if _, err := Compact(dir, nil); err != nil {
		t.Fatal(err)
	}
	took := time.Since(t0)
	iters := 6
	if os.Getenv("AWP_LONG") != "" {
		iters = 30
	}
	swapped, midway := 0, 0
	for i := range iters {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestCompactCrashChild$", "-test.v")
		cmd.Env = append(os.Environ(), "AWP_COMPACT_DIR="+dir)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The kill lands after the child has started compacting.
		r := bufio.NewReader(stdout)
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("child: %v", err)
			}
			if strings.HasPrefix(l, "started") {
				break
			}
		}
		delay := time.Duration(rand.Int64N(int64(took)*6/5 + 1))
		time.Sleep(delay)
		_ = cmd.Process.Kill()
		if _, err := os.Stat(filepath.Join(dir, "awp.db"+compactSuffix)); err == nil {
			midway++ // killed while copying
		}
		rest, _ := io.ReadAll(r)
		_ = cmd.Wait()
		if strings.Contains(string(rest), "done") {
			swapped++
		}
		out := string(rest)
		d, err := Open(dir, Options{})
		if err != nil {
			t.Fatalf("kill %d after %v: open: %v\n%s", i, delay, err, out)
		}
		if err := d.Check(); err != nil {
			t.Fatalf("kill %d after %v: check: %v", i, delay, err)
		}
		// Close without the store's own last commit, so the dump below
		// sees the file as the kill left it (Open removed any leftover).
		if err := d.db.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, "awp.db"+compactSuffix)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("kill %d: temporary file left after Open", i)
		}
		if got := dumpStore(t, dir); got != want {
			t.Fatalf("kill %d after %v: the store's data changed", i, delay)
		}
	}
	t.Logf("%d kills up to %v into a compaction (one takes %v here): %d while copying, %d after the swap", iters, took*6/5, took, midway, swapped)
	if midway == 0 {
		t.Fatal("no kill landed while copying: the test tested nothing")
	}
}

// TestCompactDamaged: a file that is not a store, an empty one and a store
// whose pages are damaged each give a clear error, and the file is left
// byte for byte as it was, with no copy behind.
func TestCompactDamaged(t *testing.T) {
	good := t.TempDir()
	db := mustOpenDir(t, good)
	fillStore(t, db, 40, 20)
	db.mustClose()
	store, err := os.ReadFile(filepath.Join(good, "awp.db"))
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	// Every page after the two meta pages overwritten: the meta pages
	// still check, so bbolt opens it and meets the damage on the way.
	pages := bytes.Clone(store)
	for i := 2 * page; i < len(pages); i++ {
		pages[i] = 0xa5
	}
	// The root page of the buckets overwritten (the newest meta page's
	// root): the store opens, and the walk meets the damage.
	root := bytes.Clone(store)
	var rootPg, bestTx uint64
	for _, off := range []int{0, page} {
		m := root[off+16:] // past the page header
		if tx := binary.LittleEndian.Uint64(m[48:]); tx >= bestTx {
			rootPg, bestTx = binary.LittleEndian.Uint64(m[16:]), tx
		}
	}
	copy(root[rootPg*page:(rootPg+1)*page], bytes.Repeat([]byte{0xff}, page))
	for _, c := range []struct {
		name string
		data []byte
		want error
	}{
		{"text", []byte(strings.Repeat("not a database\n", 1000)), ErrDamaged},
		{"short", []byte("bolt"), ErrDamaged},
		{"empty", nil, ErrNoStore},
		{"pages", pages, ErrDamaged},
		{"root", root, ErrDamaged},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "awp.db")
			if err := os.WriteFile(path, c.data, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Compact(dir, nil)
			if !errors.Is(err, c.want) {
				t.Fatalf("Compact: %v, want %v", err, c.want)
			}
			t.Logf("error: %v", err)
			if got, _ := os.ReadFile(path); !bytes.Equal(got, c.data) {
				t.Fatal("the file changed although compaction failed")
			}
			if _, err := os.Stat(path + compactSuffix); !errors.Is(err, os.ErrNotExist) {
				t.Fatal("the copy was left behind")
			}
		})
	}
}
