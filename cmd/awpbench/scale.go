package main

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/localapi"
)

// Goals of figure 5 (issue 22).
const (
	goalScaleStartS   = 1.0
	goalScaleThreadMS = 100.0
	goalScaleOpenMS   = 50.0
	goalScaleRSSMB    = 100.0
	scaleOpenLines    = 200 // "the last 200 lines of the largest thread"
	scaleRepeats      = 5   // warm calls timed after the first (the figure is their median)
)

// scaleFig is figure 5: a node started on months of history (a generated
// data directory: -scale-lines lines in -scale-threads threads and
// -scale-blob-mb of blob files), its start until the local API answers,
// `awp threads`, the last 200 lines of the largest thread and its RSS.
func (b *bench) scaleFig() error {
	o, r := b.o, &b.res
	dir := filepath.Join(b.tmp, "scale-node")
	if o.scaleData != "" {
		// A directory `awpbench gen` made (to profile without waiting for
		// the generator each time): used as it is, and kept.
		dir = o.scaleData
	} else {
		defer os.RemoveAll(dir) // 2 GB: gone before the next figure
	}
	gen, kf, err := b.scaleGen(dir)
	if err != nil {
		return err
	}

	// The same-run floor: a node started on an empty data directory.
	empty, err := b.scaleStart(filepath.Join(b.tmp, "scale-empty"), kf)
	if err != nil {
		return fmt.Errorf("empty start: %w", err)
	}
	if _, err := empty.p.stop(time.Minute); err != nil {
		return err
	}
	r.ScaleStartEmptyS = round(empty.took.Seconds(), 3)

	// The store's pages leave the page cache first: a start after a
	// reboot, not right after the generator wrote them.
	settle()
	if err := evictCache(filepath.Join(dir, "awp.db")); err != nil {
		b.printf("   scale: could not evict awp.db from the page cache (%v): the start is a warm one", err)
	}
	st, err := b.scaleStart(dir, kf)
	if err != nil {
		return err
	}
	r.ScaleStartS = round(st.took.Seconds(), 3)
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	threads, err := b.scaleThreads(ctx, st, gen)
	if err != nil {
		return err
	}
	opens, err := scaleOpens(ctx, st.c, gen)
	if err != nil {
		return err
	}
	done, err := st.p.stop(time.Minute)
	if err != nil {
		return err
	}
	ms := func(d time.Duration) float64 { return round(float64(d)/1e6, 2) }
	r.ScaleThreadsFirstMS = ms(threads[0])
	r.ScaleThreadsMS = ms(median(threads[1:]))
	r.ScaleOpenFirstMS = ms(opens[0])
	r.ScaleOpenMS = ms(median(opens[1:]))
	r.ScaleRSSMB = round(done.RSSMB, 1)
	b.printf("5. months of history (%d lines, %d threads, %.1f GB of blobs): start to ready %.3f s (empty data dir %.3f s; goal <= %.0f s: %s); "+
		"awp threads %.1f ms median of %d (first %.1f ms, CPU %.1f ms a call; goal <= %.0f ms: %s); last %d lines of the largest thread (%d lines) %.2f ms (first %.2f ms; goal <= %.0f ms: %s); "+
		"node peak RSS %.1f MiB (goal <= %.0f: %s)",
		gen.Lines, gen.Threads, float64(gen.BlobBytes)/1e9, r.ScaleStartS, r.ScaleStartEmptyS, goalScaleStartS, verdict(r.ScaleStartS <= goalScaleStartS),
		r.ScaleThreadsMS, scaleRepeats, r.ScaleThreadsFirstMS, r.ScaleThreadsCPUMS, goalScaleThreadMS, verdict(r.ScaleThreadsMS <= goalScaleThreadMS),
		scaleOpenLines, gen.LargestN, r.ScaleOpenMS, r.ScaleOpenFirstMS, goalScaleOpenMS, verdict(r.ScaleOpenMS <= goalScaleOpenMS),
		r.ScaleRSSMB, goalScaleRSSMB, verdict(r.ScaleRSSMB <= goalScaleRSSMB))
	return nil
}

// scaleGen generates figure 5's data directory at dir, or reads the one
// -scale-data names, and writes its key's seed to a file for the node.
func (b *bench) scaleGen(dir string) (gen genResult, keyFile string, err error) {
	o, r := b.o, &b.res
	spec := genFull
	if o.quick {
		spec = genQuick
	}
	spec.Lines, spec.Threads, spec.BlobBytes = o.scaleLines, o.scaleThreads, int64(o.scaleBlobMB)*1e6
	spec.Peers = min(spec.Peers, spec.Threads)
	t0 := time.Now()
	if o.scaleData != "" {
		gen, err = readGen(dir)
	} else {
		gen, err = generate(dir, spec, b.out)
	}
	if err != nil {
		return gen, "", fmt.Errorf("generate: %w", err)
	}
	r.ScaleLines, r.ScaleThreads, r.ScaleBlobs = gen.Lines, gen.Threads, gen.Blobs
	r.ScaleBlobMB = round(float64(gen.BlobBytes)/1e6, 1)
	r.ScaleDBMB = round(float64(gen.DBBytes)/1e6, 1)
	r.ScaleGenS = round(time.Since(t0).Seconds(), 2)
	if gen.Took > 0 { // a directory made earlier: how long its generator took
		r.ScaleGenS = round(gen.Took.Seconds(), 2)
	}
	b.printf("   scale: generated %d lines in %d threads (largest %d), %d blobs of %.0f MB, awp.db %.0f MB in %.1f s",
		gen.Lines, gen.Threads, gen.LargestN, gen.Blobs, r.ScaleBlobMB, r.ScaleDBMB, r.ScaleGenS)
	keyFile = filepath.Join(b.tmp, "scale.seed")
	if err := os.WriteFile(keyFile, []byte(hex.EncodeToString(gen.Key.Seed())+"\n"), 0o600); err != nil {
		return gen, "", err
	}
	return gen, keyFile, nil
}

