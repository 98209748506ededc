package transport

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strconv"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/transport/wg"
)

// noEndpoint keeps a peer's current endpoint when configuring it.
var noEndpoint netip.AddrPort

// TunnelPeer reports the WireGuard peer key a conn came through (wg conns
// only). The node checks it against the key in the peer's hello (docs/protocol/bindings.md).
func TunnelPeer(c net.Conn) (key.PublicKey, bool) {
	wc, ok := c.(*wg.Conn)
	if !ok {
		return key.PublicKey{}, false
	}
	return wc.Peer(), true
}

// device returns the Manager's wg device, creating it on UDP port when it
// does not exist yet. Its errors are for the caller to wrap with what it
// was doing and the address.
func (m *Manager) device(port int) (*wg.Device, error) {
	if m.o.Key.IsZero() {
		return nil, fmt.Errorf("%w (no Options.Key)", ErrNoKey)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	if m.dev != nil {
		return m.dev, nil
	}
	dev, err := wg.New(wg.Config{Key: m.o.Key, Port: port, KeepAlive: m.o.KeepAlive, Logger: m.log,
		OnHandshake: m.o.OnWGHandshake, OnRefused: m.o.OnWGRefused})
	if err != nil {
		return nil, opCause(err) // a UDP port in use: "bind: address already in use"
	}
	for k := range m.allowed {
		if err := dev.AllowPeer(k, noEndpoint); err != nil {
			m.log.Warn("transport: wg allow key", "peer", k.Short(), "err", err)
		}
	}
	m.dev = dev
	return dev, nil
}

// listenWG listens on tunnel TCP port 1 of the Manager's wg device, bound to
// UDP a.Port. The bind covers every interface (wireguard-go's standard
// bind); a.Host only names the address Addr reports.
func (m *Manager) listenWG(a Addr) (Listener, error) {
	if !a.Key.IsZero() && (m.o.Key.IsZero() || a.Key != m.o.Key.Public()) {
		return nil, fmt.Errorf("transport: listen %s: %w (the key is not this node's)", a, ErrUnsupported)
	}
	if _, err := netip.ParseAddr(a.Host); err != nil {
		return nil, fmt.Errorf("transport: listen %s: %w (wg listens on an IP literal, e.g. wg://0.0.0.0:PORT)", a, ErrBadAddr)
	}
	dev, err := m.device(a.Port)
	if err != nil {
		return nil, fmt.Errorf("transport: listen %s: %w", a, err)
	}
	wl, err := dev.Listen()
	if err != nil {
		if err == wg.ErrListening {
			err = fmt.Errorf("%w: %w", ErrInUse, err)
		}
		return nil, fmt.Errorf("transport: listen %s: %w", a, err)
	}
	// A device made by an earlier Dial sits on an ephemeral port: move it.
	// Its peers follow through roaming.
	if a.Port != 0 && dev.Port() != a.Port {
		if err := dev.SetPort(a.Port); err != nil {
			wl.Close()
			return nil, fmt.Errorf("transport: listen %s: %w", a, err)
		}
	}
	addr := "wg://" + net.JoinHostPort(a.Host, strconv.Itoa(dev.Port())) + "#" + dev.Key().String()
	return &wgListener{l: wl, addr: addr}, nil
}

// dialWG dials the AWP port of a.Key's tunnel address through the Manager's
// wg device, with a.Host:a.Port as the peer's UDP endpoint.
func (m *Manager) dialWG(ctx context.Context, a Addr) (net.Conn, error) {
	if a.Key.IsZero() {
		return nil, fmt.Errorf("transport: dial %s: %w (want wg://HOST:PORT#ed25519:KEY)", a, ErrNoKey)
	}
	if a.Port == 0 {
		return nil, fmt.Errorf("transport: dial %s: %w (port 0)", a, ErrBadAddr)
	}
	ips, err := resolve(ctx, a.Host)
	if err != nil {
		return nil, fmt.Errorf("transport: dial %s: %w", a, err)
	}
	dev, err := m.device(0)
	if err != nil {
		return nil, fmt.Errorf("transport: dial %s: %w", a, err)
	}
	m.mu.Lock()
	m.allowed[a.Key] = true // dialed keys stay configured (docs/protocol/bindings.md)
	m.mu.Unlock()
	c, err := dev.Dial(ctx, a.Key, netip.AddrPortFrom(ips[0], uint16(a.Port)))
	if err != nil {
		return nil, fmt.Errorf("transport: dial %s: %w", a, err)
	}
	return c, nil
}

// wgListener adapts wg.Listener to Listener.
type wgListener struct {
	l    *wg.Listener
	addr string
}

// Accept returns the next tunnel connection; TunnelPeer gives its key.
func (l *wgListener) Accept() (net.Conn, error) {
	c, err := l.l.Accept()
	if err != nil {
		return nil, acceptErr(l.addr, err)
	}
	return c, nil
}

// Close stops accepting; the device stays up for the Manager's other conns.
func (l *wgListener) Close() error { return l.l.Close() }

// Addr returns wg://HOST:PORT#ed25519:KEY with the bound UDP port.
func (l *wgListener) Addr() string { return l.addr }
