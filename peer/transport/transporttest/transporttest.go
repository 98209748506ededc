// Package transporttest is the conformance table every AWP transport
// passes (every transport runs one test table): echo both ways, a 16 MiB transfer in both
// directions at once, many concurrent connections, EOF on close, write
// after close, deadlines, and Listener.Close unblocking Accept. It also
// holds the goroutine-leak check (NoLeaks) that every scenario runs under.
//
// It is for tests only.
package transporttest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer/transport"
)

// DialFunc dials the listener a MakeFunc returned.
type DialFunc func(ctx context.Context) (net.Conn, error)

// MakeFunc starts a fresh listener for one scenario and returns it with a
// way to dial it. It registers its own cleanup on t (closing managers and
// devices); the scenario closes the listener itself too.
type MakeFunc func(t *testing.T) (transport.Listener, DialFunc)

// TransferSize is what the transfer scenario sends each way.
const TransferSize = 16 << 20

// Conns is how many connections the concurrency scenario opens at once.
const Conns = 24

// opTimeout bounds each scenario's blocking steps so that a broken
// transport fails with a message instead of hanging. It is a liveness
// bound, not a speed assertion.
const opTimeout = 60 * time.Second

// Run runs every scenario against the transport mk makes.
func Run(t *testing.T, mk MakeFunc) {
	scenarios := []struct {
		name string
		fn   func(t *testing.T, l transport.Listener, dial DialFunc)
	}{
		{"Addr", testAddr},
		{"Echo", testEcho},
		{"Transfer16MiB", testTransfer},
		{"ManyConns", testManyConns},
		{"CloseGivesEOF", testCloseEOF},
		{"WriteAfterClose", testWriteAfterClose},
		{"Deadlines", testDeadlines},
		{"CloseUnblocksAccept", testCloseUnblocksAccept},
	}
	for _, s := range scenarios {
		t.Run(s.name, func(t *testing.T) {
			NoLeaks(t)
			l, dial := mk(t)
			t.Cleanup(func() { l.Close() })
			s.fn(t, l, dial)
		})
	}
}

func ctxFor(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	t.Cleanup(cancel)
	return ctx
}

// Pair dials l and accepts the connection, returning both ends. Both are
// closed when the test ends.
func Pair(t testing.TB, l transport.Listener, dial DialFunc) (client, server net.Conn) {
	t.Helper()
	type res struct {
		c   net.Conn
		err error
	}
	ch := make(chan res, 1)
	go func() {
		c, err := l.Accept()
		ch <- res{c, err}
	}()
	client, err := dial(ctxFor(t))
	if err != nil {
		l.Close() // unblocks the Accept goroutine
		<-ch
		t.Fatalf("dial %s: %v", l.Addr(), err)
	}
	r := <-ch
	if r.err != nil {
		client.Close()
		t.Fatalf("accept on %s: %v", l.Addr(), r.err)
	}
	t.Cleanup(func() {
		client.Close()
		r.c.Close()
	})
	return client, r.c
}

func testAddr(t *testing.T, l transport.Listener, _ DialFunc) {
	a, err := transport.ParseAddr(l.Addr())
	if err != nil {
		t.Fatalf("Listener.Addr() = %q does not parse: %v", l.Addr(), err)
	}
	if (a.Scheme == transport.SchemeTCP || a.Scheme == transport.SchemeWG) && a.Port == 0 {
		t.Fatalf("Listener.Addr() = %q: port not resolved", l.Addr())
	}
}

// testEcho sends a line each way, each side speaking first once.
func testEcho(t *testing.T, l transport.Listener, dial DialFunc) {
	c, s := Pair(t, l, dial)
	for i, dir := range []struct {
		name     string
		from, to net.Conn
	}{{"client→server", c, s}, {"server→client", s, c}, {"client→server again", c, s}} {
		msg := []byte(fmt.Sprintf("hello %d over %s\n", i, dir.name))
		errc := make(chan error, 1)
		go func() {
			_, err := dir.from.Write(msg)
			errc <- err
		}()
		got := make([]byte, len(msg))
		if _, err := io.ReadFull(dir.to, got); err != nil {
			t.Fatalf("%s: read: %v", dir.name, err)
		}
		if err := <-errc; err != nil {
			t.Fatalf("%s: write: %v", dir.name, err)
		}
		if !bytes.Equal(got, msg) {
			t.Fatalf("%s: got %q, want %q", dir.name, got, msg)
		}
	}
}

