package peer

import (
	"errors"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/store"
)

// TestRetentionNode: a pair exchanges a thread with a blob; 100 days later
// (the nodes' clock) b's sweep with KeepThreads 90d (from its Config)
// deletes it, blob file and all. a keeps everything until its own setting
// says otherwise, and then never a thread with a line not yet acked.
func TestRetentionNode(t *testing.T) {
	var skew atomic.Int64
	clock := func(c *Config) { c.Now = func() time.Time { return time.Now().Add(time.Duration(skew.Load())) } }
	a := newTestNode(t, "a", clock)
	keep := 90 * 24 * time.Hour
	b := newTestNode(t, "b", clock, func(c *Config) { c.KeepThreads = &keep })
	connect(t, a, b)
	r := msgsAndBlob(t, a, b)

	got, err := b.Retention()
	if err != nil || got.KeepThreads != keep || got.KeepBlobs != 0 {
		t.Fatalf("b's retention from Config: %+v %v", got, err)
	}
	if res, err := b.Sweep(); err != nil || res.Changed() {
		t.Fatalf("a sweep today deleted something: %+v %v", res, err)
	}
	bs, _ := b.Blobs()
	if len(bs) != 1 {
		t.Fatalf("b holds %d blobs, want 1", len(bs))
	}
	file := b.db.Path(blobFileOf(t, b, bs[0].Ref))

	// a queues a line b will not get (b is gone), in a new thread.
	b.Close()
	pending := sendText(t, a, b.Key(), "", "never acked")

	skew.Store(int64(100 * 24 * time.Hour))
	b.cfg.Listen = []string{"tcp://127.0.0.1:0"} // elsewhere: a's redials must not deliver the pending line
	b.start()
	res, err := b.Sweep()
	if err != nil {
		t.Fatal(err)
	}
	if res.Threads != 1 || res.Blobs != 1 || res.Files != 1 {
		t.Fatalf("b's sweep 100 days on: %+v, want the thread and its blob", res)
	}
	if _, err := b.Thread(r.Th, key.PublicKey{}); !errors.Is(err, ErrNoThread) {
		t.Fatalf("b's old thread: %v, want ErrNoThread", err)
	}
	if bs, _ := b.Blobs(); len(bs) != 0 {
		t.Fatalf("b still lists %d blobs", len(bs))
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("b's blob file is still on disk")
	}

	// a keeps forever by default; with 90 days its acked thread goes, the
	// one holding an unacked line stays, however old.
	if res, _ := a.Sweep(); res.Changed() {
		t.Fatalf("a deleted with retention off: %+v", res)
	}
	if err := a.SetRetention(Retention{KeepThreads: keep}); err != nil {
		t.Fatal(err)
	}
	if res, err := a.Sweep(); err != nil || res.Threads != 1 {
		t.Fatalf("a's sweep: %+v %v", res, err)
	}
	if _, err := a.Thread(pending.Th, key.PublicKey{}); err != nil {
		t.Fatalf("the thread with an unacked line was deleted: %v", err)
	}
	if _, err := a.Thread(r.Th, key.PublicKey{}); !errors.Is(err, ErrNoThread) {
		t.Fatal("a's acked old thread kept")
	}
	ths, _ := a.Threads()
	if len(ths) != 1 || ths[0].Th != pending.Th {
		t.Fatalf("a lists %+v", ths)
	}
	// The setting outlives a restart.
	a.restart()
	if got, _ := a.Retention(); got.KeepThreads != keep {
		t.Fatalf("after restart: %+v", got)
	}
}

func blobFileOf(t *testing.T, n *testNode, ref string) string {
	t.Helper()
	var file string
	n.db.View(func(tx *storeTx) error {
		tx.Blobs(func(b *store.Blob) bool {
			if b.Ref == ref {
				file = b.File
			}
			return true
		})
		return nil
	})
	if file == "" {
		t.Fatalf("no blob %s", ref)
	}
	return file
}

// FuzzParseKeep: any text is refused or read as a retention from zero to
// maxKeepDays days (a Go duration may be longer), and what FormatKeep
// writes of it reads back the same.
func FuzzParseKeep(f *testing.F) {
	for _, s := range []string{"90d", "1.5d", "36h", "off", "NaNd", "-0d", "1e9d", "90m"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseKeep(s)
		if err != nil {
			return
		}
		if d < 0 || strings.HasSuffix(strings.TrimSpace(s), "d") && d > maxKeepDays*24*time.Hour {
			t.Fatalf("ParseKeep(%q) = %v", s, d)
		}
		if back, err := ParseKeep(FormatKeep(d)); err != nil || back != d {
			t.Fatalf("ParseKeep(%q) = %v; FormatKeep writes %q, which reads %v, %v", s, d, FormatKeep(d), back, err)
		}
	})
}

func TestParseKeep(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"": 0, "off": 0, "0": 0, "forever": 0, "90d": 90 * 24 * time.Hour, "1.5d": 36 * time.Hour, "36h": 36 * time.Hour, " 7d ": 7 * 24 * time.Hour,
	} {
		got, err := ParseKeep(in)
		if err != nil || got != want {
			t.Errorf("ParseKeep(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"-1d", "-5h", "d", "ninety", "1e9d", "5x", "NaNd", "nand", "infd"} {
		if _, err := ParseKeep(in); err == nil {
			t.Errorf("ParseKeep(%q) accepted", in)
		}
	}
	for _, d := range []time.Duration{0, 90 * 24 * time.Hour, 36 * time.Hour, 90 * time.Minute} {
		back, err := ParseKeep(FormatKeep(d))
		if err != nil || back != d {
			t.Errorf("FormatKeep(%v) = %q reads back as %v, %v", d, FormatKeep(d), back, err)
		}
	}
}
