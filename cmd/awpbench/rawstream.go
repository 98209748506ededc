package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/transport"
)

// Raw stream rates: bytes through a binding with no AWP on top, the
// baseline the blob figures are measured against (both sides).

// runRaw2 streams size bytes (after rawWarmup) over bd from a sender child
// to a receiver child: the parent's raw measurement with the ends in two
// processes, as the AWP nodes are. Its CPU is both children's over the
// timed part (the sender's from "go" to its stop).
func (b *bench) runRaw2(tag string, size int64, bd binding) (streamRate, error) {
	var rr streamRate
	sz := strconv.FormatInt(size, 10)
	bd.recv = append(append([]string(nil), bd.recv...), "--raw-bytes", sz)
	recv, send, err := b.pair(tag, "raw", bd, "--raw-bytes", sz)
	if err != nil {
		return rr, err
	}
	warm, err := recv.expect("warm", 2*time.Minute)
	if err != nil {
		return rr, err
	}
	if err := send.command("go"); err != nil {
		return rr, err
	}
	going, err := send.expect("going", time.Minute)
	if err != nil {
		return rr, err
	}
	got, err := recv.expect("raw", b.o.timeout)
	if err != nil {
		return rr, err
	}
	sd, _, err := stopPair(send, recv)
	if err != nil {
		return rr, err
	}
	rr.mbs = float64(size) / 1e6 / time.Duration(got.CompleteNS-got.StartNS).Seconds()
	rr.cpu = (got.CPUS - warm.CPUS) + (sd.CPUS - going.CPUS)
	return rr, nil
}

// wgRawMBPerSec is raw TCP through the wg binding: two Managers in this
// process, each with its own wireguard-go device and netstack, UDP over
// 127.0.0.1.
func wgRawMBPerSec(size int64) (streamRate, error) {
	return managerPairMBPerSec(transport.Options{}, "wg://127.0.0.1:0", true, size)
}

// tailcatRawMBPerSec is raw TCP on tunnel port 1 through tailcat: two
// Managers in this process on the relay of o.
func tailcatRawMBPerSec(o transport.TailcatOptions, size int64) (streamRate, error) {
	return managerPairMBPerSec(transport.Options{Tailcat: o}, transport.TailcatListen, false, size)
}

// managerPairMBPerSec makes two Managers with options o and keys of their
// own, and streams size bytes from the second to the first listening on
// addr (managerStreamMBPerSec); allowDialer lets the dialer's key in
// first (the wg binding accepts only keys it was given).
func managerPairMBPerSec(o transport.Options, addr string, allowDialer bool, size int64) (streamRate, error) {
	ka, err := key.NewPrivate()
	if err != nil {
		return streamRate{}, err
	}
	kb, err := key.NewPrivate()
	if err != nil {
		return streamRate{}, err
	}
	oa, od := o, o
	oa.Key, od.Key = ka, kb
	a := transport.New(oa)
	defer a.Close()
	d := transport.New(od)
	defer d.Close()
	if allowDialer {
		a.AllowKey(kb.Public())
	}
	return managerStreamMBPerSec(a, d, addr, size)
}

// rawWarmup is sent through a tunnel before the clock starts: the conn's
// set-up (and for tailcat the switch from DERP to the direct path) is not
// part of the stream rate.
const rawWarmup = 4 << 20

// streamRate is a raw tunnel measurement: MB/s and this process's CPU
// seconds (both Managers) over the timed part.
type streamRate struct {
	mbs, cpu float64
}

// managerStreamMBPerSec listens on addr with a, dials it with d, and
// copies size bytes (after rawWarmup) from the dialer to the listener in
// 256 KiB writes, as peer/transport's benchmarks do.
func managerStreamMBPerSec(a, d *transport.Manager, addr string, size int64) (streamRate, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	l, err := a.Listen(ctx, addr)
	if err != nil {
		return streamRate{}, err
	}
	defer l.Close()
	return streamMBPerSec(l.Accept, func(ctx context.Context) (net.Conn, error) { return dialRetry(ctx, d, l.Addr()) }, size)
}

