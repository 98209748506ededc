package peer

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

func TestBlobTransfer(t *testing.T) {
	a, b := connectedPair(t)
	for _, size := range []int{0, 1, 512 << 10, 3<<20 + 17} {
		p, data := writeRandom(t, size)
		r, err := a.Send(context.Background(), SendRequest{To: b.Key(), Parts: []json.RawMessage{wire.TextPart("file")}, Blobs: []BlobFile{{Path: p}}})
		if err != nil {
			t.Fatal(err)
		}
		wantBlob(t, a, b, blobRef(t, a, r), data)
	}
}

// blobRef returns the ref of the (only) blob part of the msg r sent.
func blobRef(t *testing.T, n *testNode, r SendResult) string {
	t.Helper()
	ls, err := n.Lines(r.Th, key.PublicKey{})
	if err != nil || len(ls) == 0 {
		t.Fatalf("lines of %s: %v", r.Th, err)
	}
	var m wire.Msg
	if err := json.Unmarshal(ls[0].Line, &m); err != nil {
		t.Fatal(err)
	}
	for _, p := range m.DecodeParts() {
		if p.K == wire.PartBlob {
			return p.Ref
		}
	}
	t.Fatalf("no blob part in %s", ls[0].Line)
	return ""
}

// wantBlob waits until to has the blob ref from from complete and checks
// its bytes against data.
func wantBlob(t *testing.T, from, to *testNode, ref string, data []byte) {
	t.Helper()
	testsync.Eventually(t, "blob "+ref+" complete", func() bool {
		bs, _ := to.Blobs()
		for _, x := range bs {
			if x.Ref == ref && x.Dir == "in" {
				if x.Corrupt {
					t.Fatalf("blob %s corrupt", ref)
				}
				return x.Complete
			}
		}
		return false
	})
	rc, info, err := to.OpenBlob(from.Key(), ref)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	sum := sha256.Sum256(data)
	if info.Sha256 != hex.EncodeToString(sum[:]) || !bytes.Equal(got, data) {
		t.Fatalf("blob %s: %d bytes, want %d; sha %s", ref, len(got), len(data), info.Sha256)
	}
}

func writeRandom(t *testing.T, size int) (string, []byte) {
	t.Helper()
	data := make([]byte, size)
	rand.Read(data)
	p := filepath.Join(t.TempDir(), "f.bin")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p, data
}

// TestBlobsConcurrent sends several blobs at once, both ways, so chunk lines
// of different blobs share the write queues and the pooled line and data
// buffers on both sides: every blob must arrive intact.
func TestBlobsConcurrent(t *testing.T) {
	a, b := connectedPair(t)
	sizes := []int{3<<20 + 17, 5 << 20, 512<<10 + 1, 1 << 20, 700 << 10, 2<<20 - 3}
	type sent struct {
		from, to *testNode
		ref      string
		data     []byte
	}
	var mu sync.Mutex
	var all []sent
	var wg sync.WaitGroup
	for i, size := range sizes {
		from, to := a, b
		if i%3 == 2 {
			from, to = b, a
		}
		p, data := writeRandom(t, size)
		wg.Go(func() {
			r, err := from.Send(context.Background(), SendRequest{To: to.Key(), Blobs: []BlobFile{{Path: p}}})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			all = append(all, sent{from, to, blobRef(t, from, r), data})
			mu.Unlock()
		})
	}
	wg.Wait()
	for _, s := range all {
		wantBlob(t, s.from, s.to, s.ref, s.data)
	}
}

