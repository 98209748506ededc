package wg

// A userspace network stack for the tunnel: gVisor's TCP/IPv6 behind a
// channel link endpoint, offered to wireguard-go as a tun.Device. It is
// wireguard-go's tun/netstack cut down to what AWP needs (one IPv6 address,
// TCP only), with one fix: there a packet written by a gVisor timer while
// the device closes is sent on a closed channel and panics the process;
// here every hand-off also selects on a done channel, and Close waits for
// the stack's goroutines.
//
// Every packet costs CPU on both sides, and on a fast link CPU is what
// bounds the tunnel, so the per-packet path is kept short:
//   - outbound, the stack's packets go to Read as they are (one channel
//     hand-off, copied once, into wireguard-go's buffer), not cloned into
//     the channel endpoint's queue, re-read on a notification and merged
//     into a fresh view first;
//   - inbound, a batch from wireguard-go goes through gVisor's GRO, which
//     merges consecutive segments of a TCP flow into one packet before the
//     IP and TCP layers see it, and its TCP checksums are taken as valid:
//     WireGuard has authenticated every byte (ChaCha20-Poly1305), which a
//     checksum cannot add to. (Outbound checksums are still computed: the
//     peer's stack may check them.)

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"sync"
	"syscall"

	"golang.zx2c4.com/wireguard/tun"
	"gvisor.dev/gvisor/pkg/buffer"
	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/adapters/gonet"
	"gvisor.dev/gvisor/pkg/tcpip/header"
	"gvisor.dev/gvisor/pkg/tcpip/link/channel"
	"gvisor.dev/gvisor/pkg/tcpip/network/ipv6"
	"gvisor.dev/gvisor/pkg/tcpip/stack"
	"gvisor.dev/gvisor/pkg/tcpip/stack/gro"
	"gvisor.dev/gvisor/pkg/tcpip/transport/tcp"
)

// netTun is the tunnel's network stack and the tun.Device wireguard-go reads
// packets from and writes packets to.
type netTun struct {
	ep       *linkEndpoint
	stack    *stack.Stack
	events   chan tun.Event
	incoming chan *stack.PacketBuffer // from the stack, for Read
	done     chan struct{}
	once     sync.Once
	mtu      int
	gros     sync.Pool // *gro.GRO, one per concurrent Write
}

// linkEndpoint is the NIC's link endpoint: channel.Endpoint's plumbing, but
// the packets the stack writes go straight to the tun's incoming channel,
// and Attach keeps the dispatcher for Write's GRO.
type linkEndpoint struct {
	*channel.Endpoint
	t          *netTun
	mu         sync.Mutex
	dispatcher stack.NetworkDispatcher
}

func (e *linkEndpoint) Attach(d stack.NetworkDispatcher) {
	e.mu.Lock()
	e.dispatcher = d
	e.mu.Unlock()
	e.Endpoint.Attach(d)
}

// Capabilities declares RX checksum offload: what comes in was
// authenticated by WireGuard, and GRO's merged packets carry the first
// segment's TCP checksum, which the stack must not check.
func (e *linkEndpoint) Capabilities() stack.LinkEndpointCapabilities {
	return e.Endpoint.Capabilities() | stack.CapabilityRXChecksumOffload
}

func (e *linkEndpoint) getDispatcher() stack.NetworkDispatcher {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.dispatcher
}

// WritePackets hands the stack's packets to Read, waiting while Read is
// behind (backpressure on the sending TCP endpoint, as before).
func (e *linkEndpoint) WritePackets(pkts stack.PacketBufferList) (int, tcpip.Error) {
	n := 0
	for _, pkt := range pkts.AsSlice() {
		select {
		case e.t.incoming <- pkt.IncRef():
			n++
		case <-e.t.done:
			pkt.DecRef()
			if n == 0 {
				return 0, &tcpip.ErrClosedForSend{}
			}
			return n, nil
		}
	}
	return n, nil
}

var _ tun.Device = (*netTun)(nil)

// newNetTun makes a stack with addr (IPv6) and the given MTU.
func newNetTun(addr netip.Addr, mtu int) (*netTun, error) {
	t := &netTun{
		stack: stack.New(stack.Options{
			NetworkProtocols:   []stack.NetworkProtocolFactory{ipv6.NewProtocol},
			TransportProtocols: []stack.TransportProtocolFactory{tcp.NewProtocol},
			HandleLocal:        true,
		}),
		events:   make(chan tun.Event, 10),
		incoming: make(chan *stack.PacketBuffer, tunBatch*4),
		done:     make(chan struct{}),
		mtu:      mtu,
	}
	t.ep = &linkEndpoint{Endpoint: channel.New(1, uint32(mtu), ""), t: t}
	sack := tcpip.TCPSACKEnabled(true)
	if err := t.stack.SetTransportProtocolOption(tcp.ProtocolNumber, &sack); err != nil {
		return nil, fmt.Errorf("netstack: TCP SACK: %v", err)
	}
	// Larger buffers than gVisor's defaults keep a long fat tunnel busy.
	rcv := tcpip.TCPReceiveBufferSizeRangeOption{Min: 4 << 10, Default: 1 << 20, Max: 8 << 20}
	_ = t.stack.SetTransportProtocolOption(tcp.ProtocolNumber, &rcv)
	snd := tcpip.TCPSendBufferSizeRangeOption{Min: 4 << 10, Default: 1 << 20, Max: 8 << 20}
	_ = t.stack.SetTransportProtocolOption(tcp.ProtocolNumber, &snd)
	if err := t.stack.CreateNIC(1, t.ep); err != nil {
		return nil, fmt.Errorf("netstack: NIC: %v", err)
	}
	pa := tcpip.ProtocolAddress{Protocol: ipv6.ProtocolNumber, AddressWithPrefix: tcpip.AddrFromSlice(addr.AsSlice()).WithPrefix()}
	if err := t.stack.AddProtocolAddress(1, pa, stack.AddressProperties{}); err != nil {
		return nil, fmt.Errorf("netstack: address %v: %v", addr, err)
	}
	t.stack.AddRoute(tcpip.Route{Destination: header.IPv6EmptySubnet, NIC: 1})
	t.gros.New = func() any {
		g := new(gro.GRO)
		g.Init(true)
		return g
	}
	t.events <- tun.EventUp
	return t, nil
}