// scaleThreads times `awp threads` on the node, scaleRepeats+1 times,
// and puts the CPU time of a call (the node's and this process's: a
// figure the machine's load does not stretch, beside the wall time) in
// scale_threads_cpu_ms.
func (b *bench) scaleThreads(ctx context.Context, st *scaleNode, gen genResult) ([]time.Duration, error) {
	nodeCPU := func() (float64, error) {
		if err := st.p.command("cpu"); err != nil {
			return 0, err
		}
		m, err := st.p.expect("cpu", time.Minute)
		return m.CPUS, err
	}
	n0, err := nodeCPU()
	if err != nil {
		return nil, err
	}
	c0 := cpuSeconds()
	var threads []time.Duration
	for i := range scaleRepeats + 1 {
		t := time.Now()
		ths, err := st.c.Threads(ctx)
		if err != nil {
			return nil, fmt.Errorf("threads: %w", err)
		}
		threads = append(threads, time.Since(t))
		if i == 0 && len(ths) != gen.Threads {
			return nil, fmt.Errorf("threads: %d listed, %d generated", len(ths), gen.Threads)
		}
	}
	c1 := cpuSeconds()
	n1, err := nodeCPU()
	if err != nil {
		return nil, err
	}
	b.res.ScaleThreadsCPUMS = round((n1-n0+c1-c0)*1e3/(scaleRepeats+1), 2)
	return threads, nil
}

// scaleOpens times reading the last scaleOpenLines lines of the largest
// thread, scaleRepeats+1 times, and checks they are the right ones.
func scaleOpens(ctx context.Context, c *localapi.Client, gen genResult) ([]time.Duration, error) {
	var opens []time.Duration
	for range scaleRepeats + 1 {
		t := time.Now()
		ls, err := c.LinesLast(ctx, gen.Largest, key.PublicKey{}, scaleOpenLines)
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", gen.Largest, err)
		}
		opens = append(opens, time.Since(t))
		want := min(scaleOpenLines, gen.LargestN)
		if len(ls) != want || ls[len(ls)-1].Seq != uint64(gen.LargestN) || ls[0].Seq != uint64(gen.LargestN-want+1) {
			return nil, fmt.Errorf("open %s: %d lines ending at #%d, want %d ending at #%d", gen.Largest, len(ls), lastSeq(ls), want, gen.LargestN)
		}
	}
	return opens, nil
}

// scaleNode is a node child started on a data directory, and how long
// its local API took to answer.
type scaleNode struct {
	p    *proc
	c    *localapi.Client
	took time.Duration
}

// scaleStart starts a node child on dir and times it from the exec until
// its local API answers.
func (b *bench) scaleStart(dir, kf string) (*scaleNode, error) {
	args := []string{"--role", "node", "--mode", "scale", "--data", dir, "--key", kf}
	if b.o.nosync {
		args = append(args, "--nosync")
	}
	if b.o.cpuprofile != "" {
		args = append(args, "--cpuprofile", filepath.Join(b.o.cpuprofile, "scale-"+filepath.Base(dir)+".pprof"))
	}
	c := localapi.NewClient(localapi.SocketPath(dir))
	t0 := time.Now()
	p, err := startChild(b.self, "scale "+filepath.Base(dir), args...)
	if err != nil {
		return nil, err
	}
	b.procs = append(b.procs, p)
	deadline := t0.Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := c.Identity(ctx)
		cancel()
		if err == nil {
			return &scaleNode{p: p, c: c, took: time.Since(t0)}, nil
		}
		select {
		case <-p.exited:
			return nil, p.fail(fmt.Sprintf("exited (%v) before its local API answered", p.err))
		default:
		}
		if time.Now().After(deadline) {
			p.kill()
			return nil, p.fail(fmt.Sprintf("local API not answering after a minute: %v", err))
		}
		if !errors.Is(err, localapi.ErrNotRunning) {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(time.Millisecond)
	}
}

func lastSeq(ls []peer.LineInfo) uint64 {
	if len(ls) == 0 {
		return 0
	}
	return ls[len(ls)-1].Seq
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return quantile(s, 0.5)
}
