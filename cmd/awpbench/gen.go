package main

// The generator of figure 5's data directory: months of history written
// through peer/store's own API.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// genSpec describes a generated data directory: months of history.
type genSpec struct {
	Lines     int   // content lines in all threads (blob msgs included)
	Threads   int   // threads, with line counts skewed (a few long, many short)
	BlobBytes int64 // bytes of blobs in all, as real files
	Peers     int   // peers the threads are with
	Days      int   // the history spans this many days up to now
	Seed      uint64
}

// The sizes of figure 5 (the issue's) and of -quick.
var (
	genFull  = genSpec{Lines: 1_000_000, Threads: 10_000, BlobBytes: 2_000_000_000, Peers: 40, Days: 180, Seed: 1}
	genQuick = genSpec{Lines: 20_000, Threads: 200, BlobBytes: 16 << 20, Peers: 8, Days: 180, Seed: 1}
)

// genResult is what the generator made.
type genResult struct {
	Key       key.PrivateKey // the data directory's identity
	Largest   string         // th of the thread with the most lines
	LargestN  int
	Lines     int
	Threads   int
	Blobs     int
	BlobBytes int64
	DBBytes   int64
	Took      time.Duration
}

// Generator limits: lines per transaction (bbolt holds a transaction's
// dirty pages in memory until the commit) and blob sizes.
const (
	genBatchLines = 50_000
	genBlobMin    = 64 << 10 // blob sizes are multiples of genBlobStep from here
	genBlobMax    = 4 << 20  // to here (the mean is about 1 MiB)
	genBlobStep   = 64 << 10
	genBlobWriter = 2 // goroutines writing blob files
)

// generate writes a data directory at dir through peer/store's own API:
// threads, lines, seen ids, peers, a few unacked outbox entries and blob
// records with their files (real bytes, sha256 checked like any blob).
// Everything is fsync'ed when it returns, so the measurements after it do
// not compete with the kernel writing it back. progress, if not nil, gets
// a line now and then.
func generate(dir string, spec genSpec, progress io.Writer) (genResult, error) {
	t0 := time.Now()
	logf := func(format string, a ...any) {
		if progress != nil {
			fmt.Fprintf(progress, "   gen: "+format+"\n", a...)
		}
	}
	g := &generator{spec: spec, dir: dir, rng: rand.New(rand.NewPCG(spec.Seed, 0x5ca1e)), unackedLeft: genUnacked}
	if err := g.makeKeys(); err != nil {
		return g.res, err
	}
	db, err := store.Open(dir, store.Options{NoSync: true})
	if err != nil {
		return g.res, err
	}
	g.db = db
	defer func() {
		if g.db != nil {
			g.db.Close()
		}
	}()
	g.now = time.Now().UTC()
	g.start = g.now.Add(-time.Duration(spec.Days) * 24 * time.Hour)

	// Blob files are written (and hashed, and fsync'ed) by their own
	// goroutines while the lines go into the store; a blob's msg waits
	// for its file only if it gets there first.
	g.blobs = planBlobs(spec, g.rng)
	g.bw = startBlobWriter(dir, g.blobs)
	defer g.bw.stop()

	sizes, perThread := g.spreadBlobs()
	g.myIDs.Now = func() time.Time { return g.lineTime }
	g.theirIDs.Now = g.myIDs.Now
	g.putPeers()
	for ti := 0; ti < spec.Threads; ti++ {
		if err := g.thread(ti, sizes[ti], perThread[ti]); err != nil {
			return g.res, err
		}
		if g.pending >= genBatchLines {
			if err := g.flush(); err != nil {
				return g.res, err
			}
			if g.res.Lines%(genBatchLines*4) < genBatchLines || ti == spec.Threads-1 {
				logf("%d lines in %d threads (%.1f s)", g.res.Lines, g.res.Threads, time.Since(t0).Seconds())
			}
		}
	}
	if err := g.finish(); err != nil {
		return g.res, err
	}
	res := g.res
	res.Took = time.Since(t0)
	logf("done: %d lines, %d threads (largest %d lines), %d blobs of %.2f GB, awp.db %.1f MB, in %.1f s",
		res.Lines, res.Threads, res.LargestN, res.Blobs, float64(res.BlobBytes)/1e9, float64(res.DBBytes)/1e6, res.Took.Seconds())
	return res, nil
}

