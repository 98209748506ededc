package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/localapi/localapitest"
	"github.com/awp-tray/awp-tray/peer/store"
)

// TestRetentionCompactE2E drives retention and compaction through the
// built binary on a real store: `awp run --keep-threads 90d` deletes the
// threads idle for 200 days and keeps the one of last week, `awp
// retention` shows and changes the setting, which outlives a restart, and
// `awp compact` (with the peer stopped) gives the space back and keeps
// every line that is left.
func TestRetentionCompactE2E(t *testing.T) {
	dir := localapitest.ShortTempDir(t)
	other, _ := key.NewPrivate()
	now := time.Now()
	const oldThreads, linesEach = 30, 200
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fill := func(th string, at time.Time) {
		t.Helper()
		tk := store.ThreadKey{NS: store.NSOwn, Peer: other.Public(), Th: th}
		err := db.Update(func(tx *store.Tx) error {
			thr, _ := tx.EnsureThread(tk, at)
			for i := range linesEach {
				raw := fmt.Appendf(nil, `{"t":"msg","id":"x","ts":"t","th":%q,"parts":[{"type":"text","text":"line %d %0300d"}]}`, th, i, i)
				if _, err := tx.AppendLine(tk, store.Line{Dir: store.DirIn, From: other.Public(), Stored: at, Raw: raw}); err != nil {
					return err
				}
			}
			thr.Updated, thr.AckedSeq = at, linesEach
			tx.Touch(tk)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range oldThreads {
		fill(fmt.Sprintf("thr_old%02d", i), now.Add(-200*24*time.Hour))
	}
	fill("thr_recent", now.Add(-7*24*time.Hour))
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	p := startPeer(t, "keeper", dir, "--keep-threads", "90d")
	r := decodeJSON[map[string]string](t, cli(t, "retention", "--data", dir, "--json"))
	if r["keep_threads"] != "90d" || r["keep_blobs"] != "off" {
		t.Fatalf("awp retention: %v", r)
	}
	// The sweep runs soon after a setting changes (here: at start).
	deadline := time.Now().Add(time.Minute)
	var ths []peer.ThreadInfo
	for {
		ths = decodeJSON[[]peer.ThreadInfo](t, cli(t, "threads", "--data", dir, "--json"))
		if len(ths) == 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(ths) != 1 || ths[0].Th != "thr_recent" || ths[0].Lines != linesEach {
		t.Fatalf("after the sweep: %+v, want thr_recent alone with its %d lines", ths, linesEach)
	}
	out := cli(t, "retention", "--data", dir, "--keep-blobs", "30d")
	if !strings.Contains(out, "keep threads: 90d") || !strings.Contains(out, "keep blobs of closed threads: 30d") {
		t.Fatalf("awp retention --keep-blobs 30d: %q", out)
	}
	// Compaction needs the store to itself.
	if _, code, errs := cliCode(t, "compact", "--data", dir); code != exitFail || !strings.Contains(errs, "a peer is running") {
		t.Fatalf("compact with the peer up: exit %d, %q", code, errs)
	}
	p.stop(t)

	stdout, code, errs := cliCode(t, "compact", "--data", dir, "--json")
	if code != 0 {
		t.Fatalf("awp compact: exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "100%") || !strings.Contains(errs, "done in") {
		t.Fatalf("no progress on stderr: %q", errs)
	}
	res := decodeJSON[map[string]any](t, stdout)
	before, after := res["bytes_before"].(float64), res["bytes_after"].(float64)
	if after <= 0 || after >= before/2 {
		t.Fatalf("awp compact: %.0f → %.0f bytes; want under half (30 of 31 threads were deleted)", before, after)
	}

	startPeer(t, "keeper", dir)
	r = decodeJSON[map[string]string](t, cli(t, "retention", "--data", dir, "--json"))
	if r["keep_threads"] != "90d" || r["keep_blobs"] != "30d" {
		t.Fatalf("after compact and restart: %v", r)
	}
	lines := decodeJSON[[]peer.LineInfo](t, cli(t, "show", "thr_recent", "--data", dir, "--json"))
	if len(lines) != linesEach {
		t.Fatalf("thr_recent holds %d lines after compact, want %d", len(lines), linesEach)
	}
	for i, l := range lines {
		if l.Seq != uint64(i+1) || !strings.Contains(string(l.Line), fmt.Sprintf(`"line %d `, i)) {
			t.Fatalf("line %d after compact: seq %d %s", i, l.Seq, l.Line)
		}
	}
}