// TestBlobReceiverRestartMidway closes the receiver while a blob is half
// received; after its restart the sender replays the unacked chunks and the
// blob completes with the right sha256 (the stored hash state resumes).
func TestBlobReceiverRestartMidway(t *testing.T) {
	for _, restartSender := range []bool{false, true} {
		t.Run(map[bool]string{false: "receiver", true: "both"}[restartSender], func(t *testing.T) {
			a, b := connectedPair(t)
			midway := false
			for size := 16 << 20; !midway && size <= 128<<20; size *= 2 {
				p, data := writeRandom(t, size+12345)
				r, err := a.Send(context.Background(), SendRequest{To: b.Key(), Blobs: []BlobFile{{Path: p}}})
				if err != nil {
					t.Fatal(err)
				}
				ref := blobRef(t, a, r)
				// Stop b as soon as part of the blob is stored.
				for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Microsecond) {
					bs, _ := b.Blobs()
					var got *BlobInfo
					for i := range bs {
						if bs[i].Ref == ref {
							got = &bs[i]
						}
					}
					if got != nil && got.Received > 0 {
						midway = !got.Complete
						t.Logf("%d-byte blob: receiver stopped at %d bytes", len(data), got.Received)
						break
					}
				}
				b.Close()
				if restartSender {
					a.restart()
				}
				b.restart()
				if restartSender {
					connect(t, a, b)
				}
				wantBlob(t, a, b, ref, data)
			}
			if !midway {
				t.Skip("every blob completed before the receiver could be stopped")
			}
		})
	}
}

// TestBlobChunksOutOfOrder drives a node with hand-made chunk lines: in
// order, repeated, out of order, of sizes that are and are not multiples of
// the disk block (direct and buffered writes), so the receiver's hashing
// ahead guesses wrong on purpose; the blob must still complete with its
// sha256, and a blob whose bytes do not match must end corrupt.
func TestBlobChunksOutOfOrder(t *testing.T) {
	a := newTestNode(t, "a")
	for _, c := range []struct {
		name    string
		sizes   []int // chunk sizes, in blob order
		order   []int // the order chunks are sent in (indexes into sizes)
		forge   int   // 1 + the position in order of a send with other bytes (0: none)
		corrupt bool  // the blob ends corrupt (else complete, with the true bytes)
	}{
		{"in order", []int{512 << 10, 512 << 10, 4096, 1000}, []int{0, 1, 2, 3}, 0, false},
		{"repeated", []int{512 << 10, 512 << 10, 512 << 10}, []int{0, 0, 1, 0, 1, 2}, 0, false},
		{"out of order", []int{100000, 512 << 10, 65536, 512<<10 - 7}, []int{1, 0, 3, 2}, 0, false},
		{"late start", []int{8192, 8192, 8192}, []int{2, 1, 0}, 0, false},
		{"wrong bytes", []int{512 << 10, 512 << 10}, []int{0, 1}, 2, true},
		// Bytes already received are not written again: a repeat with
		// other bytes cannot change the file behind the verified hash.
		{"repeat with other bytes", []int{512 << 10, 512 << 10, 512 << 10}, []int{0, 1, 0, 2}, 3, false},
		{"repeat at once with other bytes", []int{512 << 10, 512 << 10, 512 << 10}, []int{0, 0, 1, 2}, 2, false},
		{"last repeated with other bytes", []int{512 << 10, 4096}, []int{0, 1, 1}, 3, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := dialRaw(t, a)
			p.handshake()
			th := wire.NewThread()
			total := 0
			for _, n := range c.sizes {
				total += n
			}
			data := make([]byte, total)
			rand.Read(data)
			sum := sha256.Sum256(data)
			ref := "blob_" + wire.NewNonce(8)
			id := p.ids.New()
			p.line(p.obj(wire.TypeMsg, map[string]any{"id": id, "th": th, "parts": []json.RawMessage{
				wire.BlobPart(ref, "f.bin", "application/octet-stream", int64(total), hex.EncodeToString(sum[:]))}}))
			offs := make([]int, len(c.sizes))
			for i := 1; i < len(c.sizes); i++ {
				offs[i] = offs[i-1] + c.sizes[i-1]
			}
			for k, i := range c.order {
				chunk := data[offs[i] : offs[i]+c.sizes[i]]
				if k+1 == c.forge {
					chunk = bytes.Repeat([]byte{7}, len(chunk))
				}
				id = p.ids.New()
				line, err := wire.Encode(wire.NewChunk(id, wire.FormatTime(time.Now()), th, ref, int64(offs[i]), chunk, i == len(c.sizes)-1))
				if err != nil {
					t.Fatal(err)
				}
				p.line(line)
			}
			p.expectAck(th, id, "")
			var info BlobInfo
			for _, x := range mustBlobs(t, a) {
				if x.Ref == ref {
					info = x
				}
			}
			if c.corrupt {
				if !info.Corrupt || info.Complete {
					t.Fatalf("blob with wrong bytes: complete=%v corrupt=%v", info.Complete, info.Corrupt)
				}
				return
			}
			wantStored(t, a, p.priv.Public(), ref, data)
		})
	}
}

