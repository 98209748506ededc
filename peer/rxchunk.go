package peer

import (
	"encoding/base64"
	"sync"
	"sync/atomic"

	"github.com/awp-tray/awp-tray/internal/bufpool"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// chunkBufSize is the room a received chunk's data is decoded into: the
// decoded length base64 allows for the longest legal chunk.
var chunkBufSize = base64.StdEncoding.DecodedLen(base64.StdEncoding.EncodedLen(wire.MaxChunkData))

// chunkBufs holds buffers for received chunk data, reused once the chunk is
// written and hashed (see hashJob), or after its commit (a fresh 512 KiB
// slice per chunk costs more in clearing, page faults and GC than decoding
// into it). It keeps up to twice what the in-flight budget can hold, across
// collections, until unused for a while.
var chunkBufs = bufpool.New(chunkBufSize, 2*maxInflight/chunkBufSize, bufIdle)

func getChunkBuf() []byte { return chunkBufs.Get() }

// putChunkBuf returns b to the pool when it is one of its buffers.
func putChunkBuf(b []byte) { chunkBufs.Put(b) }

// sameBuf reports whether a and b share their first byte.
func sameBuf(a, b []byte) bool {
	return cap(a) > 0 && cap(b) > 0 && &a[:1][0] == &b[:1][0]
}

// chunkWorker writes one session's received chunks into their blob files
// and hashes them, off the reader's goroutine, while the reader decodes the
// next lines and the commit loop fsyncs earlier ones: rxWriters goroutines
// write (a direct write waits for the disk), one hashes in arrival order.
// The commit loop waits for a chunk's write before its fsync and for its
// hash before its transaction, where the hash costs nothing but a check
// that the state computed ahead follows the stored one
// (store.DB.ApplyChunkHashed); a wrong guess only costs the commit loop the
// hashing it always did.
type chunkWorker struct {
	n      *Node
	writes chan *hashJob
	hashes chan *hashJob
	wg     sync.WaitGroup

	// Used only on the hashing goroutine: where each blob's chain of
	// hashed chunks ends.
	next map[string]hashTail
}

type hashTail struct {
	off   int64
	state []byte
}

// hashJob is one chunk to write and hash: written is closed once the bytes
// are in the file (err set if that failed), hashed once res is set. When
// both are done, the write succeeded and the hash was computed, the worker
// returns data's buffer to the pool and size bytes of the node's in-flight
// budget (its length), and sets released (before the second channel closes): the commit
// then needs only the hash, and reads the bytes back from the file in the
// rare case the stored state moved (store.DB.ApplyChunkHashed). So the
// buffers in use are those still being written or hashed, not every chunk
// waiting for its commit (fresh memory costs here: see internal/bufpool).
type hashJob struct {
	file string
	off  int64
	data []byte
	end  bool

	pending  atomic.Int32 // the writer and the hasher, until each is done
	released bool
	// The blob record as the reader saw it (it may lag the chain).
	recOK       bool
	recReceived int64
	recState    []byte
	err         error
	res         store.ChunkHash
	written     chan struct{}
	hashed      chan struct{}
}

// submit queues c to be written to file and hashed; rec is the blob record
// the reader read (nil: none yet) when looked, else nothing was read (the
// reader knows the chunk follows one it handed on). Only the reader
// goroutine calls it.
func (h *chunkWorker) submit(file string, c *wire.Chunk, rec *store.Blob, looked bool) *hashJob {
	if h.writes == nil {
		h.writes = make(chan *hashJob, rxQueue)
		h.hashes = make(chan *hashJob, rxQueue)
		h.next = map[string]hashTail{}
		for range rxWriters {
			h.wg.Go(h.writeLoop)
		}
		h.wg.Go(h.hashLoop)
	}
	j := &hashJob{file: file, off: c.Off, data: c.Data, end: c.End,
		written: make(chan struct{}), hashed: make(chan struct{})}
	j.pending.Store(2)
	switch {
	case !looked:
		// The chunk after one this worker saw: its chain says the state.
	case rec == nil:
		j.recOK = true // announced in the same batch: nothing hashed yet
	case !rec.Unordered:
		j.recOK, j.recReceived, j.recState = true, rec.Received, rec.HashState
	}
	h.writes <- j
	h.hashes <- j
	return j
}

// stop ends the worker's goroutines once the queued jobs are done, and
// waits for them (so no write outlives the session). Only the reader
// goroutine calls it, after its last submit.
func (h *chunkWorker) stop() {
	if h.writes != nil {
		close(h.writes)
		close(h.hashes)
		h.wg.Wait()
	}
}

// writeLoop writes queued chunks; chunks already waiting that continue the
// one it took in the same file go with it in one write (store.WriteBlobRun).
func (h *chunkWorker) writeLoop() {
	var run []*hashJob
	var bufs [][]byte
	var next *hashJob // taken from the queue, not part of the run
	for {
		j := next
		next = nil
		if j == nil {
			var ok bool
			if j, ok = <-h.writes; !ok {
				return
			}
		}
		run, bufs = append(run[:0], j), append(bufs[:0], j.data)
		size := len(j.data)
	more:
		for size < maxWriteRun {
			select {
			case k, ok := <-h.writes:
				if !ok {
					break more
				}
				last := run[len(run)-1]
				if k.file != j.file || k.off != last.off+int64(len(last.data)) {
					next = k
					break more
				}
				run, bufs = append(run, k), append(bufs, k.data)
				size += len(k.data)
			default:
				break more
			}
		}
		err := h.n.db.WriteBlobRun(j.file, j.off, bufs)
		for _, k := range run {
			k.err = err
			h.done(k)
			close(k.written)
		}
		clear(bufs)
	}
}

func (h *chunkWorker) hashLoop() {
	for j := range h.hashes {
		h.hash(j)
		h.done(j)
		close(j.hashed)
	}
}

// done is called by the writer and by the hasher once each is through with
// j; the second returns j's buffer and budget if the commit will not need
// the bytes (see hashJob).
func (h *chunkWorker) done(j *hashJob) {
	if j.pending.Add(-1) != 0 {
		return
	}
	if j.err == nil && j.res.After != nil {
		h.n.inflight.release(len(j.data))
		putChunkBuf(j.data)
		j.data = nil
		j.released = true
	}
}

func (h *chunkWorker) hash(j *hashJob) {
	var before []byte
	if t, ok := h.next[j.file]; ok && t.off == j.off {
		before = t.state
	} else if j.recOK && j.recReceived == j.off {
		before = j.recState
	} else {
		// Out of order (or a replay): the commit loop decides.
		delete(h.next, j.file)
		return
	}
	after, ok := store.HashChunk(before, j.data)
	if !ok {
		delete(h.next, j.file)
		return
	}
	j.res = store.ChunkHash{Before: before, After: after}
	if j.end {
		delete(h.next, j.file)
		return
	}
	if len(h.next) >= maxHashTails {
		clear(h.next)
	}
	h.next[j.file] = hashTail{off: j.off + int64(len(j.data)), state: after}
}
