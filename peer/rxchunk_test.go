package peer

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// TestChunkWorkerWrites drives a session's chunk worker with chunks of two
// blobs interleaved, some out of order and some replayed, so its writers
// both join queued chunks into runs and break runs where the file or the
// offset changes; every chunk is reported written and both files end up
// with exactly their bytes.
func TestChunkWorkerWrites(t *testing.T) {
	a := newTestNode(t, "a")
	k, err := key.NewPrivate()
	if err != nil {
		t.Fatal(err)
	}
	const piece = 512 << 10
	rng := rand.New(rand.NewSource(5))
	files := map[string][]byte{}
	for _, ref := range []string{"blob_one", "blob_two"} {
		b := make([]byte, 9*piece+100)
		rng.Read(b)
		files[store.InBlobFile(k.Public(), ref)] = b
	}
	type ch struct {
		file string
		i    int
	}
	one, two := store.InBlobFile(k.Public(), "blob_one"), store.InBlobFile(k.Public(), "blob_two")
	// First the other file's chunk at the offset that would continue the
	// run (a run must not cross files), then both files in turns.
	order := []ch{{one, 0}, {two, 1}, {one, 1}, {two, 0}, {one, 2}, {one, 3}, {two, 2}, {two, 3}}
	for i := 4; i < 10; i++ {
		order = append(order, ch{one, i}, ch{two, i})
	}
	// Swap a few neighbours (out of order) and repeat a few (replays).
	for n := 0; n < 6; n++ {
		i := rng.Intn(len(order) - 1)
		order[i], order[i+1] = order[i+1], order[i]
	}
	for n := 0; n < 4; n++ {
		order = append(order, order[rng.Intn(len(order))])
	}
	h := chunkWorker{n: a.Node}
	var jobs []*hashJob
	for _, c := range order {
		src := files[c.file]
		off := c.i * piece
		end := min(off+piece, len(src))
		data := getChunkBuf()[:end-off]
		copy(data, src[off:end])
		a.inflight.acquire(len(data))
		j := h.submit(c.file, &wire.Chunk{Off: int64(off), Data: data, End: end == len(src)}, nil, true)
		jobs = append(jobs, j)
	}
	h.stop()
	held, released := 0, 0
	for i, j := range jobs {
		select {
		case <-j.written:
		default:
			t.Fatalf("chunk %d (%v) not reported written after stop", i, order[i])
		}
		if j.err != nil {
			t.Fatalf("chunk %d: %v", i, j.err)
		}
		// A chunk hashed ahead gives its buffer and budget back at once;
		// the others keep them for their commit.
		switch {
		case j.res.After != nil && !j.released, j.res.After == nil && j.released:
			t.Fatalf("chunk %d: hashed ahead %v, released %v", i, j.res.After != nil, j.released)
		case j.released:
			released++
			if j.data != nil {
				t.Fatalf("chunk %d: released but still holds its buffer", i)
			}
		default:
			held += len(j.data)
		}
	}
	if released == 0 {
		t.Fatal("no chunk was hashed ahead and released (the in-order ones should be)")
	}
	a.inflight.mu.Lock()
	used := a.inflight.used
	a.inflight.mu.Unlock()
	if used != held {
		t.Fatalf("in-flight budget holds %d bytes, the unreleased chunks %d", used, held)
	}
	a.inflight.release(held)
	for _, j := range jobs {
		putChunkBuf(j.data) // what the commit would give back (nil when released)
	}
	for f, want := range files {
		a.db.CloseBlob(f)
		got, err := os.ReadFile(a.db.Path(f))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: %d bytes (%v), want %d, equal=%v", f, len(got), err, len(want), bytes.Equal(got, want))
		}
	}
}

// TestReadAhead reads chunks of two blob files the way a session's sender
// does: in order (served from the window, the next one read in the
// background), replays from the start, a jump, two files in turns, and the
// short last chunk; every piece must be the file's bytes.
func TestReadAhead(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(9))
	type blob struct {
		name string
		data []byte
		r    *store.BlobReader
	}
	var blobs []*blob
	// The first spans a few read-ahead windows and ends inside one.
	for i, size := range []int{5*readAheadSize/2 + 1000, 3 * wire.MaxChunkData} {
		b := &blob{name: fmt.Sprintf("f%d", i), data: make([]byte, size)}
		rng.Read(b.data)
		p := filepath.Join(dir, b.name)
		if err := os.WriteFile(p, b.data, 0o600); err != nil {
			t.Fatal(err)
		}
		r, err := store.OpenBlobReader(p)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		b.r = r
		blobs = append(blobs, b)
	}
	var ra readAhead
	defer ra.release()
	check := func(b *blob, i int) {
		t.Helper()
		off := i * wire.MaxChunkData
		n := min(wire.MaxChunkData, len(b.data)-off)
		got, err := ra.get(b.r, b.name, int64(off), n)
		if err != nil {
			t.Fatalf("%s chunk %d: %v", b.name, i, err)
		}
		if !bytes.Equal(got, b.data[off:off+n]) {
			t.Fatalf("%s chunk %d: wrong bytes", b.name, i)
		}
	}
	a, c := blobs[0], blobs[1]
	chunks := (len(a.data) + wire.MaxChunkData - 1) / wire.MaxChunkData
	for i := 0; i < chunks; i++ {
		check(a, i)
	}
	if ra.used < 2 {
		t.Fatalf("reading %d windows in order used %d background reads, want 2", (len(a.data)+readAheadSize-1)/readAheadSize, ra.used)
	}
	for i := 0; i < 10; i++ { // a replay from the start
		check(a, i)
	}
	check(a, chunks*3/4)     // a jump
	for i := 0; i < 3; i++ { // two files in turns
		check(c, i)
		check(a, i+3)
	}
	check(a, chunks-1)
}