func mustBlobs(t *testing.T, n *testNode) []BlobInfo {
	t.Helper()
	bs, err := n.Blobs()
	if err != nil {
		t.Fatal(err)
	}
	return bs
}

// TestWarmBuffers: nodes started with WarmBuffers hold the buffers of a
// transfer each way from the start (the pools are the process's; that they
// keep them when idle is bufpool's TestWarm) and move blobs as before.
func TestWarmBuffers(t *testing.T) {
	warm := func(c *Config) { c.WarmBuffers = true }
	a := newTestNode(t, "a", warm)
	b := newTestNode(t, "b", warm)
	for name, want := range map[string]struct{ have, min int }{
		"chunk":      {chunkBufs.Len(), maxInflight / chunkBufSize},
		"line":       {lineBufs.Len(), maxLineBufs},
		"read-ahead": {readAheadBufs.Len(), 3},
		"read":       {readBufs.Len(), 2},
	} {
		if want.have < want.min {
			t.Errorf("%s buffers: the pool holds %d after a warm start, want at least %d", name, want.have, want.min)
		}
	}
	reads := readBufs.Len()
	connect(t, a, b)
	p, data := writeRandom(t, 5<<20+3)
	r, err := a.Send(context.Background(), SendRequest{To: b.Key(), Parts: []json.RawMessage{wire.TextPart("file")}, Blobs: []BlobFile{{Path: p}}})
	if err != nil {
		t.Fatal(err)
	}
	wantBlob(t, a, b, blobRef(t, a, r), data)
	// b's session read its chunk lines into a buffer from the pool (a's
	// reads only short lines), lent with a long-line slot, and gives both
	// back once the long lines are over (the next short line; here the
	// session's end at the latest).
	b.Close()
	testsync.Eventually(t, "the read buffer back in the pool", func() bool { return readBufs.Len() == reads })
	if n := b.lineBufs.inUse(); n != 0 {
		t.Errorf("%d long-line slots still lent after the session ended", n)
	}
}

// TestLongMsgReturnsChunkBuf: a session's reader takes a chunk buffer to
// decode into when a long line comes; when that line was not a chunk (here
// a 100 KB text msg) it keeps the buffer for the next, and gives it back
// when the session ends. It was lost before: for a warm buffer, for good.
func TestLongMsgReturnsChunkBuf(t *testing.T) {
	warm := func(c *Config) { c.WarmBuffers = true }
	a := newTestNode(t, "a", warm)
	b := newTestNode(t, "b", warm)
	connect(t, a, b)
	before := chunkBufs.Len()
	r := sendText(t, a, b.Key(), "", strings.Repeat("code ", 20<<10))
	testsync.Eventually(t, "b has the line", func() bool {
		ls, err := b.Lines(r.Th, key.PublicKey{})
		return err == nil && len(ls) == 1
	})
	if got := chunkBufs.Len(); got != before-1 {
		t.Fatalf("chunk buffers during the session: %d in the pool, want %d (one kept by b's reader)", got, before-1)
	}
	b.Close()
	testsync.Eventually(t, "the chunk buffer back in the pool", func() bool { return chunkBufs.Len() == before })
}

// TestBlobRepeatOfUnstoredChunk: a chunk the reader skips as a repeat of
// bytes on their way is written at its commit when those bytes were not
// stored after all (here the first copy came under an id already used, so
// it was dropped as a duplicate): the blob completes with the right bytes,
// and the peer gets no err.
func TestBlobRepeatOfUnstoredChunk(t *testing.T) {
	a := newTestNode(t, "a")
	p := dialRaw(t, a)
	p.handshake()
	th := wire.NewThread()
	data := make([]byte, 2*wire.MaxChunkData)
	rand.Read(data)
	sum := sha256.Sum256(data)
	ref := "blob_" + wire.NewNonce(8)
	msgID := p.ids.New()
	p.line(p.obj(wire.TypeMsg, map[string]any{"id": msgID, "th": th, "parts": []json.RawMessage{
		wire.BlobPart(ref, "f.bin", "application/octet-stream", int64(len(data)), hex.EncodeToString(sum[:]))}}))
	chunk := func(id string, off int, b []byte, end bool) {
		line, err := wire.Encode(wire.NewChunk(id, wire.FormatTime(time.Now()), th, ref, int64(off), b, end))
		if err != nil {
			t.Fatal(err)
		}
		p.line(line)
	}
	// Under the msg's id (a duplicate, not stored), with other bytes.
	chunk(msgID, 0, make([]byte, wire.MaxChunkData), false)
	chunk(p.ids.New(), 0, data[:wire.MaxChunkData], false)
	last := p.ids.New()
	chunk(last, wire.MaxChunkData, data[wire.MaxChunkData:], true)
	if errs := p.expectAck(th, last, ""); len(errs) > 0 {
		t.Fatalf("errs: %+v", errs)
	}
	wantStored(t, a, p.priv.Public(), ref, data)
}

