package peer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/presence"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// Hostile peers that try to wear the node down (issue 18, items 10, 11,
// 12 and 15): each test speaks the wire from raw connections, as
// hostile_test.go does, and checks the bound that holds them.

// TestHostileBlobFiles (item 10): a peer announces far more blobs than
// the descriptors the process may open, and sends each one chunk that
// never finishes it. The blob files open stay within MaxOpenBlobFiles,
// every chunk is stored (no internal), and afterwards a new peer still
// connects and sends a blob that arrives. Before the bound, each
// incomplete blob kept its file open: at the limit accept failed and
// every later chunk got internal.
func TestHostileBlobFiles(t *testing.T) {
	a := newTestNode(t, "a")
	const blobs = 600
	before := procFDs(t)
	if before < 0 {
		t.Skip("cannot count this process's descriptors here (no /proc/self/fd)")
	}
	if !limitOpenFiles(t, uint64(before+blobs/2)) { // the flood alone would pass it
		t.Skip("no limit on open descriptors to lower on this platform")
	}

	p := dialRaw(t, a)
	p.handshake()
	th := wire.NewThread()
	refs := make([]string, blobs)
	for i := range refs {
		refs[i] = fmt.Sprintf("blob_fd%d", i)
	}
	p.announce(th, refs, 10)
	var last string
	for _, ref := range refs {
		last = p.ids.New()
		p.line(p.chunkLine(last, th, ref, 0, []byte("x"), false))
	}
	if errs := p.expectAck(th, last, ""); len(errs) > 0 {
		t.Fatalf("errs: %+v", errs)
	}
	if open := a.db.OpenBlobFiles(); open > store.MaxOpenBlobFiles {
		t.Fatalf("%d blob files open, bound %d", open, store.MaxOpenBlobFiles)
	}
	if now := procFDs(t); now < 0 || before < 0 {
		t.Fatal("cannot count this process's descriptors")
	} else if grew := now - before; grew > 2*store.MaxOpenBlobFiles+16 {
		t.Fatalf("%d more descriptors open after %d incomplete blobs", grew, blobs)
	}
	for _, ref := range refs[:5] {
		if st := blobOf(t, a, ref); st.Received != 1 || st.Corrupt {
			t.Fatalf("blob %s: %+v", ref, st)
		}
	}
	b := newTestNode(t, "b")
	connect(t, b, a)
	msgsAndBlob(t, b, a)
}

// blobOf returns n's record of the blob ref.
func blobOf(t *testing.T, n *testNode, ref string) BlobInfo {
	t.Helper()
	for _, x := range mustBlobs(t, n) {
		if x.Ref == ref {
			return x
		}
	}
	t.Fatalf("no blob %s", ref)
	return BlobInfo{}
}

// TestHostileOutOfOrderChunks (item 11): one-byte chunks at even offsets
// make a new range each; past store.MaxBlobRanges the blob is marked
// corrupt (bad_request names it), its ranges and file dropped, and the
// node goes on serving. Before, the ranges grew without bound and each
// chunk rewrote them all (30,000 cost 50 s of CPU).
func TestHostileOutOfOrderChunks(t *testing.T) {
	a := newTestNode(t, "a")
	p := dialRaw(t, a)
	p.handshake()
	th := wire.NewThread()
	ref := "blob_frag"
	size := int64(2*store.MaxBlobRanges + 100)
	p.announce(th, []string{ref}, size)
	var ids []string
	for i := int64(0); i <= store.MaxBlobRanges+5; i++ {
		id := p.ids.New()
		ids = append(ids, id)
		p.line(p.chunkLine(id, th, ref, 2*i, []byte{1}, false))
	}
	id, m := p.msg(th, "after the flood")
	p.line(m)
	errs := p.expectAck(th, id, wire.CodeBadRequest)
	if len(errs) == 0 {
		// The err can follow the ack: the writer takes the queued errs,
		// then the acks, so an err queued between the two goes out in its
		// next pass, after an ack (cumulative) that covers its chunk.
		// Under load (the package under -race) it did.
		f, ok := p.read().(*wire.Err)
		if !ok {
			t.Fatalf("after the ack of %s: %T, want the err of chunk %d", id, f, store.MaxBlobRanges+1)
		}
		errs = append(errs, f)
	}
	if len(errs) != 1 || errs[0].Re != ids[store.MaxBlobRanges] || !strings.Contains(errs[0].Msg, "pieces") {
		t.Fatalf("errs: %+v; want one bad_request for chunk %d", errs, store.MaxBlobRanges+1)
	}
	st := blobOf(t, a, ref)
	if !st.Corrupt || st.Reason != store.ReasonFragmented {
		t.Fatalf("blob after %d pieces: %+v", store.MaxBlobRanges+1, st)
	}
	if _, err := os.Stat(a.db.Path(store.InBlobFile(p.priv.Public(), ref))); !os.IsNotExist(err) {
		t.Fatalf("the corrupt blob's file is still there: %v", err)
	}
	checkNodeServes(t, a)
}

