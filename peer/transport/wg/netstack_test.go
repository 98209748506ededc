package wg

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"io"
	"net/netip"
	"sync"
	"testing"
	"time"
)

// pump moves every packet from's stack sends to to's stack, a whole Read
// batch per Write (as wireguard-go does with a received batch), so that
// Write's GRO has consecutive segments to merge.
func pump(from, to *netTun) {
	const offset = 16
	bufs := make([][]byte, tunBatch)
	for i := range bufs {
		bufs[i] = make([]byte, offset+MTU)
	}
	sizes := make([]int, len(bufs))
	out := make([][]byte, len(bufs))
	for {
		n, err := from.Read(bufs, sizes, offset)
		if err != nil {
			return
		}
		for i := range n {
			out[i] = bufs[i][:offset+sizes[i]]
		}
		if _, err := to.Write(out[:n], offset); err != nil {
			return
		}
	}
}

// TestNetTunStreams sends two streams at once between two stacks wired back
// to back: every byte arrives, in order (sha256), through the batched
// outbound path and GRO's merged inbound segments, both ways (data one way,
// ACKs the other).
func TestNetTunStreams(t *testing.T) {
	a1, a2 := netip.MustParseAddr("fd00::1"), netip.MustParseAddr("fd00::2")
	x, err := newNetTun(a1, MTU)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	y, err := newNetTun(a2, MTU)
	if err != nil {
		t.Fatal(err)
	}
	defer y.Close()
	go pump(x, y)
	go pump(y, x)
	l, err := y.listenTCP(netip.AddrPortFrom(a2, AWPPort))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()

	const streams, size = 2, 4 << 20
	got := make(chan [sha256.Size]byte, streams)
	go func() {
		for range streams {
			c, err := l.Accept()
			if err != nil {
				t.Error(err)
				return
			}
			go func() {
				defer c.Close()
				c.SetReadDeadline(time.Now().Add(time.Minute))
				h := sha256.New()
				if n, err := io.Copy(h, c); err != nil || n != size {
					t.Errorf("received %d bytes, %v; want %d", n, err, size)
				}
				got <- [sha256.Size]byte(h.Sum(nil))
			}()
		}
	}()
	want := make(map[[sha256.Size]byte]bool)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range streams {
		data := make([]byte, size)
		rand.Read(data)
		want[sha256.Sum256(data)] = true
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			c, err := x.dialTCP(ctx, netip.AddrPortFrom(a2, AWPPort))
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			c.SetWriteDeadline(time.Now().Add(time.Minute))
			if _, err := c.Write(data); err != nil {
				mu.Lock()
				t.Error(err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for range streams {
		select {
		case s := <-got:
			if !want[s] {
				t.Errorf("a stream arrived with sha256 %x, not one that was sent", s)
			}
			delete(want, s)
		case <-time.After(time.Minute):
			t.Fatal("streams not received")
		}
	}
}