func (t *netTun) Name() (string, error)    { return "awp", nil }
func (t *netTun) File() *os.File           { return nil }
func (t *netTun) Events() <-chan tun.Event { return t.events }
func (t *netTun) MTU() (int, error)        { return t.mtu, nil }
func (t *netTun) BatchSize() int           { return tunBatch }

// tunBatch is how many packets one Read may hand wireguard-go: it encrypts
// and sends a batch together (one sendmmsg), far cheaper per packet.
const tunBatch = 64

// groBucketSize is gVisor's GRO bucket capacity (gro.groBucketSize).
const groBucketSize = 8

// Read hands wireguard-go the packets the stack sent: it waits for one,
// then takes whatever else is already queued, up to len(bufs).
func (t *netTun) Read(bufs [][]byte, sizes []int, offset int) (int, error) {
	var pkt *stack.PacketBuffer
	select {
	case pkt = <-t.incoming:
	case <-t.done:
		return 0, os.ErrClosed
	}
	n := 0
	for {
		// A packet larger than wireguard-go's buffer (the stack keeps to
		// the MTU, so never) is dropped, as a link drops what it cannot send.
		if m, ok := copyPacket(bufs[n][offset:], pkt); ok {
			sizes[n] = m
			n++
		}
		pkt.DecRef()
		if n == len(bufs) {
			return n, nil
		}
		select {
		case pkt = <-t.incoming:
		default:
			return n, nil
		}
	}
}

// copyPacket copies pkt's bytes (headers and payload) to dst; false if dst
// is too short.
func copyPacket(dst []byte, pkt *stack.PacketBuffer) (int, bool) {
	if pkt.Size() > len(dst) {
		return 0, false
	}
	m := 0
	for _, b := range pkt.AsSlices() {
		m += copy(dst[m:], b)
	}
	return m, true
}

// Write gives the stack packets that came out of the tunnel, through GRO:
// consecutive segments of a TCP flow in the batch reach the stack as one.
func (t *netTun) Write(bufs [][]byte, offset int) (int, error) {
	d := t.ep.getDispatcher()
	if d == nil {
		return 0, os.ErrClosed
	}
	g := t.gros.Get().(*gro.GRO)
	g.Dispatcher = d
	defer func() {
		// gro.GRO.Flush delivers only the first packet of each bucket
		// (google/gvisor#14081); a bucket holds at most groBucketSize.
		for range groBucketSize {
			g.Flush()
		}
		g.Dispatcher = nil
		t.gros.Put(g)
	}()
	for _, b := range bufs {
		pkt := b[offset:]
		if len(pkt) == 0 {
			continue
		}
		if pkt[0]>>4 != 6 {
			return 0, syscall.EAFNOSUPPORT
		}
		pkb := stack.NewPacketBuffer(stack.PacketBufferOptions{Payload: buffer.MakeWithData(pkt)})
		pkb.NetworkProtocolNumber = header.IPv6ProtocolNumber
		pkb.RXChecksumValidated = true // WireGuard authenticated it (see Capabilities)
		g.Enqueue(pkb)
		pkb.DecRef()
	}
	return len(bufs), nil
}

// Close stops the stack; safe to call more than once and concurrently with
// packets still being written by the stack's timers.
func (t *netTun) Close() error {
	t.once.Do(func() {
		close(t.done)
		t.stack.RemoveNIC(1)
		t.stack.Close()
		t.ep.Close()
		t.stack.Wait()
		close(t.events)
	})
	return nil
}

// listenTCP listens on a port of the stack's address.
func (t *netTun) listenTCP(addr netip.AddrPort) (*gonet.TCPListener, error) {
	return gonet.ListenTCP(t.stack, fullAddr(addr), ipv6.ProtocolNumber)
}

// dialTCP opens a TCP connection through the tunnel.
func (t *netTun) dialTCP(ctx context.Context, addr netip.AddrPort) (*gonet.TCPConn, error) {
	return gonet.DialContextTCP(ctx, t.stack, fullAddr(addr), ipv6.ProtocolNumber)
}

func fullAddr(a netip.AddrPort) tcpip.FullAddress {
	return tcpip.FullAddress{NIC: 1, Addr: tcpip.AddrFromSlice(a.Addr().AsSlice()), Port: a.Port()}
}
