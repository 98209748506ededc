package wg

import (
	"fmt"
	"net"
	"net/netip"
	"sync/atomic"

	"gvisor.dev/gvisor/pkg/tcpip/adapters/gonet"
)

// Listener accepts AWP connections on tunnel TCP port 1.
type Listener struct {
	d      *Device
	tl     *gonet.TCPListener
	closed atomic.Bool // set by the first Close
}

// Listen starts accepting connections on the device's tunnel address, TCP
// port 1. A device has at most one listener at a time (ErrListening).
func (d *Device) Listen() (*Listener, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, ErrClosed
	}
	if d.listener != nil {
		return nil, ErrListening
	}
	tl, err := d.tnet.listenTCP(netip.AddrPortFrom(d.addr, AWPPort))
	if err != nil {
		return nil, fmt.Errorf("wg: listen on [%s]:%d: %w", d.addr, AWPPort, err)
	}
	l := &Listener{d: d, tl: tl}
	d.listener = l
	return l, nil
}

// Accept waits for the next tunnel connection. A connection whose source is
// not the tunnel address of a configured peer (which WireGuard's routing
// should make impossible) is closed and skipped. After Close it returns an
// error wrapping net.ErrClosed.
func (l *Listener) Accept() (*Conn, error) {
	for {
		nc, err := l.tl.Accept()
		if err != nil {
			if l.closed.Load() {
				return nil, fmt.Errorf("wg: accept: %w", net.ErrClosed)
			}
			return nil, fmt.Errorf("wg: accept: %w", err)
		}
		ra, _ := nc.RemoteAddr().(*net.TCPAddr)
		var src netip.Addr
		if ra != nil {
			src, _ = netip.AddrFromSlice(ra.IP)
		}
		peer, ok := l.d.peerFor(src)
		if !ok {
			l.d.log.Warn("wg: tunnel connection from an unknown address, closing", "src", src)
			nc.Close()
			continue
		}
		c, err := l.d.track(nc, peer)
		if err != nil {
			return nil, fmt.Errorf("wg: accept: %w", err)
		}
		l.d.log.Debug("wg: accepted", "peer", peer.Short())
		return c, nil
	}
}

// Close stops accepting and unblocks Accept. Connections already accepted
// stay open. It is idempotent.
func (l *Listener) Close() error {
	if !l.closed.CompareAndSwap(false, true) {
		return nil
	}
	l.tl.Shutdown()
	l.tl.Close()
	l.d.mu.Lock()
	if l.d.listener == l {
		l.d.listener = nil
	}
	l.d.mu.Unlock()
	return nil
}