// send writes n pseudo-random bytes from seed and returns their SHA-256.
func send(w io.Writer, seed uint64, n int) ([32]byte, error) {
	src := rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8)})
	h := sha256.New()
	buf := make([]byte, 32<<10)
	for n > 0 {
		b := buf[:min(n, len(buf))]
		src.Read(b)
		h.Write(b)
		if _, err := w.Write(b); err != nil {
			return [32]byte{}, err
		}
		n -= len(b)
	}
	return [32]byte(h.Sum(nil)), nil
}

// recv reads exactly n bytes and returns their SHA-256.
func recv(r io.Reader, n int) ([32]byte, error) {
	h := sha256.New()
	if _, err := io.CopyN(h, r, int64(n)); err != nil {
		return [32]byte{}, err
	}
	return [32]byte(h.Sum(nil)), nil
}

// testTransfer sends TransferSize bytes each way at the same time and
// compares checksums.
func testTransfer(t *testing.T, l transport.Listener, dial DialFunc) {
	c, s := Pair(t, l, dial)
	type result struct {
		sum [32]byte
		err error
	}
	var sentC, sentS, gotC, gotS result
	var wg sync.WaitGroup
	wg.Add(4)
	go func() { defer wg.Done(); sentC.sum, sentC.err = send(c, 1, TransferSize) }()
	go func() { defer wg.Done(); sentS.sum, sentS.err = send(s, 2, TransferSize) }()
	go func() { defer wg.Done(); gotS.sum, gotS.err = recv(s, TransferSize) }()
	go func() { defer wg.Done(); gotC.sum, gotC.err = recv(c, TransferSize) }()
	waitOrFail(t, &wg, c, s)
	for name, r := range map[string]result{"client send": sentC, "server send": sentS, "server recv": gotS, "client recv": gotC} {
		if r.err != nil {
			t.Fatalf("%s: %v", name, r.err)
		}
	}
	if gotS.sum != sentC.sum {
		t.Errorf("client→server: checksum mismatch")
	}
	if gotC.sum != sentS.sum {
		t.Errorf("server→client: checksum mismatch")
	}
}

// waitOrFail waits for wg; if it takes longer than opTimeout, it closes the
// conns (unblocking the workers) and fails.
func waitOrFail(t *testing.T, wg *sync.WaitGroup, conns ...net.Conn) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(opTimeout):
		for _, c := range conns {
			c.Close()
		}
		<-done
		t.Fatalf("transfer did not finish within %v", opTimeout)
	}
}

// testManyConns opens Conns connections at once, each echoing its own
// message through a server goroutine.
func testManyConns(t *testing.T, l transport.Listener, dial DialFunc) {
	var srv sync.WaitGroup
	srv.Add(1)
	go func() {
		defer srv.Done()
		for i := 0; i < Conns; i++ {
			c, err := l.Accept()
			if err != nil {
				return
			}
			srv.Add(1)
			go func() {
				defer srv.Done()
				defer c.Close()
				io.Copy(c, c)
			}()
		}
	}()
	ctx := ctxFor(t)
	errs := make(chan error, Conns)
	var cli sync.WaitGroup
	for i := 0; i < Conns; i++ {
		cli.Add(1)
		go func() {
			defer cli.Done()
			errs <- echoOnce(ctx, dial, i)
		}()
	}
	cli.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if err != nil {
			failed++
			t.Error(err)
		}
	}
	if failed > 0 {
		l.Close() // lets the accept loop end
	}
	srv.Wait()
}