// genUnacked is how many of the newest genUnackedThreads threads keep
// their last out line unacked, waiting in the outbox.
const (
	genUnacked        = 20
	genUnackedThreads = 40
)

// genStates are the thread states the generator writes: the first three
// open, the last three final.
var genStates = []string{"open", "working", "waiting", "done", "failed", "closed"}

// generator is one generate call's state.
type generator struct {
	spec       genSpec
	dir        string
	rng        *rand.Rand
	me         key.PrivateKey
	peers      []key.PublicKey
	db         *store.DB
	blobs      []genBlob
	bw         *blobWriter
	start, now time.Time // the history spans these

	// Both sides' ids are made at lineTime, the time of the line being
	// written; lastID is the newest of mine.
	myIDs, theirIDs wire.IDGen
	lineTime        time.Time
	lastID          string

	batch       []func(*store.Tx) error // the next transaction's writes
	pending     int                     // lines in batch
	unackedLeft int                     // of genUnacked
	res         genResult
}

// genThread is the thread generator.thread is writing.
type genThread struct {
	tk      store.ThreadKey
	peer    key.PublicKey
	th      string
	n       int         // lines
	newest  bool        // among the newest genUnackedThreads threads
	closed  bool        // ends in a final state
	subject string      // on its first msg
	blobAt  map[int]int // line index to blob index + 1
	lastIn  string      // id of its newest inbound line
	queued  bool        // its last line waits in the outbox
}

// makeKeys makes the data directory's identity and its peers' keys.
func (g *generator) makeKeys() error {
	me, err := key.NewPrivate()
	if err != nil {
		return err
	}
	g.me, g.res.Key = me, me
	g.peers = make([]key.PublicKey, g.spec.Peers)
	for i := range g.peers {
		k, err := key.NewPrivate()
		if err != nil {
			return err
		}
		g.peers[i] = k.Public()
	}
	return nil
}

// spreadBlobs sizes the threads and puts blob msgs among each thread's
// lines: perThread[t] lists the blobs of thread t, spread in proportion
// to the threads' sizes (a thread has at least as many lines as blobs).
func (g *generator) spreadBlobs() (sizes []int, perThread [][]int) {
	sizes = threadSizes(g.spec.Lines, g.spec.Threads)
	perThread = make([][]int, g.spec.Threads)
	for i := range g.blobs {
		t := pickWeighted(g.rng, sizes)
		perThread[t] = append(perThread[t], i)
	}
	for t := range perThread {
		if len(perThread[t]) > sizes[t] {
			sizes[t] = len(perThread[t])
		}
	}
	return sizes, perThread
}

// flush writes the batch in one transaction.
func (g *generator) flush() error {
	if len(g.batch) == 0 {
		return nil
	}
	err := g.db.Update(func(t *store.Tx) error {
		for _, f := range g.batch {
			if err := f(t); err != nil {
				return err
			}
		}
		return nil
	})
	g.batch, g.pending = g.batch[:0], 0
	return err
}

// putPeers queues the peers' records.
func (g *generator) putPeers() {
	g.batch = append(g.batch, func(tx *store.Tx) error {
		for i, p := range g.peers {
			rec := &store.Peer{Key: p.String(), Name: fmt.Sprintf("agent-%02d@host-%d", i, i%7), FirstSeen: g.start, LastSeen: g.now,
				Listen: []string{fmt.Sprintf("tcp://10.0.0.%d:7777", i+2)}, Caps: []string{"chat", "blob", "presence"}}
			if err := tx.PutPeer(rec); err != nil {
				return err
			}
		}
		return nil
	})
}

