package store

import (
	"crypto/sha256"
	"errors"
	"io"
	"os"
	"sync"
	"time"

	"github.com/awp-tray/awp-tray/internal/bufpool"
)

// Staging reads in stageBlocks blocks of stageBlock bytes, kept between
// copies (huge-page backed where the system allows: a 2 MiB block is then
// one contiguous piece of memory, one request for the disk).
const (
	stageBlock  = 2 << 20
	stageBlocks = 4
)

var stageBufs = bufpool.New(stageBlock, stageBlocks, 10*time.Second)

// WarmStaging faults in staging's blocks and keeps them for good (see
// bufpool.Pool.Warm), and returns their bytes.
func WarmStaging() int {
	stageBufs.Warm(stageBlocks)
	return stageBlocks * stageBlock
}

// StageSyncEvery: while a copy is written, it is fsynced in the background
// each time this many more bytes went to it (one fsync at a time), so the
// disk writes the copy out while the rest is read and hashed, and the
// fsync at the end has little left to do. On this kind of VM the disk
// (virtio, cached on the host) takes writes fast and pays at the flush: a
// 256 MiB copy took 0.35-0.40 s with one fsync at the end, 0.16 s of it in
// that fsync, and 0.27-0.30 s with one every 2-8 MiB (BenchmarkCopySync).
// awpbench's disk limit writes its files the same way.
const StageSyncEvery = 8 << 20

// CopySync copies src to the start of dst, fsyncs dst and returns the byte
// count and the sha256 of the bytes copied. Three goroutines form a
// pipeline (read, hash, write). Whole blocks are written around the page
// cache where the file system allows it (O_DIRECT on a second handle), and
// the chunks are read back the same way (OpenBlobReader): a staged copy is
// read once, chunk by chunk, and filling fresh page-cache pages with it
// costs more than the disk does (on this kind of VM a fresh page costs
// 12-20 us, so 256 MiB of them up to 0.8 s). The rest is written through
// dst with early writeback; fsyncs in the background as the copy grows
// (StageSyncEvery) and one at the end cover both. One function on purpose:
// the reader, the hasher and the writer share the free list, the two
// queues and the stop channel, and the pipeline reads best in one place.
func CopySync(dst *os.File, src io.Reader) (int64, [sha256.Size]byte, error) {
	direct := openDirect(dst.Name()) // nil: refused, or closed after a refusal
	defer func() {
		if direct != nil {
			direct.Close()
		}
	}()
	type block struct {
		b   []byte
		off int64
	}
	free := make(chan []byte, stageBlocks)
	for range stageBlocks {
		free <- stageBufs.Get()
	}
	hashQ := make(chan block, stageBlocks)
	writeQ := make(chan block, stageBlocks)
	var sum [sha256.Size]byte
	var werr error // set by the writer; read after wg.Wait
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		h := sha256.New()
		for b := range hashQ {
			h.Write(b.b)
			writeQ <- b
		}
		h.Sum(sum[:0])
		close(writeQ)
	})
	wg.Go(func() {
		var bg Syncer
		unsynced := 0
		for b := range writeQ {
			if werr == nil {
				if werr = writeStaged(dst, &direct, b.b, b.off); werr != nil {
					close(stop)
				}
				unsynced += len(b.b)
			}
			free <- b.b[:cap(b.b)]
			if werr == nil && unsynced >= StageSyncEvery && bg.Start(dst) {
				unsynced = 0
			}
		}
		if err := bg.Wait(); werr == nil {
			werr = err
		}
	})
	var n int64
	var err error
read:
	for {
		var b []byte
		select {
		case b = <-free:
		case <-stop:
			break read
		}
		var m int
		m, err = io.ReadFull(src, b)
		if m > 0 {
			hashQ <- block{b[:m], n}
			n += int64(m)
		} else {
			free <- b
		}
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				err = nil
			}
			break
		}
	}
	close(hashQ)
	wg.Wait()
	for range stageBlocks {
		stageBufs.Put(<-free)
	}
	if err == nil {
		err = werr
	}
	if err == nil {
		err = dst.Sync()
	}
	return n, sum, err
}

// Syncer runs one fsync at a time in the background (see StageSyncEvery).
// The zero value is ready; one goroutine uses it.
type Syncer struct {
	done chan error // made on first use; the result of the running fsync
	busy bool
	err  error // the first error of a finished fsync
}

// Start begins an fsync of f unless one is still running, and reports
// whether it did.
func (s *Syncer) Start(f *os.File) bool {
	if s.busy {
		select {
		case err := <-s.done:
			s.finished(err)
		default:
			return false
		}
	}
	if s.done == nil {
		s.done = make(chan error, 1)
	}
	s.busy = true
	go func() { s.done <- f.Sync() }()
	return true
}

func (s *Syncer) finished(err error) {
	s.busy = false
	if s.err == nil {
		s.err = err
	}
}

// Wait waits for a running fsync and returns the first error any had: an
// fsync that fails reports it to that call alone (the kernel does not
// report a write-back error twice on one handle), so it must not be lost.
func (s *Syncer) Wait() error {
	if s.busy {
		s.finished(<-s.done)
	}
	return s.err
}

// writeStaged writes one block of a staged copy: directly where it is
// aligned and *direct is open, else through f with early writeback. A
// refused direct write closes *direct and is retried through f.
func writeStaged(f *os.File, direct **os.File, b []byte, off int64) error {
	if *direct != nil && directAligned(off, b) {
		if _, err := (*direct).WriteAt(b, off); err == nil {
			return nil
		}
		(*direct).Close()
		*direct = nil
	}
	if _, err := f.WriteAt(b, off); err != nil {
		return err
	}
	startWriteback(f, off, int64(len(b)))
	return nil
}

// BlobReader reads pieces of a blob file, around the page cache where the
// file system allows it (see CopySync).
type BlobReader struct {
	f      *os.File
	direct *os.File // nil: not possible here, or refused once
}

// OpenBlobReader opens the blob file at path for reading.
func OpenBlobReader(path string) (*BlobReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &BlobReader{f: f, direct: openDirectRead(path)}, nil
}

// ReadAt reads into p from off, as much as the file has up to len(p), and
// fails unless that is at least need bytes. A direct read needs an aligned
// offset and memory, and room in p's capacity to read a whole number of
// blocks (the bytes past len(p) are scratch).
func (r *BlobReader) ReadAt(p []byte, off int64, need int) (int, error) {
	if r.direct != nil {
		if n := alignUp(len(p)); cap(p) >= n && directAligned(off, p[:n]) {
			m, err := r.direct.ReadAt(p[:n], off)
			if m >= need && (err == nil || errors.Is(err, io.EOF)) {
				return min(m, len(p)), nil
			}
			if err == nil || !errors.Is(err, io.EOF) {
				// Refused: read it the ordinary way, which reports a real
				// failure, and stop trying direct reads.
				r.direct.Close()
				r.direct = nil
			}
		}
	}
	m, err := r.f.ReadAt(p, off)
	if m >= need && (err == nil || errors.Is(err, io.EOF)) {
		return m, nil
	}
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return m, err
}

// Close closes the file.
func (r *BlobReader) Close() error {
	if r.direct != nil {
		r.direct.Close()
	}
	return r.f.Close()
}

func alignUp(n int) int { return (n + directAlign - 1) &^ (directAlign - 1) }
