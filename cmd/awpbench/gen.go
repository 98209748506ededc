package main

import (
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
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
	res := genResult{}
	logf := func(format string, a ...any) {
		if progress != nil {
			fmt.Fprintf(progress, "   gen: "+format+"\n", a...)
		}
	}
	rng := rand.New(rand.NewPCG(spec.Seed, 0x5ca1e))
	me, err := key.NewPrivate()
	if err != nil {
		return res, err
	}
	res.Key = me
	peers := make([]key.PublicKey, spec.Peers)
	for i := range peers {
		k, err := key.NewPrivate()
		if err != nil {
			return res, err
		}
		peers[i] = k.Public()
	}
	db, err := store.Open(dir, store.Options{NoSync: true})
	if err != nil {
		return res, err
	}
	defer func() {
		if db != nil {
			db.Close()
		}
	}()
	now := time.Now().UTC()
	start := now.Add(-time.Duration(spec.Days) * 24 * time.Hour)

	// Blob files are written (and hashed, and fsync'ed) by their own
	// goroutines while the lines go into the store; a blob's msg waits
	// for its file only if it gets there first.
	blobs := planBlobs(spec, rng)
	bw := startBlobWriter(dir, blobs)
	defer bw.stop()

	sizes := threadSizes(spec.Lines, spec.Threads)
	// Blob msgs are among each thread's lines: blob i goes to thread
	// blobThread[i], spread in proportion to the threads' sizes.
	perThread := make([][]int, spec.Threads)
	for i := range blobs {
		t := pickWeighted(rng, sizes)
		perThread[t] = append(perThread[t], i)
	}
	for t := range perThread {
		if len(perThread[t]) > sizes[t] {
			sizes[t] = len(perThread[t])
		}
	}

	var myIDs, theirIDs wire.IDGen
	var lineTime time.Time
	myIDs.Now = func() time.Time { return lineTime }
	theirIDs.Now = myIDs.Now
	var lastID string

	var batch []func(*store.Tx) error
	pending := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := db.Update(func(t *store.Tx) error {
			for _, f := range batch {
				if err := f(t); err != nil {
					return err
				}
			}
			return nil
		})
		batch, pending = batch[:0], 0
		return err
	}
	// Peers first.
	batch = append(batch, func(tx *store.Tx) error {
		for i, p := range peers {
			rec := &store.Peer{Key: p.String(), Name: fmt.Sprintf("agent-%02d@host-%d", i, i%7), FirstSeen: start, LastSeen: now,
				Listen: []string{fmt.Sprintf("tcp://10.0.0.%d:7777", i+2)}, Caps: []string{"chat", "blob", "presence"}}
			if err := tx.PutPeer(rec); err != nil {
				return err
			}
		}
		return nil
	})
	states := []string{"open", "working", "waiting", "done", "failed", "closed"}
	largest := 0
	unackedLeft := 20 // the newest threads keep their last out line unacked
	for ti := 0; ti < spec.Threads; ti++ {
		n := sizes[ti]
		if n > largest {
			largest, res.LargestN = n, n
		}
		peer := peers[rng.IntN(len(peers))]
		th := fmt.Sprintf("thr_g%06d%s", ti, randBase32(rng, 6))
		if n == largest {
			res.Largest = th
		}
		tk := store.ThreadKey{NS: store.NSOwn, Peer: peer, Th: th}
		// The thread lives between first and last, inside the history;
		// its lines are spread over that time in order.
		last := start.Add(time.Duration(rng.Int64N(int64(now.Sub(start)))))
		span := time.Duration(float64(now.Sub(start)) * 0.3 * rng.Float64())
		first := last.Add(-span)
		if first.Before(start) {
			first = start
		}
		step := last.Sub(first) / time.Duration(n+1)
		blobAt := map[int]int{}
		for _, b := range perThread[ti] {
			at := rng.IntN(n)
			for blobAt[at] != 0 {
				at = (at + 1) % n
			}
			blobAt[at] = b + 1
		}
		subject := subjects[rng.IntN(len(subjects))]
		closed := rng.IntN(3) == 0
		unread := 0
		if rng.IntN(50) == 0 {
			unread = 1 + rng.IntN(min(n, 20))
		}
		lastIn, lastQueued := "", false
		for li := 0; li < n; li++ {
			lineTime = first.Add(step * time.Duration(li+1))
			out := rng.IntN(2) == 0
			ids := &theirIDs
			from := peer
			dir := store.DirIn
			if out {
				ids, from, dir = &myIDs, me.Public(), store.DirOut
			}
			id := ids.New()
			var raw []byte
			var blobRec *store.Blob
			switch {
			case blobAt[li] != 0:
				b := &blobs[blobAt[li]-1]
				sum := bw.wait(blobAt[li] - 1)
				if sum == "" {
					return res, fmt.Errorf("gen: blob %d: %v", blobAt[li]-1, bw.err())
				}
				ref := "blob_" + randBase32(rng, 12)
				raw = msgLine(id, lineTime, th, "", []json.RawMessage{
					wire.TextPart("the file you asked for"),
					wire.BlobPart(ref, b.name, "application/octet-stream", b.size, sum)})
				d := "in"
				file := store.InBlobFile(peer, ref)
				if out {
					d, file = "out", store.OutBlobFile(ref)
				}
				if err := bw.place(blobAt[li]-1, file); err != nil {
					return res, err
				}
				blobRec = &store.Blob{Dir: d, Peer: peer.String(), Ref: ref, Th: th, Name: b.name, Mime: "application/octet-stream",
					Size: b.size, Sha256: sum, Received: b.size, Complete: true, File: file, Created: lineTime, Updated: lineTime}
			case li == n-1 && closed:
				raw = stateLine(id, lineTime, th, states[3+rng.IntN(3)])
			case li > 0 && rng.IntN(25) == 0:
				raw = stateLine(id, lineTime, th, states[rng.IntN(3)])
			default:
				sub := ""
				if li == 0 {
					sub = subject
				}
				raw = msgLine(id, lineTime, th, sub, []json.RawMessage{wire.TextPart(sentence(rng))})
			}
			if !out {
				lastIn = id
			} else if id > lastID {
				lastID = id
			}
			l := store.Line{Dir: dir, From: from, Stored: lineTime, Raw: raw}
			isLast, lt := li == n-1, lineTime
			queue := isLast && out && unackedLeft > 0 && ti >= spec.Threads-40
			if queue {
				unackedLeft--
				lastQueued = true
			}
			first := li == 0
			batch = append(batch, func(tx *store.Tx) error {
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
			pending++
		}
		// The thread's record, as the node leaves it.
		lastText := sentence(rng)
		lastFrom, mine, theirs := me.Public().String(), "", ""
		if rng.IntN(2) == 0 {
			lastFrom = peer.String()
		}
		if closed {
			mine, theirs = states[3+rng.IntN(3)], states[3+rng.IntN(3)]
		} else if rng.IntN(2) == 0 {
			mine, theirs = states[rng.IntN(3)], states[rng.IntN(3)]
		}
		li, queued := lastIn, lastQueued
		batch = append(batch, func(tx *store.Tx) error {
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
		res.Lines += n
		res.Threads++
		if pending >= genBatchLines {
			if err := flush(); err != nil {
				return res, err
			}
			if res.Lines%(genBatchLines*4) < genBatchLines || ti == spec.Threads-1 {
				logf("%d lines in %d threads (%.1f s)", res.Lines, res.Threads, time.Since(t0).Seconds())
			}
		}
	}
	batch = append(batch, func(tx *store.Tx) error { return tx.PutMeta("last_id", []byte(lastID)) })
	if err := flush(); err != nil {
		return res, err
	}
	if err := bw.finish(); err != nil {
		return res, err
	}
	res.Blobs = len(blobs)
	for _, b := range blobs {
		res.BlobBytes += b.size
	}
	// Closed as a node that ran closes it: a running node has its thread
	// cache loaded (its presence document reads it), so Close stores the
	// cache's snapshot beside the free list (peer/store/threadcache.go).
	if _, err := db.RecentThreads(); err != nil {
		return res, err
	}
	if err := db.Sync(); err != nil {
		return res, err
	}
	err = db.Close()
	db = nil
	if err != nil {
		return res, err
	}
	if fi, err := os.Stat(filepath.Join(dir, "awp.db")); err == nil {
		res.DBBytes = fi.Size()
	}
	res.Took = time.Since(t0)
	logf("done: %d lines, %d threads (largest %d lines), %d blobs of %.2f GB, awp.db %.1f MB, in %.1f s",
		res.Lines, res.Threads, res.LargestN, res.Blobs, float64(res.BlobBytes)/1e9, float64(res.DBBytes)/1e6, res.Took.Seconds())
	return res, nil
}

// threadSizes splits lines over threads by a power law (thread i gets a
// share of 1/(i+1)^0.8): months of agent work have a few long threads and
// many short ones. Every thread has at least 2 lines.
func threadSizes(lines, threads int) []int {
	const s = 0.8
	w := make([]float64, threads)
	sum := 0.0
	for i := range w {
		w[i] = 1 / math.Pow(float64(i+1), s)
		sum += w[i]
	}
	sizes := make([]int, threads)
	left := lines
	for i := range sizes {
		sizes[i] = max(2, int(float64(lines)*w[i]/sum))
		left -= sizes[i]
	}
	for i := 0; left > 0; i = (i + 1) % threads {
		sizes[i]++
		left--
	}
	for i := threads - 1; left < 0 && i >= 0; i-- {
		if sizes[i] > 2 {
			sizes[i]--
			left++
			i++
		}
	}
	return sizes
}

func pickWeighted(rng *rand.Rand, w []int) int {
	total := 0
	for _, x := range w {
		total += x
	}
	r := rng.IntN(total)
	for i, x := range w {
		if r < x {
			return i
		}
		r -= x
	}
	return len(w) - 1
}

// genBlob is one planned blob file.
type genBlob struct {
	name string
	size int64
}

// planBlobs picks blob sizes (multiples of genBlobStep) until they add up
// to spec.BlobBytes.
func planBlobs(spec genSpec, rng *rand.Rand) []genBlob {
	var out []genBlob
	var total int64
	for total < spec.BlobBytes {
		// Mostly small, some large: the mean is about 1 MiB.
		steps := int64(genBlobMin/genBlobStep) + int64(math.Pow(rng.Float64(), 2.2)*float64((genBlobMax-genBlobMin)/genBlobStep))
		// The last one takes what is left, rounded up to a step.
		size := min(steps*genBlobStep, (spec.BlobBytes-total+genBlobStep-1)/genBlobStep*genBlobStep)
		out = append(out, genBlob{name: fmt.Sprintf("artifact-%04d.bin", len(out)), size: size})
		total += size
	}
	return out
}

// blobWriter writes the planned blob files in the background. Each blob is
// first written to a scratch name; place renames it to its final name (the
// generator learns the ref, and so the file name, only when it writes the
// blob's msg).
type blobWriter struct {
	dir   string
	blobs []genBlob
	done  []chan struct{}
	sums  []string
	mu    sync.Mutex
	first error
	quit  chan struct{}
	wg    sync.WaitGroup
}

// Blob contents are one random pool (genBlobMax bytes) with each file's
// last genBlobStep bytes made unique; the sha256 state of every prefix of
// the pool that is a multiple of genBlobStep is computed once, so a file's
// sum costs one step of hashing instead of its whole size.
func startBlobWriter(dir string, blobs []genBlob) *blobWriter {
	w := &blobWriter{dir: dir, blobs: blobs, done: make([]chan struct{}, len(blobs)), sums: make([]string, len(blobs)), quit: make(chan struct{})}
	for i := range w.done {
		w.done[i] = make(chan struct{})
	}
	pool := make([]byte, genBlobMax)
	var seed [32]byte
	copy(seed[:], "awpbench generated blob pool....")
	_, _ = io.ReadFull(rand.NewChaCha8(seed), pool)
	states := make([][]byte, genBlobMax/genBlobStep+1)
	h := sha256.New()
	for i := range states {
		st, _ := h.(encoding.BinaryMarshaler).MarshalBinary()
		states[i] = st
		if i < len(states)-1 {
			h.Write(pool[i*genBlobStep : (i+1)*genBlobStep])
		}
	}
	next := make(chan int, len(blobs))
	for i := range blobs {
		next <- i
	}
	close(next)
	if err := os.MkdirAll(filepath.Join(dir, "blobs", "gen"), 0o700); err != nil {
		w.fail(err)
	}
	for range genBlobWriter {
		w.wg.Go(func() {
			tail := make([]byte, genBlobStep)
			for i := range next {
				select {
				case <-w.quit:
					return
				default:
				}
				size := w.blobs[i].size
				cut := size - genBlobStep
				copy(tail, pool[cut:size])
				copy(tail, fmt.Sprintf("blob %d of awpbench gen;", i))
				h := sha256.New()
				_ = h.(encoding.BinaryUnmarshaler).UnmarshalBinary(states[cut/genBlobStep])
				h.Write(tail)
				sum := hex.EncodeToString(h.Sum(nil))
				if err := writeFileSync(w.scratch(i), pool[:cut], tail); err != nil {
					w.fail(err)
					close(w.done[i])
					continue
				}
				w.sums[i] = sum
				close(w.done[i])
			}
		})
	}
	return w
}

func (w *blobWriter) scratch(i int) string {
	return filepath.Join(w.dir, "blobs", "gen", strconv.Itoa(i))
}

func (w *blobWriter) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.first == nil {
		w.first = err
	}
}

func (w *blobWriter) err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.first
}

// wait returns blob i's sha256 once its file is written ("" if it failed).
func (w *blobWriter) wait(i int) string {
	<-w.done[i]
	return w.sums[i]
}

// place moves blob i's file to its final name (relative to the data dir).
func (w *blobWriter) place(i int, rel string) error {
	p := filepath.Join(w.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	return os.Rename(w.scratch(i), p)
}

// finish waits for the writers, syncs the blob directories and removes the
// scratch directory.
func (w *blobWriter) finish() error {
	w.wg.Wait()
	if err := w.err(); err != nil {
		return err
	}
	for _, d := range []string{"in", "out"} {
		if err := syncDir(filepath.Join(w.dir, "blobs", d)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return os.Remove(filepath.Join(w.dir, "blobs", "gen"))
}

func (w *blobWriter) stop() {
	select {
	case <-w.quit:
	default:
		close(w.quit)
	}
	w.wg.Wait()
}

func writeFileSync(path string, parts ...[]byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	for _, p := range parts {
		if _, err := f.Write(p); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// msgLine and stateLine build content lines as a node writes them.
func msgLine(id string, ts time.Time, th, subject string, parts []json.RawMessage) []byte {
	b := make([]byte, 0, 256)
	b = append(b, `{"t":"msg","id":"`...)
	b = append(b, id...)
	b = append(b, `","ts":"`...)
	b = append(b, wire.FormatTime(ts)...)
	b = append(b, `","th":"`...)
	b = append(b, th...)
	b = append(b, '"')
	if subject != "" {
		s, _ := json.Marshal(subject)
		b = append(b, `,"subject":`...)
		b = append(b, s...)
	}
	b = append(b, `,"parts":[`...)
	for i, p := range parts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, p...)
	}
	return append(b, "]}"...)
}

func stateLine(id string, ts time.Time, th, state string) []byte {
	return fmt.Appendf(nil, `{"t":"state","id":"%s","ts":"%s","th":"%s","state":"%s"}`, id, wire.FormatTime(ts), th, state)
}

var subjects = []string{
	"Build release artifacts", "Flaky test in the retry queue", "Review: storage compaction",
	"Bump the Go toolchain", "Investigate slow start on laptops", "Port the tray icon to dark mode",
	"Benchmark the blob path", "Triage nightly failures", "Refactor the commit loop", "Write the migration",
}

var words = []string{"the", "build", "passes", "now", "test", "fails", "on", "retry", "queue", "after",
	"merge", "I", "pushed", "a", "fix", "for", "flaky", "timeout", "please", "review", "branch",
	"feature", "looks", "good", "to", "me", "running", "benchmarks", "again", "with", "profiles",
	"store", "compaction", "is", "done", "see", "log", "attached", "waiting", "CI", "green"}

// sentence is 20 to 300 bytes of text.
func sentence(rng *rand.Rand) string {
	n := 20 + int(math.Pow(rng.Float64(), 2)*280)
	b := make([]byte, 0, n+16)
	for len(b) < n {
		if len(b) > 0 {
			b = append(b, ' ')
		}
		b = append(b, words[rng.IntN(len(words))]...)
	}
	return string(b)
}

const base32Lower = "0123456789abcdefghjkmnpqrstvwxyz"

func randBase32(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = base32Lower[rng.IntN(len(base32Lower))]
	}
	return string(b)
}

// genMain is the "gen" subcommand: it writes figure 5's data directory
// (or -quick's) to -data, for profiling and trying the store by hand; the
// identity's seed (hex, as `awpbench node --key` reads it) goes to
// DIR/gen.seed.
func genMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("awpbench gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("data", "", "data directory to create (must not hold a store)")
	quick := fs.Bool("quick", false, "-quick's sizes")
	spec := genFull
	fs.IntVar(&spec.Lines, "lines", 0, "lines (default figure 5's)")
	fs.IntVar(&spec.Threads, "threads", 0, "threads (default figure 5's)")
	fs.Int64Var(&spec.BlobBytes, "blob-bytes", -1, "bytes of blobs (default figure 5's)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *dir == "" {
		fmt.Fprintln(stderr, "awpbench gen: -data is required")
		return 2
	}
	base := genFull
	if *quick {
		base = genQuick
	}
	if spec.Lines == 0 {
		spec.Lines = base.Lines
	}
	if spec.Threads == 0 {
		spec.Threads = base.Threads
	}
	if spec.BlobBytes < 0 {
		spec.BlobBytes = base.BlobBytes
	}
	spec.Peers = base.Peers
	if _, err := os.Stat(filepath.Join(*dir, "awp.db")); err == nil {
		fmt.Fprintf(stderr, "awpbench gen: %s already holds a store\n", *dir)
		return 1
	}
	res, err := generate(*dir, spec, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "awpbench gen:", err)
		return 1
	}
	if err := os.WriteFile(filepath.Join(*dir, "gen.seed"), []byte(hex.EncodeToString(res.Key.Seed())+"\n"), 0o600); err != nil {
		fmt.Fprintln(stderr, "awpbench gen:", err)
		return 1
	}
	if err := writeGenInfo(*dir, res); err != nil {
		fmt.Fprintln(stderr, "awpbench gen:", err)
		return 1
	}
	fmt.Fprintf(stdout, "{\"largest\":%q,\"largest_lines\":%d,\"key\":%q}\n", res.Largest, res.LargestN, res.Key.Public().String())
	return 0
}

// genInfo is DIR/gen.json: what `awpbench -scale-data DIR` needs to know
// of a directory made by `awpbench gen` (its key is in DIR/gen.seed).
type genInfo struct {
	Largest   string  `json:"largest"`
	LargestN  int     `json:"largest_lines"`
	Lines     int     `json:"lines"`
	Threads   int     `json:"threads"`
	Blobs     int     `json:"blobs"`
	BlobBytes int64   `json:"blob_bytes"`
	TookS     float64 `json:"took_s"` // how long the generator took
}

func writeGenInfo(dir string, res genResult) error {
	b, err := json.Marshal(genInfo{Largest: res.Largest, LargestN: res.LargestN, Lines: res.Lines, Threads: res.Threads,
		Blobs: res.Blobs, BlobBytes: res.BlobBytes, TookS: res.Took.Seconds()})
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "gen.json"), b, 0o600)
}

// readGen loads a directory made by `awpbench gen`.
func readGen(dir string) (genResult, error) {
	var res genResult
	var gi genInfo
	b, err := os.ReadFile(filepath.Join(dir, "gen.json"))
	if err == nil {
		err = json.Unmarshal(b, &gi)
	}
	if err != nil {
		return res, fmt.Errorf("%s: not made by awpbench gen: %w", dir, err)
	}
	seed, err := os.ReadFile(filepath.Join(dir, "gen.seed"))
	if err != nil {
		return res, err
	}
	raw, err := hex.DecodeString(strings.TrimSpace(string(seed)))
	if err != nil {
		return res, err
	}
	if res.Key, err = key.FromSeed(raw); err != nil {
		return res, err
	}
	res.Largest, res.LargestN, res.Lines, res.Threads, res.Blobs, res.BlobBytes = gi.Largest, gi.LargestN, gi.Lines, gi.Threads, gi.Blobs, gi.BlobBytes
	res.Took = time.Duration(gi.TookS * float64(time.Second))
	if fi, err := os.Stat(filepath.Join(dir, "awp.db")); err == nil {
		res.DBBytes = fi.Size()
	}
	return res, nil
}
