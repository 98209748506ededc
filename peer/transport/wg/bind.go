package wg

import (
	"time"

	"github.com/awp-tray/awp-tray/internal/bufpool"
	"golang.zx2c4.com/wireguard/conn"
)

// gsoBind is wireguard-go's StdNetBind with one change on the send side.
// With UDP segmentation offload, StdNetBind coalesces a batch's datagrams
// into the first one's buffer, appending up to 64 KiB to the end of a
// wireguard-go message buffer whose first 1.5 KiB were all ever touched:
// every such send faults in fresh pages (up to 16 per group), and on a
// virtual machine whose free memory goes back to the host a fault costs
// 10-20 µs; profiles of a blob over wg showed 11% of the sender's CPU
// there. Here the first datagram of each group StdNetBind will form is
// copied into a buffer of a pool kept across garbage collections, so the
// appends land in memory that is already there.
type gsoBind struct {
	conn.Bind
	bufs  *bufpool.Pool
	offer func([]byte, conn.Endpoint) // sees every received datagram (sniff.go); nil: none
}

// gsoBufSize holds the largest datagram group StdNetBind makes (a UDP
// payload of at most 65,507 bytes over IPv4, 65,527 over IPv6).
const gsoBufSize = 64 << 10

// bindBufIdle is how long the pool keeps buffers nobody asked for.
const bindBufIdle = 10 * time.Second

// udpSegmentMaxDatagrams is the kernel's (and StdNetBind's) limit of
// datagrams in one segmented send.
const udpSegmentMaxDatagrams = 64

func newBind(offer func([]byte, conn.Endpoint)) conn.Bind {
	return &gsoBind{Bind: conn.NewStdNetBind(), bufs: bufpool.New(gsoBufSize, 32, bindBufIdle), offer: offer}
}

// Open opens StdNetBind's sockets; with an offer func, its receive funcs
// show each datagram received to it (a length and a type byte compared for
// all but handshake initiations).
func (b *gsoBind) Open(port uint16) ([]conn.ReceiveFunc, uint16, error) {
	fns, p, err := b.Bind.Open(port)
	if err != nil || b.offer == nil {
		return fns, p, err
	}
	for i, fn := range fns {
		fns[i] = func(packets [][]byte, sizes []int, eps []conn.Endpoint) (int, error) {
			n, err := fn(packets, sizes, eps)
			for j := 0; j < n; j++ {
				b.offer(packets[j][:sizes[j]], eps[j])
			}
			return n, err
		}
	}
	return fns, p, nil
}

// Send copies the first datagram of each group (StdNetBind's grouping: the
// same length, or a shorter last one, up to 64 datagrams and the UDP payload
// limit) into a pooled buffer, then sends through StdNetBind.
func (b *gsoBind) Send(bufs [][]byte, ep conn.Endpoint) error {
	if len(bufs) < 2 {
		return b.Bind.Send(bufs, ep)
	}
	maxPayload := 1<<16 - 1 - 20 - 8
	if ep.DstIP().Is6() {
		maxPayload = 1<<16 - 1 - 8
	}
	out := make([][]byte, len(bufs))
	var held [][]byte
	var size, total, count int
	ended := false
	for i, p := range bufs {
		if i > 0 && total+len(p) <= maxPayload && len(p) <= size && count < udpSegmentMaxDatagrams && !ended {
			out[i] = p
			total += len(p)
			count++
			ended = len(p) < size
			continue
		}
		size, total, count, ended = len(p), len(p), 1, false
		if len(p) > gsoBufSize {
			out[i] = p
			continue
		}
		w := b.bufs.Get()
		held = append(held, w)
		out[i] = append(w[:0], p...)
	}
	err := b.Bind.Send(out, ep)
	for _, w := range held {
		b.bufs.Put(w)
	}
	return err
}
