package transport

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
)

// resolve returns host's addresses: the literal itself, or what the
// resolver says for a name.
func resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip}, nil
	}
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", host, err)
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("resolve %s: no addresses", host)
	}
	// Prefer IPv4, as net.Listen does for names.
	out := make([]netip.Addr, 0, len(ips))
	for _, ip := range ips {
		if ip.Unmap().Is4() {
			out = append(out, ip.Unmap())
		}
	}
	for _, ip := range ips {
		if !ip.Unmap().Is4() {
			out = append(out, ip)
		}
	}
	return out, nil
}

// listenTCP listens on a.Host:a.Port. A public bind address needs
// AllowPublicTCP; remote addresses are checked again at Accept.
func (m *Manager) listenTCP(ctx context.Context, a Addr) (Listener, error) {
	ips, err := resolve(ctx, a.Host)
	if err != nil {
		return nil, fmt.Errorf("transport: listen %s: %w", a, err)
	}
	ip := ips[0]
	if !m.o.AllowPublicTCP && !TrustedIP(ip) {
		return nil, fmt.Errorf("transport: listen %s (%s): %w", a, ip, ErrPublicTCP)
	}
	ln, err := net.ListenTCP("tcp", net.TCPAddrFromAddrPort(netip.AddrPortFrom(ip, uint16(a.Port))))
	if err != nil {
		return nil, fmt.Errorf("transport: listen %s: %w", a, opCause(err))
	}
	bound := ln.Addr().(*net.TCPAddr).AddrPort()
	host := bound.Addr().String()
	if a.Host != ip.String() && a.Host != ip.WithZone("").String() {
		host = a.Host // keep the name the caller listened on
	}
	return &tcpListener{
		ln:          ln,
		allowPublic: m.o.AllowPublicTCP,
		log:         m.log,
		addr:        "tcp://" + net.JoinHostPort(host, strconv.Itoa(int(bound.Port()))),
	}, nil
}

// tcpListener is a TCP listener that applies the public-address policy to
// every accepted connection.
type tcpListener struct {
	ln          net.Listener // a *net.TCPListener; an interface so tests can fake remotes
	allowPublic bool
	log         *slog.Logger
	addr        string
}

// Accept returns the next connection from a trusted remote (or any remote
// when public TCP is allowed). Others are closed, logged and skipped.
func (l *tcpListener) Accept() (net.Conn, error) {
	for {
		c, err := l.ln.Accept()
		if err != nil {
			return nil, acceptErr(l.addr, err)
		}
		var remote netip.Addr
		if ta, ok := c.RemoteAddr().(*net.TCPAddr); ok {
			remote = ta.AddrPort().Addr()
		}
		if !l.allowPublic && !TrustedIP(remote) {
			l.log.Warn("transport: refused plaintext tcp from a public address (--allow-public-tcp allows it)",
				"listener", l.addr, "remote", remote, "err", ErrPublicTCP)
			c.Close()
			continue
		}
		if tc, ok := c.(*net.TCPConn); ok {
			if err := tc.SetNoDelay(true); err != nil {
				c.Close()
				return nil, fmt.Errorf("transport: accept %s: nodelay: %w", l.addr, err)
			}
		}
		return c, nil
	}
}

// Close stops listening.
func (l *tcpListener) Close() error { return closeListener(l.ln, l.addr) }

// Addr returns tcp://HOST:PORT with the bound port.
func (l *tcpListener) Addr() string { return l.addr }

// dialTCP dials the first of a.Host's addresses the policy allows.
func (m *Manager) dialTCP(ctx context.Context, a Addr) (net.Conn, error) {
	ips, err := resolve(ctx, a.Host)
	if err != nil {
		return nil, fmt.Errorf("transport: dial %s: %w", a, err)
	}
	var d net.Dialer
	var last error
	for _, ip := range ips {
		if !m.o.AllowPublicTCP && !TrustedIP(ip) {
			if last == nil {
				last = fmt.Errorf("transport: dial %s (%s): %w", a, ip, ErrPublicTCP)
			}
			continue
		}
		c, err := d.DialContext(ctx, "tcp", netip.AddrPortFrom(ip, uint16(a.Port)).String())
		if err != nil {
			last = fmt.Errorf("transport: dial %s: %w", a, err)
			if ctx.Err() != nil {
				break
			}
			continue
		}
		tc := c.(*net.TCPConn)
		if err := tc.SetNoDelay(true); err != nil {
			tc.Close()
			return nil, fmt.Errorf("transport: dial %s: nodelay: %w", a, err)
		}
		return tc, nil
	}
	return nil, last
}
