package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/awp-tray/awp-tray/internal/bufpool"
	"github.com/awp-tray/awp-tray/peer/store"
)

// The machine's own limits, measured in the same run as the figures.

// fsyncPerSec appends 64 bytes and fsyncs, in a loop, for about d.
func fsyncPerSec(dir string, d time.Duration) (float64, error) {
	f, err := os.CreateTemp(dir, "fsync-")
	if err != nil {
		return 0, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	buf := make([]byte, 64)
	for i := range buf {
		buf[i] = 'x'
	}
	n := 0
	start := time.Now()
	for time.Since(start) < d {
		if _, err := f.Write(buf); err != nil {
			return 0, err
		}
		if err := f.Sync(); err != nil {
			return 0, err
		}
		n++
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// benchLine is a small struct shaped like a msg line.
type benchLine struct {
	T     string          `json:"t"`
	ID    string          `json:"id"`
	TS    string          `json:"ts"`
	Th    string          `json:"th"`
	Parts []benchLinePart `json:"parts"`
}

type benchLinePart struct {
	K    string `json:"k"`
	Text string `json:"text"`
}

// jsonLinesPerSec: one goroutine encodes n small structs as JSON lines
// (encoding/json) to a loopback TCP connection, another decodes them.
func jsonLinesPerSec(n int) (float64, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	recvErr := make(chan error, 1)
	got := make(chan int, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			recvErr <- err
			return
		}
		defer c.Close()
		dec := json.NewDecoder(bufio.NewReaderSize(c, 64<<10))
		k := 0
		for {
			var l benchLine
			if err := dec.Decode(&l); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				recvErr <- err
				return
			}
			k++
		}
		got <- k
	}()
	start := time.Now()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		return 0, err
	}
	bw := bufio.NewWriterSize(c, 64<<10)
	enc := json.NewEncoder(bw)
	l := benchLine{T: "msg", ID: "01JABCDEFGHJKMNPQRSTVWXYZ0", TS: "2026-09-25T17:03:11.123Z", Th: "thr_bench0000",
		Parts: []benchLinePart{{K: "text", Text: "a typical short message of about sixty bytes or so"}}}
	for i := range n {
		l.ID = fmt.Sprintf("01JABCDEFGHJKMNPQ%09d", i)
		if err := enc.Encode(&l); err != nil {
			c.Close()
			return 0, err
		}
	}
	if err := bw.Flush(); err != nil {
		c.Close()
		return 0, err
	}
	c.Close()
	select {
	case k := <-got:
		if k != n {
			return 0, fmt.Errorf("json lines: decoded %d of %d", k, n)
		}
	case err := <-recvErr:
		return 0, err
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// tcpMBPerSec copies size bytes over a 127.0.0.1 connection (256 KiB
// buffers on both sides) and returns MB/s (10^6 bytes).
func tcpMBPerSec(size int64) (float64, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	type res struct {
		n   int64
		err error
	}
	got := make(chan res, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- res{err: err}
			return
		}
		defer c.Close()
		n, err := discard(c)
		got <- res{n, err}
	}()
	start := time.Now()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		return 0, err
	}
	src := io.LimitReader(zeroReader{}, size)
	_, err = io.CopyBuffer(struct{ io.Writer }{c}, struct{ io.Reader }{src}, make([]byte, 256<<10))
	c.Close()
	if err != nil {
		return 0, err
	}
	r := <-got
	if r.err != nil {
		return 0, r.err
	}
	if r.n != size {
		return 0, fmt.Errorf("tcp: received %d of %d bytes", r.n, size)
	}
	return float64(size) / 1e6 / time.Since(start).Seconds(), nil
}

// discard reads r to its end in 256 KiB reads and drops the bytes. Both
// sides are wrapped to hide ReaderFrom/WriterTo, so the buffer is used.
func discard(r io.Reader) (int64, error) {
	return io.CopyBuffer(struct{ io.Writer }{io.Discard}, struct{ io.Reader }{r}, make([]byte, 256<<10))
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) { return len(p), nil }

// diskMBPerSec is how fast size bytes can be made durable twice on the
// disk under dir, which is what figure 3 asks of the one disk both nodes
// share here: the sender's staged copy and the receiver's blob file. Each
// copy is a new file written in 2 MiB writes (around the page cache where
// the file system allows, from huge-page memory as the nodes' own buffers)
// and fsync'ed (in the background as it grows, and at the end, as staging
// does); the two are written one after the other and, separately,
// both at once, and the faster way counts. It returns size bytes per second
// of that time.
func diskMBPerSec(dir string, size int64) (float64, error) {
	start := time.Now()
	for range 2 {
		if err := writeDurable(dir, size); err != nil {
			return 0, err
		}
	}
	seq := time.Since(start)
	start = time.Now()
	errs := make(chan error, 2)
	for range 2 {
		go func() { errs <- writeDurable(dir, size) }()
	}
	for range 2 {
		if err := <-errs; err != nil {
			return 0, err
		}
	}
	best := min(seq, time.Since(start))
	return float64(size) / best.Seconds() / 1e6, nil
}

var diskBufs = bufpool.New(2<<20, 2, time.Minute)

func writeDurable(dir string, size int64) error {
	f, err := os.CreateTemp(dir, "disk-")
	if err != nil {
		return err
	}
	name := f.Name()
	defer os.Remove(name)
	defer f.Close()
	w := f
	if d, err := os.OpenFile(name, os.O_WRONLY|oDirect, 0); err == nil && oDirect != 0 {
		defer d.Close()
		w = d
	}
	buf := diskBufs.Get()
	defer diskBufs.Put(buf)
	for i := range buf {
		buf[i] = byte(i * 131)
	}
	var bg store.Syncer
	unsynced := int64(0)
	for done := int64(0); done < size; done += int64(len(buf)) {
		n := min(int64(len(buf)), size-done)
		if n%4096 != 0 {
			w = f // the page cache takes an unaligned tail
		}
		if _, err := w.WriteAt(buf[:n], done); err != nil {
			bg.Wait()
			return err
		}
		if unsynced += n; unsynced >= store.StageSyncEvery && bg.Start(f) {
			unsynced = 0
		}
	}
	if err := bg.Wait(); err != nil {
		return err
	}
	return f.Sync()
}