// wantStored checks that n holds blob ref from the key from complete and
// intact, with the bytes data.
func wantStored(t *testing.T, n *testNode, from key.PublicKey, ref string, data []byte) {
	t.Helper()
	var info BlobInfo
	for _, x := range mustBlobs(t, n) {
		if x.Ref == ref {
			info = x
		}
	}
	if !info.Complete || info.Corrupt {
		t.Fatalf("blob: complete=%v corrupt=%v received %d of %d", info.Complete, info.Corrupt, info.Received, len(data))
	}
	rc, _, err := n.OpenBlob(from, ref)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	if !bytes.Equal(got, data) {
		t.Fatalf("blob bytes differ (%d of %d)", len(got), len(data))
	}
}

// TestBlobDuplicateChunkWritten: a duplicate chunk line whose bytes the
// reader wrote over bytes the blob holds (it could not tell: another
// session, or a blob it forgot) leaves the blob's sum to the file, so a
// duplicate with other bytes ends corrupt, not complete over a file that
// differs from its sha256. The lines go straight to storeLine, as the
// reader's commit would.
func TestBlobDuplicateChunkWritten(t *testing.T) {
	for _, same := range []bool{true, false} {
		d := newDirectLines(t)
		a := d.a
		var ids wire.IDGen
		th, ref := wire.NewThread(), "blob_dup"
		data := make([]byte, 2*wire.MaxChunkData)
		rand.Read(data)
		sum := sha256.Sum256(data)
		file := store.InBlobFile(d.s.peer, ref)
		store1 := func(line []byte, written bool) {
			t.Helper()
			if res := d.store(line, written); res.badCode != "" {
				t.Fatalf("%s: %s", res.badCode, res.badMsg)
			}
		}
		chunk := func(id string, off int, b []byte, end bool) []byte {
			line, err := wire.Encode(wire.NewChunk(id, wire.FormatTime(time.Now()), th, ref, int64(off), b, end))
			if err != nil {
				t.Fatal(err)
			}
			return line
		}
		write := func(off int, b []byte) {
			t.Helper()
			if err := a.db.WriteBlobAt(file, int64(off), b); err != nil {
				t.Fatal(err)
			}
			if err := a.db.SyncBlob(file); err != nil {
				t.Fatal(err)
			}
		}
		msg, err := wire.Encode(&wire.Msg{Head: wire.Head{T: wire.TypeMsg, ID: ids.New(), TS: wire.FormatTime(time.Now()), Th: th},
			Parts: []json.RawMessage{wire.BlobPart(ref, "f.bin", "application/octet-stream", int64(len(data)), hex.EncodeToString(sum[:]))}})
		if err != nil {
			t.Fatal(err)
		}
		store1(msg, false)
		first := ids.New()
		write(0, data[:wire.MaxChunkData])
		store1(chunk(first, 0, data[:wire.MaxChunkData], false), true)
		other := data[:wire.MaxChunkData]
		if !same {
			other = make([]byte, wire.MaxChunkData)
		}
		write(0, other) // the duplicate's bytes, written by a reader that could not tell
		store1(chunk(first, 0, other, false), true)
		write(wire.MaxChunkData, data[wire.MaxChunkData:])
		store1(chunk(ids.New(), wire.MaxChunkData, data[wire.MaxChunkData:], true), true)
		var info BlobInfo
		for _, x := range mustBlobs(t, a) {
			if x.Ref == ref {
				info = x
			}
		}
		if same && (!info.Complete || info.Corrupt) || !same && (info.Complete || !info.Corrupt) {
			t.Fatalf("same bytes %v: complete=%v corrupt=%v", same, info.Complete, info.Corrupt)
		}
	}
}