// TestFairQueue: operations of one source that floods the commit loop take
// their turns in each batch; another source's operation gets into the
// first batch built after it came, and each source's order holds.
func TestFairQueue(t *testing.T) {
	flood, other := &session{}, &session{}
	var q fairQueue
	for i := 0; i < 3*maxBatch; i++ {
		q.push(&op{src: flood, size: i})
	}
	q.push(&op{src: other, size: -1})
	q.push(&op{src: nil, size: -2})
	batch := q.take(nil, maxBatch, maxBatchBytes*1000)
	found := map[int]bool{}
	last := -1
	for _, o := range batch {
		if o.src == flood {
			if o.size != last+1 {
				t.Fatalf("flood's ops out of order: %d after %d", o.size, last)
			}
			last = o.size
		} else {
			found[o.size] = true
		}
	}
	if !found[-1] || !found[-2] {
		t.Fatalf("the other sources' ops are not in the first batch (%d ops)", len(batch))
	}
	for q.n > 0 {
		for _, o := range q.take(nil, maxBatch, maxBatchBytes*1000) {
			if o.size != last+1 {
				t.Fatalf("flood's ops out of order: %d after %d", o.size, last)
			}
			last = o.size
		}
	}
	if last != 3*maxBatch-1 {
		t.Fatalf("flood ended at %d", last)
	}
}

