package store

import (
	"crypto/sha256"
	"errors"
	"io"
	"os"
)

// Staging copies in stageBlocks blocks of stageBlock bytes, asks the
// kernel to start writing every stageWriteback bytes to disk, and fsyncs
// (in the background, one at a time) every stageSync bytes.
const (
	stageBlock     = 1 << 20
	stageBlocks    = 4
	stageWriteback = 8 << 20
	stageSync      = 32 << 20
)

// CopySync copies src to the start of dst, fsyncs dst and returns the byte
// count and the sha256 of the bytes copied. The hash runs on a second
// goroutine beside the copy, and dst's bytes are handed to the disk and
// flushed in the background as they are written, so the fsync at the end
// has little left to wait for.
func CopySync(dst *os.File, src io.Reader) (int64, [sha256.Size]byte, error) {
	free := make(chan []byte, stageBlocks)
	for range stageBlocks {
		free <- make([]byte, stageBlock)
	}
	// The hasher takes blocks in order and hands each back when done.
	blocks := make(chan []byte, stageBlocks)
	hashed := make(chan [sha256.Size]byte, 1)
	go func() {
		h := sha256.New()
		for b := range blocks {
			h.Write(b)
			free <- b[:cap(b)]
		}
		var s [sha256.Size]byte
		h.Sum(s[:0])
		hashed <- s
	}()
	var n, started, flushed int64
	var flushing chan struct{} // closed when the background fsync returns
	var err error
	for {
		b := <-free
		var m int
		m, err = io.ReadFull(src, b)
		if m > 0 {
			blocks <- b[:m]
			if _, werr := dst.Write(b[:m]); werr != nil {
				err = werr
				break
			}
			n += int64(m)
			if n-started >= stageWriteback {
				startWriteback(dst, started, n-started)
				started = n
			}
			if n-flushed >= stageSync && chanDone(flushing) {
				flushed = n
				flushing = make(chan struct{})
				go func(ch chan struct{}) {
					// Only to spread the disk's work: the fsync below decides.
					_ = dst.Sync()
					close(ch)
				}(flushing)
			}
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
	close(blocks)
	sum := <-hashed
	if flushing != nil {
		<-flushing
	}
	if err == nil {
		err = dst.Sync()
	}
	return n, sum, err
}

// chanDone reports whether ch is nil or closed.
func chanDone(ch chan struct{}) bool {
	if ch == nil {
		return true
	}
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