// TestCorruptBlobLateChunk: a chunk the reader wrote to its blob's file
// while the commit that made the blob corrupt (and removed the file) was
// on its way made the file again; storing it, or a duplicate of its line,
// removes the file once more, so a corrupt blob keeps no bytes on disk.
// Before, under load, the file stayed (TestHostileOutOfOrderChunks failed
// 3 times in 120). The lines go straight to storeLine, as the reader's
// commit would.
func TestCorruptBlobLateChunk(t *testing.T) {
	d := newDirectLines(t)
	var ids wire.IDGen
	th, ref := wire.NewThread(), "blob_late"
	file := store.InBlobFile(d.s.peer, ref)
	chunk := func(off int64, b []byte) []byte {
		return wire.MustMarshal(wire.NewChunk(ids.New(), wire.FormatTime(time.Now()), th, ref, off, b, false))
	}
	d.store(wire.MustMarshal(&wire.Msg{Head: wire.Head{T: wire.TypeMsg, ID: ids.New(), TS: wire.FormatTime(time.Now()), Th: th},
		Parts: []json.RawMessage{wire.BlobPart(ref, "f.bin", "application/octet-stream", 4, strings.Repeat("0", 64))}}), false)
	if res := d.store(chunk(2, []byte("past")), false); res.badCode != wire.CodeBadRequest || len(res.remove) != 1 || res.remove[0] != file {
		t.Fatalf("chunk past the size: %+v", res)
	}
	if st := blobOf(t, d.a, ref); !st.Corrupt {
		t.Fatalf("blob after a chunk past its size: %+v", st)
	}
	late := chunk(0, []byte("ab"))
	if res := d.store(late, true); len(res.remove) != 1 || res.remove[0] != file {
		t.Fatalf("a written chunk of the corrupt blob: remove %q, want [%s]", res.remove, file)
	}
	if res := d.store(late, true); res.of == "" || len(res.remove) != 1 || res.remove[0] != file {
		t.Fatalf("a written duplicate of that chunk's line: ack %q, remove %q, want [%s]", res.of, res.remove, file)
	}
	if res := d.store(chunk(0, []byte("ab")), false); len(res.remove) != 0 {
		t.Fatalf("a chunk of the corrupt blob that was not written: remove %q", res.remove)
	}
}

// directLines stores lines of a peer with a fresh key on a new node
// straight through storeLine, as the session reader's commit would.
type directLines struct {
	t *testing.T
	a *testNode
	s *session
}

func newDirectLines(t *testing.T) *directLines {
	k, err := key.NewPrivate()
	if err != nil {
		t.Fatal(err)
	}
	return &directLines{t: t, a: newTestNode(t, "a"), s: &session{peer: k.Public(), peerS: k.Public().String()}}
}

// store stores line in one commit; written says the reader wrote a
// chunk's bytes to the blob's file before it.
func (d *directLines) store(line []byte, written bool) inResult {
	d.t.Helper()
	f, err := wire.Decode(line)
	if err != nil {
		d.t.Fatal(err)
	}
	in := &inLine{s: d.s, f: f, chunk: chunkIn{written: written}}
	if err := d.a.runCtx(context.Background(), func(tx *store.Tx) error { return d.a.storeLine(tx, in) }); err != nil {
		d.t.Fatal(err)
	}
	return in.res
}

// TestLocalBlobFile: a relative path is made absolute against the working
// directory (the node may run elsewhere); a directory or a missing file is
// refused with the path the caller gave.
func TestLocalBlobFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("a.txt", []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := LocalBlobFile("a.txt")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "a.txt"); b.Path != want {
		t.Errorf("Path = %q, want %q", b.Path, want)
	}
	if err := os.Mkdir("sub", 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := LocalBlobFile("sub"); err == nil || err.Error() != "sub is not a regular file" {
		t.Errorf("directory: err = %v", err)
	}
	if _, err := LocalBlobFile("nope"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: err = %v, want ErrNotExist", err)
	}
}