// thread queues thread ti: its n lines, blobs among them, and its record.
func (g *generator) thread(ti, n int, blobs []int) error {
	rng := g.rng
	if n > g.res.LargestN {
		g.res.LargestN = n
	}
	t := &genThread{peer: g.peers[rng.IntN(len(g.peers))], th: fmt.Sprintf("thr_g%06d%s", ti, randBase32(rng, 6)), n: n,
		newest: ti >= g.spec.Threads-genUnackedThreads}
	if n == g.res.LargestN {
		g.res.Largest = t.th
	}
	t.tk = store.ThreadKey{NS: store.NSOwn, Peer: t.peer, Th: t.th}
	// The thread lives between first and last, inside the history;
	// its lines are spread over that time in order.
	last := g.start.Add(time.Duration(rng.Int64N(int64(g.now.Sub(g.start)))))
	span := time.Duration(float64(g.now.Sub(g.start)) * 0.3 * rng.Float64())
	first := last.Add(-span)
	if first.Before(g.start) {
		first = g.start
	}
	step := last.Sub(first) / time.Duration(n+1)
	t.blobAt = map[int]int{}
	for _, b := range blobs {
		at := rng.IntN(n)
		for t.blobAt[at] != 0 {
			at = (at + 1) % n
		}
		t.blobAt[at] = b + 1
	}
	t.subject = subjects[rng.IntN(len(subjects))]
	t.closed = rng.IntN(3) == 0
	unread := 0
	if rng.IntN(50) == 0 {
		unread = 1 + rng.IntN(min(n, 20))
	}
	for li := 0; li < n; li++ {
		g.lineTime = first.Add(step * time.Duration(li+1))
		if err := g.line(t, li); err != nil {
			return err
		}
	}
	g.threadRecord(t, unread)
	g.res.Lines += n
	g.res.Threads++
	return nil
}

// line queues line li of thread t, in or out at random.
func (g *generator) line(t *genThread, li int) error {
	out := g.rng.IntN(2) == 0
	ids := &g.theirIDs
	from := t.peer
	dir := store.DirIn
	if out {
		ids, from, dir = &g.myIDs, g.me.Public(), store.DirOut
	}
	id := ids.New()
	raw, blobRec, err := g.content(t, li, id, out)
	if err != nil {
		return err
	}
	if !out {
		t.lastIn = id
	} else if id > g.lastID {
		g.lastID = id
	}
	l := store.Line{Dir: dir, From: from, Stored: g.lineTime, Raw: raw}
	isLast, lt := li == t.n-1, g.lineTime
	queue := isLast && out && g.unackedLeft > 0 && t.newest
	if queue {
		g.unackedLeft--
		t.queued = true
	}
	first := li == 0
	tk, peer, th := t.tk, t.peer, t.th
	g.batch = append(g.batch, func(tx *store.Tx) error {
		t, _ := tx.EnsureThread(tk, lt)
		if first {
			t.Created = lt
		}
		seq, err := tx.AppendLine(tk, l)
		if err != nil {
			return err
		}
		if blobRec != nil {
			if err := tx.PutBlob(blobRec); err != nil {
				return err
			}
		}
		t.Updated = lt
		if queue {
			if _, err := tx.AppendOutbox(peer, store.Out{Th: th, ID: id, LineSeq: seq, Raw: l.Raw}); err != nil {
				return err
			}
		}
		return nil
	})
	g.pending++
	return nil
}

// content is line li of thread t: a blob msg where one is due, a final
// state closing a closed thread, now and then an open state, else a
// text msg.
func (g *generator) content(t *genThread, li int, id string, out bool) ([]byte, *store.Blob, error) {
	rng := g.rng
	switch {
	case t.blobAt[li] != 0:
		return g.blobLine(t, t.blobAt[li]-1, id, out)
	case li == t.n-1 && t.closed:
		return stateLine(id, g.lineTime, t.th, genStates[3+rng.IntN(3)]), nil, nil
	case li > 0 && rng.IntN(25) == 0:
		return stateLine(id, g.lineTime, t.th, genStates[rng.IntN(3)]), nil, nil
	default:
		sub := ""
		if li == 0 {
			sub = t.subject
		}
		return msgLine(id, g.lineTime, t.th, sub, []json.RawMessage{wire.TextPart(sentence(rng))}), nil, nil
	}
}

