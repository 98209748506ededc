package wg

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"golang.zx2c4.com/wireguard/conn"
)

// TestGSOBindSend sends batches through gsoBind over 127.0.0.1 and checks
// that every datagram arrives whole and in order, whatever groups the
// batch's sizes make (equal sizes, a shorter tail, a longer one that starts
// a group, more than 64 of one size, single ones), and that no byte was
// written past the end of a caller's datagram: the groups are built in the
// bind's own buffers, not in the spare room of the caller's.
func TestGSOBindSend(t *testing.T) {
	rx := conn.NewStdNetBind()
	fns, port, err := rx.Open(0)
	if err != nil {
		t.Fatal(err)
	}
	defer rx.Close()
	tx := newBind(nil)
	if _, _, err := tx.Open(0); err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	ep, err := tx.ParseEndpoint(fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}

	got := make(chan []byte, 1024)
	for _, fn := range fns {
		go func() {
			bs := rx.BatchSize()
			bufs := make([][]byte, bs)
			for i := range bufs {
				bufs[i] = make([]byte, 1<<16)
			}
			sizes := make([]int, bs)
			eps := make([]conn.Endpoint, bs)
			for {
				n, err := fn(bufs, sizes, eps)
				if err != nil {
					return
				}
				for i := range n {
					got <- bytes.Clone(bufs[i][:sizes[i]])
				}
			}
		}()
	}

	batches := [][]int{
		{1452, 1452, 1452, 1452},
		{1452, 1452, 700},           // a shorter tail ends the group
		{1452, 700, 1452, 1452},     // ... and the next one starts a new group
		{500, 1452, 1452},           // a longer datagram cannot join
		{1452},                      // alone: StdNetBind as it is
		{1200, 1200},                // two
		repeat(1452, 100),           // past the 64-datagram and 64 KiB limits
		append(repeat(60, 70), 20),  // many small ones
		{9000, 9000, 9000, 9000, 9}, // large datagrams
	}
	seq := 0
	for bi, sizes := range batches {
		bufs := make([][]byte, len(sizes))
		spare := make([][]byte, len(sizes))
		for i, n := range sizes {
			b := make([]byte, n, 1<<16)
			for j := range b {
				b[j] = byte(seq + j*7)
			}
			b[0] = byte(seq)
			seq++
			for j := n; j < cap(b); j++ {
				b[:cap(b)][j] = 0xEE
			}
			bufs[i] = b
			spare[i] = b[n:cap(b)]
		}
		want := make([][]byte, len(bufs))
		for i, b := range bufs {
			want[i] = bytes.Clone(b)
		}
		if err := tx.Send(bufs, ep); err != nil {
			t.Fatalf("batch %d: send: %v", bi, err)
		}
		for i := range want {
			select {
			case g := <-got:
				if !bytes.Equal(g, want[i]) {
					t.Fatalf("batch %d: datagram %d: got %d bytes (first %d), want %d (first %d)", bi, i, len(g), g[0], len(want[i]), want[i][0])
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("batch %d: datagram %d of %d did not arrive", bi, i, len(want))
			}
		}
		for i, s := range spare {
			for j, c := range s {
				if c != 0xEE {
					t.Fatalf("batch %d: datagram %d: byte %d past its end was written", bi, i, j)
				}
			}
		}
	}
	select {
	case g := <-got:
		t.Fatalf("an extra datagram of %d bytes arrived", len(g))
	case <-time.After(50 * time.Millisecond):
	}
}

func repeat(n, count int) []int {
	out := make([]int, count)
	for i := range out {
		out[i] = n
	}
	return out
}