func echoOnce(ctx context.Context, dial DialFunc, i int) error {
	c, err := dial(ctx)
	if err != nil {
		return fmt.Errorf("conn %d: dial: %w", i, err)
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	msg := bytes.Repeat([]byte(fmt.Sprintf("conn %04d|", i)), 100)
	if _, err := c.Write(msg); err != nil {
		return fmt.Errorf("conn %d: write: %w", i, err)
	}
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(c, got); err != nil {
		return fmt.Errorf("conn %d: read: %w", i, err)
	}
	if !bytes.Equal(got, msg) {
		return fmt.Errorf("conn %d: echo mismatch", i)
	}
	return nil
}

// testCloseEOF closes one side and expects io.EOF on the other, both ways.
func testCloseEOF(t *testing.T, l transport.Listener, dial DialFunc) {
	for _, closeClient := range []bool{true, false} {
		c, s := Pair(t, l, dial)
		closer, other := c, s
		if !closeClient {
			closer, other = s, c
		}
		// Some data first, so EOF is not confused with "never connected".
		go closer.Write([]byte("bye"))
		got := make([]byte, 3)
		if _, err := io.ReadFull(other, got); err != nil || string(got) != "bye" {
			t.Fatalf("closeClient=%v: read before close: %q, %v", closeClient, got, err)
		}
		if err := closer.Close(); err != nil {
			t.Fatalf("closeClient=%v: close: %v", closeClient, err)
		}
		other.SetReadDeadline(time.Now().Add(opTimeout))
		n, err := other.Read(make([]byte, 16))
		if n != 0 || err != io.EOF {
			t.Fatalf("closeClient=%v: read after peer close = %d, %v; want 0, io.EOF", closeClient, n, err)
		}
	}
}

// testWriteAfterClose expects Write to fail after a local Close, and to
// fail eventually after the peer closed.
func testWriteAfterClose(t *testing.T, l transport.Listener, dial DialFunc) {
	c, s := Pair(t, l, dial)
	if err := c.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if _, err := c.Write([]byte("x")); err == nil {
		t.Fatal("write after local close succeeded")
	}
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatal("read after local close succeeded")
	}
	// The peer (s) closed its end: a stream transport may buffer a write
	// or two before the reset arrives, but never 64 MiB.
	s.SetWriteDeadline(time.Now().Add(opTimeout))
	buf := make([]byte, 64<<10)
	var err error
	for i := 0; i < 1024 && err == nil; i++ {
		_, err = s.Write(buf)
	}
	if err == nil {
		t.Fatal("64 MiB of writes to a closed peer all succeeded")
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("writes to a closed peer blocked until the deadline instead of failing: %v", err)
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// testDeadlines checks read and write deadlines: expiry, a deadline set
// while a Read is blocked, and clearing a deadline.
func testDeadlines(t *testing.T, l transport.Listener, dial DialFunc) {
	c, s := Pair(t, l, dial)

	// A read deadline in the near future expires with a timeout error.
	c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if _, err := c.Read(make([]byte, 1)); !isTimeout(err) {
		t.Fatalf("read past deadline: err = %v, want a timeout", err)
	}

	// A deadline set while Read is blocked unblocks it.
	c.SetReadDeadline(time.Time{})
	errc := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 1))
		errc <- err
	}()
	time.Sleep(10 * time.Millisecond) // let Read block; the result holds either way
	c.SetReadDeadline(time.Now())
	if err := <-errc; !isTimeout(err) {
		t.Fatalf("blocked read after SetReadDeadline(now): err = %v, want a timeout", err)
	}

	// Cleared, the conn still reads.
	c.SetReadDeadline(time.Time{})
	go s.Write([]byte("k"))
	b := make([]byte, 1)
	if _, err := io.ReadFull(c, b); err != nil || b[0] != 'k' {
		t.Fatalf("read after clearing the deadline: %q, %v", b, err)
	}

	// A write deadline in the past fails the write with a timeout.
	c.SetWriteDeadline(time.Now().Add(-time.Second))
	if _, err := c.Write([]byte("late")); !isTimeout(err) {
		t.Fatalf("write past deadline: err = %v, want a timeout", err)
	}
	c.SetWriteDeadline(time.Time{})
	go c.Write([]byte("w"))
	if _, err := io.ReadFull(s, b); err != nil || b[0] != 'w' {
		t.Fatalf("write after clearing the deadline: %q, %v", b, err)
	}
}

// testCloseUnblocksAccept closes the listener under a blocked Accept.
func testCloseUnblocksAccept(t *testing.T, l transport.Listener, _ DialFunc) {
	errc := make(chan error, 1)
	go func() {
		_, err := l.Accept()
		errc <- err
	}()
	time.Sleep(10 * time.Millisecond) // let Accept block; the result holds either way
	if err := l.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("Accept after Close: err = %v, want one wrapping net.ErrClosed", err)
		}
	case <-time.After(opTimeout):
		t.Fatal("Accept still blocked after Listener.Close")
	}
	if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("second Accept after Close: err = %v, want net.ErrClosed", err)
	}
	if err := l.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// Carry writes msg on from and checks that to reads it, whole, within
// opTimeout.
func Carry(t testing.TB, from, to net.Conn, msg string) {
	t.Helper()
	go from.Write([]byte(msg))
	got := make([]byte, len(msg))
	to.SetReadDeadline(time.Now().Add(opTimeout))
	if _, err := io.ReadFull(to, got); err != nil || string(got) != msg {
		t.Fatalf("carrying %q: got %q, %v", msg, got, err)
	}
}
