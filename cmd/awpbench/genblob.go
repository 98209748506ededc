package main

// The blob files of a generated data directory: their sizes, and the
// writers that make them while the lines go into the store.

import (
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/awp-tray/awp-tray/internal/dirsync"
)

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
		if err := dirsync.Sync(filepath.Join(w.dir, "blobs", d)); err != nil && !errors.Is(err, os.ErrNotExist) {
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
