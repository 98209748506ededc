package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/internal/bytesize"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/localapi/localapitest"
	"github.com/awp-tray/awp-tray/peer/store"
)

// TestCompactCmd: `awp compact` refuses where there is no store and while
// a peer runs on the data directory (its socket answers, or only its store
// lock is held), and otherwise compacts with progress on stderr and the
// result as JSON on stdout.
func TestCompactCmd(t *testing.T) {
	ctx := context.Background()
	empty := localapitest.ShortTempDir(t)
	if code, _, errs := awp(t, ctx, "compact", "--data", empty); code != exitFail || !strings.Contains(errs, "no store") {
		t.Fatalf("empty dir: exit %d, %q", code, errs)
	}

	// Not a store: a clear error, and the file as it was.
	junk := localapitest.ShortTempDir(t)
	garbage := []byte(strings.Repeat("this is not a database\n", 500))
	if err := os.WriteFile(filepath.Join(junk, "awp.db"), garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := awp(t, ctx, "compact", "--data", junk); code != exitFail || !strings.Contains(errs, "cannot be read") || !strings.Contains(errs, "left as it is") {
		t.Fatalf("garbage: exit %d, %q", code, errs)
	}
	if got, _ := os.ReadFile(filepath.Join(junk, "awp.db")); string(got) != string(garbage) {
		t.Fatal("compact changed a file it could not read")
	}

	_, running := serveFake(t)
	if err := os.WriteFile(filepath.Join(running, "awp.db"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := awp(t, ctx, "compact", "--data", running); code != exitFail || !strings.Contains(errs, "a peer is running") {
		t.Fatalf("running peer: exit %d, %q", code, errs)
	}

	dir := localapitest.ShortTempDir(t)
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	k, _ := key.NewPrivate()
	err = db.Update(func(tx *store.Tx) error {
		for i := range 300 {
			tk := store.ThreadKey{NS: store.NSOwn, Peer: k.Public(), Th: fmt.Sprintf("thr_%d", i)}
			tx.EnsureThread(tk, time.Now())
			for range 50 {
				if _, err := tx.AppendLine(tk, store.Line{Raw: make([]byte, 200)}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Held open (a node without its socket): the store's lock refuses.
	if code, _, errs := awp(t, ctx, "compact", "--data", dir); code != exitFail || !strings.Contains(errs, "a peer is running") {
		t.Fatalf("store held: exit %d, %q", code, errs)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	code, out, errs := awp(t, ctx, "compact", "--data", dir, "--json")
	if code != exitOK {
		t.Fatalf("compact: exit %d, %q", code, errs)
	}
	if !strings.HasPrefix(errs, "compacting "+dir+"/awp.db") || !strings.Contains(errs, "100%") || !strings.Contains(errs, "done in") {
		t.Fatalf("progress on stderr: %q", errs)
	}
	var res struct {
		Keys   int64 `json:"keys"`
		Before int64 `json:"bytes_before"`
		After  int64 `json:"bytes_after"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Keys < 15000 || res.Before <= 0 || res.After <= 0 {
		t.Fatalf("stdout %q: %v", out, err)
	}
	// Sizes in units a person reads (a small store read "0.0 MB -> 0.0 MB").
	if want := ": " + bytesize.Format(res.Before) + " -> " + bytesize.Format(res.After) + " ("; !strings.Contains(errs, want) {
		t.Fatalf("done line lacks %q: %q", want, errs)
	}
	db, err = store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if ths, _ := db.RecentThreads(); len(ths) != 300 {
		t.Fatalf("%d threads after compact, want 300", len(ths))
	}
	// Every line is there (peer/store's TestCompact compares every key).
	err = db.View(func(tx *store.Tx) error {
		for i := range 300 {
			tk := store.ThreadKey{NS: store.NSOwn, Peer: k.Public(), Th: fmt.Sprintf("thr_%d", i)}
			n := 0
			tx.Lines(tk, 0, func(store.Line) bool { n++; return true })
			if n != 50 {
				return fmt.Errorf("%s: %d lines after compact, want 50", tk.Th, n)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRetentionCmd: bad durations are usage errors (`awp retention` and
// `awp run`); `awp retention` prints and changes the peer's setting;
// `awp run` passes the flags to the node's Config.
func TestRetentionCmd(t *testing.T) {
	ctx := context.Background()
	_, dir := serveFake(t)
	for _, args := range [][]string{
		{"retention", "--data", dir, "--keep-threads", "ninety"},
		{"retention", "--data", dir, "--keep-blobs", "-3d"},
		{"run", "--data", dir, "--keep-threads", "soon"},
	} {
		code, _, errs := awp(t, ctx, args...)
		if code != exitUsage || !strings.Contains(errs, "--keep-") {
			t.Fatalf("%v: exit %d, %q", args, code, errs)
		}
	}
	if code, out, errs := awp(t, ctx, "retention", "--data", dir); code != exitOK || out != "keep threads: off\nkeep blobs of closed threads: off\n" {
		t.Fatalf("awp retention: exit %d, %q, %q", code, out, errs)
	}
	if code, out, errs := awp(t, ctx, "retention", "--data", dir, "--keep-threads", "90d", "--json"); code != exitOK || out != "{\"keep_threads\":\"90d\",\"keep_blobs\":\"off\"}\n" {
		t.Fatalf("awp retention --keep-threads 90d --json: exit %d, %q, %q", code, out, errs)
	}
	fs := newFlags("run")
	var o runOptions
	o.flags(fs)
	if _, err := fs.parse([]string{"--keep-threads", "90d"}); err != nil {
		t.Fatal(err)
	}
	if err := o.check(); err != nil {
		t.Fatal(err)
	}
	k, _ := key.NewPrivate()
	cfg := o.config(k, "/d", "/w", []string{defaultListen}, slogDiscard())
	if cfg.KeepThreads == nil || *cfg.KeepThreads != 90*24*time.Hour || cfg.KeepBlobs != nil {
		t.Fatalf("config: keep threads %v, keep blobs %v", cfg.KeepThreads, cfg.KeepBlobs)
	}
}