// streamMBPerSec accepts one conn, dials it with dial, and copies size
// bytes (after rawWarmup) from the dialer to the accepted conn in 256 KiB
// writes.
func streamMBPerSec(accept func() (net.Conn, error), dial func(context.Context) (net.Conn, error), size int64) (streamRate, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	type res struct {
		n   int64
		err error
	}
	warm, got := make(chan res, 1), make(chan res, 1)
	go func() {
		s, err := accept()
		if err != nil {
			warm <- res{err: err}
			return
		}
		defer s.Close()
		n, err := io.CopyN(io.Discard, s, rawWarmup)
		warm <- res{n, err}
		if err != nil {
			return
		}
		n, err = discard(io.LimitReader(s, size))
		got <- res{n, err}
	}()
	c, err := dial(ctx)
	if err != nil {
		return streamRate{}, err
	}
	defer c.Close()
	buf := make([]byte, 256<<10)
	write := func(n int64) error { return writeN(c, buf, n) }
	wait := func(ch chan res, want int64) error {
		select {
		case r := <-ch:
			if r.err != nil {
				return r.err
			}
			if r.n != want {
				return fmt.Errorf("received %d of %d bytes", r.n, want)
			}
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if err := write(rawWarmup); err != nil {
		return streamRate{}, err
	}
	if err := wait(warm, rawWarmup); err != nil {
		return streamRate{}, fmt.Errorf("warm-up: %w", err)
	}
	start, cpu0 := time.Now(), cpuSeconds()
	if err := write(size); err != nil {
		return streamRate{}, err
	}
	if err := wait(got, size); err != nil {
		return streamRate{}, err
	}
	return streamRate{mbs: float64(size) / 1e6 / time.Since(start).Seconds(), cpu: cpuSeconds() - cpu0}, nil
}

// dialRetry dials addr, retrying for a while: a fresh tunnel listener may
// not answer its first dial on a loaded host.
func dialRetry(ctx context.Context, m *transport.Manager, addr string) (net.Conn, error) {
	var last error
	for range 5 {
		dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		c, err := m.Dial(dctx, addr)
		cancel()
		if err == nil {
			return c, nil
		}
		last = err
		if ctx.Err() != nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	return nil, last
}

// writeN writes n bytes to w in writes of len(buf) (the raw stream of the
// tunnel limits).
func writeN(w io.Writer, buf []byte, n int64) error {
	for n > 0 {
		k := min(n, int64(len(buf)))
		if _, err := w.Write(buf[:k]); err != nil {
			return err
		}
		n -= k
	}
	return nil
}

// runRaw is the raw mode: no node, only a transport.Manager streaming bytes
// over the binding as the parent's in-process raw measurement does (256 KiB
// writes, rawWarmup first), but with the two ends in two processes. The
// receiver reports "warm" after the warm-up and "raw" (start and end of the
// timed part) when the rest is in; the sender writes the rest when told
// "go" and reports "going".
func (c *child) runRaw(k key.PrivateKey, tc transport.TailcatOptions) error {
	m := transport.New(transport.Options{Key: k, Tailcat: tc})
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if c.role == "receiver" {
		if !c.trust.IsZero() {
			m.AllowKey(c.trust)
		}
		l, err := m.Listen(ctx, c.listen)
		if err != nil {
			return err
		}
		defer l.Close()
		c.emit(childMsg{Event: "ready", Addr: l.Addr(), Key: k.Public().String()})
		s, err := l.Accept()
		if err != nil {
			return err
		}
		defer s.Close()
		if _, err := io.CopyN(io.Discard, s, rawWarmup); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
		c.emit(childMsg{Event: "warm"})
		start := time.Now()
		n, err := discard(io.LimitReader(s, c.rawBytes))
		if err != nil {
			return err
		}
		if n != c.rawBytes {
			return fmt.Errorf("received %d of %d bytes", n, c.rawBytes)
		}
		c.emit(childMsg{Event: "raw", Size: n, StartNS: start.UnixNano(), CompleteNS: time.Now().UnixNano()})
	} else {
		conn, err := dialRetry(ctx, m, c.addr)
		if err != nil {
			return err
		}
		defer conn.Close()
		buf := make([]byte, 256<<10)
		write := func(n int64) error { return writeN(conn, buf, n) }
		if err := write(rawWarmup); err != nil {
			return err
		}
		if cmd := c.command(); cmd != "go" {
			return fmt.Errorf("want go, got %q", cmd)
		}
		c.emit(childMsg{Event: "going"})
		if err := write(c.rawBytes); err != nil {
			return err
		}
	}
	for c.command() != "stop" {
	}
	c.emit(childMsg{Event: "done", RSSMB: peakRSSMB()})
	return nil
}