// blobLine is the msg carrying blob i in thread t, with the blob's
// record; its file, once written, moves to where the node keeps it.
func (g *generator) blobLine(t *genThread, i int, id string, out bool) ([]byte, *store.Blob, error) {
	b := &g.blobs[i]
	sum := g.bw.wait(i)
	if sum == "" {
		return nil, nil, fmt.Errorf("gen: blob %d: %v", i, g.bw.err())
	}
	ref := "blob_" + randBase32(g.rng, 12)
	raw := msgLine(id, g.lineTime, t.th, "", []json.RawMessage{
		wire.TextPart("the file you asked for"),
		wire.BlobPart(ref, b.name, "application/octet-stream", b.size, sum)})
	d := "in"
	file := store.InBlobFile(t.peer, ref)
	if out {
		d, file = "out", store.OutBlobFile(ref)
	}
	if err := g.bw.place(i, file); err != nil {
		return nil, nil, err
	}
	rec := &store.Blob{Dir: d, Peer: t.peer.String(), Ref: ref, Th: t.th, Name: b.name, Mime: "application/octet-stream",
		Size: b.size, Sha256: sum, Received: b.size, Complete: true, File: file, Created: g.lineTime, Updated: g.lineTime}
	return raw, rec, nil
}

// threadRecord queues thread t's record as the node leaves it, with
// unread lines unread.
func (g *generator) threadRecord(t *genThread, unread int) {
	rng := g.rng
	lastText := sentence(rng)
	lastFrom, mine, theirs := g.me.Public().String(), "", ""
	if rng.IntN(2) == 0 {
		lastFrom = t.peer.String()
	}
	if t.closed {
		mine, theirs = genStates[3+rng.IntN(3)], genStates[3+rng.IntN(3)]
	} else if rng.IntN(2) == 0 {
		mine, theirs = genStates[rng.IntN(3)], genStates[rng.IntN(3)]
	}
	tk, peer, th, subject, li, queued := t.tk, t.peer, t.th, t.subject, t.lastIn, t.queued
	g.batch = append(g.batch, func(tx *store.Tx) error {
		t, ok := tx.Thread(tk)
		if !ok {
			return errors.New("gen: thread vanished")
		}
		t.Subject, t.Mine, t.Theirs = subject, mine, theirs
		t.LastText, t.LastFrom = lastText, lastFrom
		t.ReadSeq = t.LastSeq - uint64(unread)
		t.Unread = unread
		t.AckedSeq = t.LastSeq
		if queued {
			t.AckedSeq = t.LastSeq - 1 // its last line waits in the outbox
		}
		tx.Touch(tk)
		if li != "" {
			return tx.MarkReceived(peer, th, li)
		}
		return nil
	})
}

// finish writes the last batch, waits for the blob files, and closes the
// store as a node that ran closes it, synced.
func (g *generator) finish() error {
	lastID := g.lastID
	g.batch = append(g.batch, func(tx *store.Tx) error { return tx.PutMeta("last_id", []byte(lastID)) })
	if err := g.flush(); err != nil {
		return err
	}
	if err := g.bw.finish(); err != nil {
		return err
	}
	g.res.Blobs = len(g.blobs)
	for _, b := range g.blobs {
		g.res.BlobBytes += b.size
	}
	// Closed as a node that ran closes it: a running node has its thread
	// cache loaded (its presence document reads it), so Close stores the
	// cache's snapshot beside the free list (peer/store/threadcache.go).
	if _, err := g.db.RecentThreads(); err != nil {
		return err
	}
	if err := g.db.Sync(); err != nil {
		return err
	}
	err := g.db.Close()
	g.db = nil
	if err != nil {
		return err
	}
	if fi, err := os.Stat(filepath.Join(g.dir, "awp.db")); err == nil {
		g.res.DBBytes = fi.Size()
	}
	return nil
}
