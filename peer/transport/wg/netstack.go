package wg

// A userspace network stack for the tunnel: gVisor's TCP/IPv6 behind a
// channel link endpoint, offered to wireguard-go as a tun.Device. It is
// wireguard-go's tun/netstack cut down to what AWP needs (one IPv6 address,
// TCP only), with one fix: there a packet written by a gVisor timer while
// the device closes is sent on a closed channel and panics the process;
// here every hand-off also selects on a done channel, and Close waits for
// the stack's goroutines.

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
	"gvisor.dev/gvisor/pkg/tcpip/transport/tcp"
)

// netTun is the tunnel's network stack and the tun.Device wireguard-go reads
// packets from and writes packets to.
type netTun struct {
	ep       *channel.Endpoint
	stack    *stack.Stack
	events   chan tun.Event
	notify   *channel.NotificationHandle
	incoming chan *buffer.View
	done     chan struct{}
	once     sync.Once
	mtu      int
}

var _ tun.Device = (*netTun)(nil)

// newNetTun makes a stack with addr (IPv6) and the given MTU.
func newNetTun(addr netip.Addr, mtu int) (*netTun, error) {
	t := &netTun{
		ep: channel.New(1024, uint32(mtu), ""),
		stack: stack.New(stack.Options{
			NetworkProtocols:   []stack.NetworkProtocolFactory{ipv6.NewProtocol},
			TransportProtocols: []stack.TransportProtocolFactory{tcp.NewProtocol},
			HandleLocal:        true,
		}),
		events:   make(chan tun.Event, 10),
		incoming: make(chan *buffer.View, tunBatch*4),
		done:     make(chan struct{}),
		mtu:      mtu,
	}
	sack := tcpip.TCPSACKEnabled(true)
	if err := t.stack.SetTransportProtocolOption(tcp.ProtocolNumber, &sack); err != nil {
		return nil, fmt.Errorf("netstack: TCP SACK: %v", err)
	}
	// Larger buffers than gVisor's defaults keep a long fat tunnel busy.
	rcv := tcpip.TCPReceiveBufferSizeRangeOption{Min: 4 << 10, Default: 1 << 20, Max: 8 << 20}
	_ = t.stack.SetTransportProtocolOption(tcp.ProtocolNumber, &rcv)
	snd := tcpip.TCPSendBufferSizeRangeOption{Min: 4 << 10, Default: 1 << 20, Max: 8 << 20}
	_ = t.stack.SetTransportProtocolOption(tcp.ProtocolNumber, &snd)
	t.notify = t.ep.AddNotify(t)
	if err := t.stack.CreateNIC(1, t.ep); err != nil {
		return nil, fmt.Errorf("netstack: NIC: %v", err)
	}
	pa := tcpip.ProtocolAddress{Protocol: ipv6.ProtocolNumber, AddressWithPrefix: tcpip.AddrFromSlice(addr.AsSlice()).WithPrefix()}
	if err := t.stack.AddProtocolAddress(1, pa, stack.AddressProperties{}); err != nil {
		return nil, fmt.Errorf("netstack: address %v: %v", addr, err)
	}
	t.stack.AddRoute(tcpip.Route{Destination: header.IPv6EmptySubnet, NIC: 1})
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

// Read hands wireguard-go the packets the stack sent: it waits for one,
// then takes whatever else is already queued, up to len(bufs).
func (t *netTun) Read(bufs [][]byte, sizes []int, offset int) (int, error) {
	var v *buffer.View
	select {
	case v = <-t.incoming:
	case <-t.done:
		return 0, os.ErrClosed
	}
	n := 0
	for {
		m, err := v.Read(bufs[n][offset:])
		v.Release()
		if err != nil {
			return n, err
		}
		sizes[n] = m
		n++
		if n == len(bufs) {
			return n, nil
		}
		select {
		case v = <-t.incoming:
		default:
			return n, nil
		}
	}
}

// Write gives the stack packets that came out of the tunnel.
func (t *netTun) Write(bufs [][]byte, offset int) (int, error) {
	for _, b := range bufs {
		pkt := b[offset:]
		if len(pkt) == 0 {
			continue
		}
		if pkt[0]>>4 != 6 {
			return 0, syscall.EAFNOSUPPORT
		}
		pkb := stack.NewPacketBuffer(stack.PacketBufferOptions{Payload: buffer.MakeWithData(pkt)})
		t.ep.InjectInbound(header.IPv6ProtocolNumber, pkb)
		pkb.DecRef()
	}
	return len(bufs), nil
}

// WriteNotify is called by the link endpoint when the stack has a packet.
func (t *netTun) WriteNotify() {
	pkt := t.ep.Read()
	if pkt == nil {
		return
	}
	v := pkt.ToView()
	pkt.DecRef()
	select {
	case t.incoming <- v:
	case <-t.done:
		v.Release()
	}
}

// Close stops the stack; safe to call more than once and concurrently with
// packets still being written by the stack's timers.
func (t *netTun) Close() error {
	t.once.Do(func() {
		close(t.done)
		t.stack.RemoveNIC(1)
		t.stack.Close()
		t.ep.RemoveNotify(t.notify)
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