// TestHostileErrFlood (item 12): a peer sends malformed lines (each
// answered bad_request) and never reads: once maxErrQueue bytes of err
// lines wait for the writer, the node closes it. Before, the queue grew
// without bound (1 GB in 60 s).
func TestHostileErrFlood(t *testing.T) {
	// errFloodLines is far more err lines than loopback's buffers hold
	// (each bad line, 61 bytes, is answered by an err line of about 140):
	// the node must close the session long before the last.
	const errFloodLines = 2_000_000
	a := newTestNode(t, "a")
	p := dialRaw(t, a)
	// The node's writer blocks once the kernel's buffers between the two
	// are full. (A tiny SetReadBuffer here made that sooner, but once in a
	// while stalled loopback TCP both ways: the node's reader waiting, this
	// writer blocked, and nothing in between moving.)
	p.handshake()
	var s *session
	testsync.Eventually(t, "the session up", func() bool { s = a.sessionFor(p.priv.Public()); return s != nil })
	done := make(chan error, 1)
	go func() {
		bad := []byte(`{"t":"msg","id":"01J9ZX00000000000000000001","th":"thr_x"}` + "\n")
		var err error
		for i := 0; i < errFloodLines && err == nil; i++ {
			_, err = p.c.Write(bad)
		}
		done <- err
	}()
	deadline := time.Now().Add(30 * time.Second)
	for a.sessionFor(p.priv.Public()) != nil {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("the session is still up\n%s", buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.c.Close()
	<-done
	if !errors.Is(s.closeErr, errErrQueueFull) {
		t.Errorf("the session ended with %v, want %v", s.closeErr, errErrQueueFull)
	}
	checkNodeServes(t, a)
}

// TestHostileSessionsAndLongLines (item 12): 300 throwaway keys each hold
// a partial line of 1 MiB. At most MaxStrangerSessions sessions are
// accepted (the rest get not_allowed), at most MaxStrangerLineBufs hold a
// long-line buffer, the memory they add stays far under what 300 × 2 MiB
// cost before, and a trusted peer still connects and sends a blob.
func TestHostileSessionsAndLongLines(t *testing.T) {
	a := newTestNode(t, "a")
	b := newTestNode(t, "b")
	if err := a.Trust(b.Key(), true); err != nil {
		t.Fatal(err)
	}
	before := rssBytes(t)
	const peers = 300
	var accepted, refused []*rawPeer
	for i := 0; i < peers; i++ {
		p := dialRaw(t, a)
		p.sendHello(p.hello(nil))
		p.myAuth = p.authLine()
		p.line(p.myAuth)
		if _, ok := p.read().(*wire.Auth); !ok {
			t.Fatal("no auth")
		}
		p.read() // resume
		p.line(p.obj(wire.TypeResume, map[string]any{"seen": map[string]string{}}))
		accepted = append(accepted, p)
	}
	// Those past the bound are told not_allowed and closed.
	for _, p := range accepted {
		p.c.SetReadDeadline(time.Now().Add(20 * time.Second))
	}
	testsync.Eventually(t, "sessions registered or refused", func() bool {
		a.mu.Lock()
		n := len(a.sessions)
		a.mu.Unlock()
		return n == MaxStrangerSessions
	})
	var kept []*rawPeer
	for _, p := range accepted {
		if a.sessionFor(p.priv.Public()) == nil {
			refused = append(refused, p)
		} else {
			kept = append(kept, p)
		}
	}
	if len(kept) != MaxStrangerSessions || len(refused) != peers-MaxStrangerSessions {
		t.Fatalf("%d sessions kept, %d refused", len(kept), len(refused))
	}
	p := refused[0]
	if e := p.expectErr(wire.CodeNotAllowed); !strings.Contains(e.Msg, "too many") {
		t.Fatalf("refusal: %s", e.Msg)
	}
	var wg sync.WaitGroup
	partial := append([]byte(`{"t":"msg","x":"`), bytes.Repeat([]byte("a"), wire.MaxLine-100)...)
	for _, p := range kept {
		wg.Go(func() { p.c.SetWriteDeadline(time.Now().Add(time.Minute)); p.c.Write(partial) })
	}
	testsync.Eventually(t, "the long-line slots strangers may take all taken", func() bool {
		return a.lineBufs.inUse() == MaxStrangerLineBufs
	})
	time.Sleep(200 * time.Millisecond) // whatever else the readers take
	after := rssBytes(t)
	if before < 0 || after < 0 {
		t.Fatal("cannot read this process's RSS")
	}
	grew := after - before
	limit := int64(MaxStrangerLineBufs*lineBufCost + MaxStrangerSessions*(256<<10) + 64<<20)
	t.Logf("RSS grew %d MiB with %d sessions holding partial 1 MiB lines (bound here %d MiB; 2 MiB a session before)", grew>>20, len(kept), limit>>20)
	if grew > limit {
		t.Fatalf("RSS grew %d MiB, want under %d MiB", grew>>20, limit>>20)
	}
	// A trusted peer still gets a session and a long-line buffer.
	connect(t, b, a)
	msgsAndBlob(t, b, a)
	for _, p := range accepted {
		p.c.Close()
	}
	wg.Wait()
	testsync.Eventually(t, "the slots given back", func() bool { return a.lineBufs.inUse() == 0 })
}

// TestHostilePresenceBytes (item 12): neighbours with throwaway keys send
// documents of throwaway origins, near the 256 KiB a document may have.
// The table keeps at most presence.MaxBytesPerRelay per neighbour and
// presence.MaxTableBytes in all. Before, only counts bounded it (4,096 ×
// 256 KiB, and 256 per neighbour for any number of neighbours).
func TestHostilePresenceBytes(t *testing.T) {
	a := newTestNode(t, "a")
	const neighbours, docs, pad = 12, 20, 240 << 10
	for i := 0; i < neighbours; i++ {
		p := dialRaw(t, a)
		p.sendHello(p.hello(map[string]any{"caps": []string{"chat", "presence"}}))
		p.finishHandshake()
		for j := 0; j < docs; j++ {
			o, _ := key.NewPrivate()
			p.line(presence.Line(p.ids.New(), wire.FormatTime(time.Now()), 1, paddedDoc(t, o, pad)))
		}
		// A msg after them: its ack says they were all read.
		id, m := p.msg("thr_pres", "done")
		p.line(m)
		p.expectAck("thr_pres", id, "")
		if got := a.pres.table.Bytes(); got > presence.MaxTableBytes {
			t.Fatalf("presence table holds %d bytes, bound %d", got, presence.MaxTableBytes)
		}
	}
	held := 0
	perFrom := map[key.PublicKey]int{}
	for _, e := range a.Presence() {
		held += len(e.Doc)
		perFrom[e.From] += presence.EntryCost(len(e.Doc))
	}
	for from, n := range perFrom {
		if n > presence.MaxBytesPerRelay {
			t.Fatalf("neighbour %s holds %d bytes, bound %d", from, n, presence.MaxBytesPerRelay)
		}
	}
	t.Logf("%d documents of %d KiB offered by %d neighbours; %d KiB held", neighbours*docs, pad>>10, neighbours, held>>10)
	if held > presence.MaxTableBytes/2 {
		t.Fatalf("%d bytes of documents held, bound %d", held, presence.MaxTableBytes/2)
	}
}

// TestMemoryBoundStated: the bounds add up to less than the total the
// docs state.
func TestMemoryBoundStated(t *testing.T) {
	if b := MemoryBound(); b > NodeMemoryBudget {
		t.Fatalf("MemoryBound %d MiB over NodeMemoryBudget %d MiB", b>>20, NodeMemoryBudget>>20)
	}
	doc, err := os.ReadFile(filepath.Join("..", "docs", "protocol", "choices.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%d MiB", NodeMemoryBudget>>20); !bytes.Contains(doc, []byte(want)) {
		t.Fatalf("docs/protocol/choices.md does not state the budget (%s)", want)
	}
}

// spacious is a DiskSpace hook with a large disk, so quota tests do not
// depend on the machine's.
func spacious() (uint64, uint64, error) { return 1 << 40, 2 << 40, nil }

// TestHostileQuota (item 15): a stranger's blobs are refused (too_large,
// the msg itself stored) once their sizes pass QuotaStranger, and then its
// lines too; a trusted key announcing the same is within QuotaKnown.
func TestHostileQuota(t *testing.T) {
	a := newTestNode(t, "a", func(c *Config) { c.DiskSpace = spacious })
	usage := func(k key.PublicKey) (u store.Usage) {
		a.db.View(func(tx *store.Tx) error { u = tx.Usage(k); return nil })
		return u
	}
	for _, trusted := range []bool{false, true} {
		p := dialRaw(t, a)
		if trusted {
			if err := a.Trust(p.priv.Public(), true); err != nil {
				t.Fatal(err)
			}
		}
		p.handshake()
		th := wire.NewThread()
		const big = QuotaStranger / 4
		var refs []string
		for i := 0; i < 4; i++ {
			refs = append(refs, fmt.Sprintf("blob_q%v%d", trusted, i))
			id := p.announce(th, refs[i:], big)
			errs := p.expectAck(th, id, wire.CodeTooLarge)
			wantRefused := !trusted && i == 3 // the msgs' own bytes count too
			if (len(errs) == 1) != wantRefused || wantRefused && !strings.Contains(errs[0].Msg, store.ReasonQuota) {
				t.Fatalf("trusted %v, blob %d: errs %+v", trusted, i, errs)
			}
			if st := blobOf(t, a, refs[i]); st.Corrupt != wantRefused {
				t.Fatalf("trusted %v, blob %d: %+v", trusted, i, st)
			}
		}
		u := usage(p.priv.Public())
		if !trusted && u.Total() > QuotaStranger || trusted && u.Blobs != 4*big {
			t.Fatalf("trusted %v: usage %+v", trusted, u)
		}
		if trusted {
			continue
		}
		// Fill the quota but for 1,000 bytes: a line of 2,000 is refused
		// (too_large), not stored, not acked; a short one still goes in.
		id := p.announce(th, []string{"blob_fill"}, QuotaStranger-u.Total()-1000-300)
		if errs := p.expectAck(th, id, ""); len(errs) > 0 {
			t.Fatalf("filler: %+v", errs)
		}
		id, m := p.msg(th, strings.Repeat("q", 2000))
		p.line(m)
		if e := p.expectErr(wire.CodeTooLarge); e.Re != id {
			t.Fatalf("err re %s, want %s", e.Re, id)
		}
		short, m := p.msg(th, "ok")
		p.line(m)
		p.expectAck(th, short, "")
		ls, _ := a.Lines(th, key.PublicKey{})
		for _, l := range ls {
			if strings.Contains(string(l.Line), id) {
				t.Fatal("a line over the quota was stored")
			}
		}
		if u := usage(p.priv.Public()); u.Total() > QuotaStranger {
			t.Fatalf("usage %+v over the quota %d", u, QuotaStranger)
		}
	}
}

// TestIncompleteBlobExpiry (item 15): a blob that gets no chunk for
// IncompleteBlobAge is dropped: marked corrupt (expired), its file removed
// and its size given back to the sender's quota.
func TestIncompleteBlobExpiry(t *testing.T) {
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	a := newTestNode(t, "a", func(c *Config) {
		c.Now, c.SweepEvery, c.IncompleteBlobAge, c.DiskSpace = clock, 20*time.Millisecond, time.Hour, spacious
	})
	p := dialRaw(t, a)
	p.handshake()
	th := wire.NewThread()
	p.announce(th, []string{"blob_old", "blob_new"}, 1000)
	id := p.ids.New()
	p.line(p.chunkLine(id, th, "blob_old", 0, make([]byte, 500), false))
	p.expectAck(th, id, "")
	file := a.db.Path(store.InBlobFile(p.priv.Public(), "blob_old"))
	if _, err := os.Stat(file); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	now = now.Add(61 * time.Minute)
	mu.Unlock()
	id = p.ids.New()
	p.line(p.chunkLine(id, th, "blob_new", 0, make([]byte, 500), false)) // this one is fresh
	p.expectAck(th, id, "")
	testsync.Eventually(t, "the old blob expired and its file removed", func() bool {
		_, err := os.Stat(file)
		return blobOf(t, a, "blob_old").Corrupt && os.IsNotExist(err)
	})
	if st := blobOf(t, a, "blob_old"); st.Reason != store.ReasonExpired {
		t.Fatalf("old blob: %+v", st)
	}
	if st := blobOf(t, a, "blob_new"); st.Corrupt {
		t.Fatalf("fresh blob expired: %+v", st)
	}
	var u store.Usage
	a.db.View(func(tx *store.Tx) error { u = tx.Usage(p.priv.Public()); return nil })
	if u.Blobs != 1000 {
		t.Fatalf("usage after expiry: %+v, want the fresh blob's 1000", u)
	}
}

// smallDisk returns a directory on a file system of size bytes: a tmpfs
// mounted for the test when the process may mount (root), so the disk
// fills for real; else a directory whose free space the returned hook
// reports as what the test's filler left (set by fill).
func smallDisk(t *testing.T, size int64) (dir string, real bool, hook func() (uint64, uint64, error), fill func(free int64) int64) {
	t.Helper()
	dir = t.TempDir()
	if unmount, err := mountTmpfs(dir, strconv.FormatInt(size, 10)); err == nil {
		t.Cleanup(unmount)
		filler := filepath.Join(dir, "filler")
		// fill leaves about free bytes free (0: until the disk is full) and
		// returns what is free; a negative free removes the filler.
		return dir, true, nil, func(free int64) int64 {
			if free < 0 {
				os.Remove(filler)
				f, _, _ := statfs(dir)
				return int64(f)
			}
			f, err := os.OpenFile(filler, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			block := make([]byte, 64<<10)
			for {
				avail, _, _ := statfs(dir)
				if int64(avail) <= free {
					return int64(avail)
				}
				n := min(int64(len(block)), int64(avail)-free)
				if _, err := f.Write(block[:max(n, 1)]); err != nil {
					if errors.Is(err, syscall.ENOSPC) {
						avail, _, _ := statfs(dir)
						return int64(avail)
					}
					t.Fatal(err)
				}
			}
		}
	}
	t.Logf("cannot mount a tmpfs here (not root?): the disk's free space is simulated")
	var mu sync.Mutex
	free := size
	return dir, false, func() (uint64, uint64, error) {
			mu.Lock()
			defer mu.Unlock()
			return uint64(free), uint64(size), nil
		}, func(f int64) int64 {
			mu.Lock()
			defer mu.Unlock()
			if f < 0 {
				f = size
			}
			free = f
			return f
		}
}

// TestHostileFullDisk (item 15): on a disk that fills up, a stranger's
// lines are refused (rate_limited) first, while a trusted peer's and this
// node's own still go in; on a full disk the trusted peer's are refused
// too and a local send fails with a clear error, but nothing acked is
// lost; when space returns, everything refused arrives by itself (the
// sender sends it again after retry_ms), in order, and local sends work.
func TestHostileFullDisk(t *testing.T) {
	const size = 64 << 20
	dir, real, hook, fill := smallDisk(t, size)
	a := newTestNode(t, "a", func(c *Config) { c.DataDir, c.DiskSpace = dir, hook })
	b := newTestNode(t, "b")
	if err := a.Trust(b.Key(), true); err != nil {
		t.Fatal(err)
	}
	connect(t, b, a)
	r := sendText(t, b, a.Key(), "", "before")
	th := r.Th
	acked := func(n *testNode, want int) func() bool {
		return func() bool {
			ls, _ := n.Lines(th, key.PublicKey{})
			return len(ls) == want && allOutAcked(ls)
		}
	}
	testsync.Eventually(t, "the first line acked", acked(b, 1))

	p := dialRaw(t, a)
	p.handshake()
	pth := wire.NewThread()

	// Below the strangers' reserve, above the known peers'.
	free := fill(int64(reserve(tierStranger, size)+reserve(tierKnown, size)) / 2)
	t.Logf("real tmpfs: %v; free now %d KiB (reserves: strangers %d KiB, known %d KiB)", real, free>>10,
		reserve(tierStranger, size)>>10, reserve(tierKnown, size)>>10)
	waitDiskCheck()
	id, m := p.msg(pth, "from a stranger")
	p.line(m)
	if e := p.expectErr(wire.CodeRateLimited); e.Re != id || e.RetryMS <= 0 {
		t.Fatalf("stranger's line: err %+v", e)
	}
	sendText(t, b, a.Key(), th, "trusted, low disk")
	testsync.Eventually(t, "the trusted peer's line acked", acked(b, 2))
	if _, err := a.Send(context.Background(), SendRequest{To: b.Key(), Th: th, Parts: []json.RawMessage{wire.TextPart("own, low disk")}}); err != nil {
		t.Fatalf("own send on a low disk: %v", err)
	}
	testsync.Eventually(t, "a's own line acked", acked(a, 3))

	// Full.
	free = fill(0)
	t.Logf("disk full: %d bytes free", free)
	waitDiskCheck()
	for i := 0; i < 5; i++ {
		sendText(t, b, a.Key(), th, fmt.Sprintf("refused %d", i))
	}
	bp, data := writeRandom(t, 3<<20)
	br, err := b.Send(context.Background(), SendRequest{To: a.Key(), Th: th, Blobs: []BlobFile{{Path: bp}}})
	if err != nil {
		t.Fatal(err)
	}
	sendText(t, b, a.Key(), th, "after the blob")
	time.Sleep(time.Second)
	if real {
		_, err := a.Send(context.Background(), SendRequest{To: b.Key(), Th: th, Parts: []json.RawMessage{wire.TextPart(strings.Repeat("own, full disk ", 20000))}})
		if err == nil || !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("own send on a full disk: %v, want no space left", err)
		}
	}
	if ls, _ := a.Lines(th, key.PublicKey{}); len(ls) != 3 {
		t.Fatalf("a holds %d lines of the thread on a full disk, want the 3 stored before", len(ls))
	}

	// Space returns: the refused lines arrive by themselves, in order.
	fill(-1)
	testsync.Eventually(t, "the refused lines stored and acked", acked(b, 3+5+2))
	ls, _ := a.Lines(th, key.PublicKey{})
	var texts []string
	for _, l := range ls {
		var m wire.Msg
		json.Unmarshal(l.Line, &m)
		if ps := m.DecodeParts(); len(ps) > 0 {
			texts = append(texts, ps[0].Text+ps[0].Ref)
		}
	}
	ref := ""
	for _, l := range ls {
		var m wire.Msg
		if json.Unmarshal(l.Line, &m) == nil && m.ID == br.ID {
			ref = m.DecodeParts()[0].Ref
		}
	}
	want := []string{"before", "trusted, low disk", "own, low disk", "refused 0", "refused 1", "refused 2", "refused 3", "refused 4", ref, "after the blob"}
	if fmt.Sprint(texts) != fmt.Sprint(want) {
		t.Fatalf("lines after recovery:\n%q\nwant\n%q", texts, want)
	}
	wantBlob(t, b, a, ref, data)
	// The stranger's line goes in when sent again.
	p.line(m)
	p.expectAck(pth, id, "")
	if _, err := a.Send(context.Background(), SendRequest{To: b.Key(), Th: th, Parts: []json.RawMessage{wire.TextPart("own, after")}}); err != nil {
		t.Fatalf("own send after recovery: %v", err)
	}
	if err := a.db.Check(); err != nil {
		t.Fatalf("store after a full disk: %v", err)
	}
}

// waitDiskCheck waits until the node reads the disk's space again.
func waitDiskCheck() { time.Sleep(2 * diskRecheck) }
