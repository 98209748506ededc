package transport

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/transport/wg"
)

// Options configures a Manager.
type Options struct {
	Key            key.PrivateKey // the node identity; the wg binding derives its WireGuard key from it
	AllowPublicTCP bool           // docs/protocol/bindings.md: plaintext tcp to/from non-loopback, non-private addresses only when true
	Logger         *slog.Logger   // nil = silent
	KeepAlive      time.Duration  // wg persistent keepalive (0 = default 25s; negative = off)
	Mem            *MemNetwork    // serves mem:// addresses; nil = mem:// unsupported
	Tailcat        TailcatOptions // the tailcat binding's DERP relay; zero = tailcat's default map

	// OnWGHandshake is called when a configured key starts a WireGuard
	// handshake with this node (it may have restarted: its tunnel conns
	// here may be dead). It must not block. See wg.Config.OnHandshake.
	OnWGHandshake func(key.PublicKey)
	// OnWGRefused is called, rate-limited, when a WireGuard handshake from
	// a key that is not configured is dropped. It must not block.
	OnWGRefused func(wg.Refused)
}

// Listener accepts connections on one address.
type Listener interface {
	// Accept waits for and returns the next connection. After Close it
	// returns an error wrapping net.ErrClosed.
	Accept() (net.Conn, error)
	// Close stops listening and unblocks Accept. It is idempotent.
	Close() error
	// Addr returns the resolved address (bound port filled in), usable by
	// Dial, e.g. tcp://127.0.0.1:41234.
	Addr() string
}

// Manager listens on and dials AWP addresses. Make one with New; its methods
// are safe for concurrent use.
type Manager struct {
	o   Options
	log *slog.Logger

	mu sync.Mutex
	// mu guards:
	listeners map[*managed]struct{}
	dev       *wg.Device             // the wg device, created on first use
	allowed   map[key.PublicKey]bool // keys to configure on the wg device
	closed    bool
	// tailcat (tailcat.go):
	tcListening bool                      // a tailcat listener is open
	tcConns     map[*tailcatConn]struct{} // dialed tailcat conns, closed by Close

	tcDials sync.WaitGroup // tailcat dials and dialed conns' clients still shutting down
}

// New returns a Manager. It starts nothing until Listen or Dial.
func New(o Options) *Manager {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Manager{
		o:         o,
		log:       log,
		listeners: make(map[*managed]struct{}),
		allowed:   make(map[key.PublicKey]bool),
	}
}

// Listen starts listening on addr. ctx bounds name resolution (tailcat:
// the DERP map fetch). TailcatListen ("tailcat") starts a tailcat server.
func (m *Manager) Listen(ctx context.Context, addr string) (Listener, error) {
	var a Addr
	var err error
	if addr == TailcatListen {
		a = Addr{Scheme: SchemeTailcat}
	} else if a, err = ParseAddr(addr); err != nil {
		return nil, fmt.Errorf("transport: listen: %w", err)
	}
	if m.isClosed() {
		return nil, ErrClosed
	}
	var l Listener
	switch a.Scheme {
	case SchemeTailcat:
		l, err = m.listenTailcat(ctx, a.Raw)
	case SchemeTCP:
		l, err = m.listenTCP(ctx, a)
	case SchemeUnix:
		l, err = m.listenUnix(ctx, a)
	case SchemeWG:
		l, err = m.listenWG(a)
	case SchemeMem:
		if m.o.Mem == nil {
			return nil, fmt.Errorf("transport: listen %s: %w (no Options.Mem)", addr, ErrUnsupported)
		}
		l, err = m.o.Mem.Listen(a.Host)
	default:
		return nil, fmt.Errorf("transport: listen %s: %w", trunc(addr), ErrUnsupported)
	}
	if err != nil {
		return nil, err
	}
	ml := &managed{Listener: l, m: m}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		l.Close()
		return nil, ErrClosed
	}
	m.listeners[ml] = struct{}{}
	m.mu.Unlock()
	m.log.Debug("transport: listening", "addr", l.Addr())
	return ml, nil
}

// Dial connects to addr. ctx bounds resolution and the connection set-up
// (for wg, the WireGuard and tunnel TCP handshakes).
func (m *Manager) Dial(ctx context.Context, addr string) (net.Conn, error) {
	a, err := ParseAddr(addr)
	if err != nil {
		return nil, fmt.Errorf("transport: dial: %w", err)
	}
	if m.isClosed() {
		return nil, ErrClosed
	}
	switch a.Scheme {
	case SchemeTCP:
		return m.dialTCP(ctx, a)
	case SchemeUnix:
		var d net.Dialer
		c, err := d.DialContext(ctx, "unix", a.Path)
		if err != nil {
			return nil, fmt.Errorf("transport: dial %s: %w", a, err)
		}
		return c, nil
	case SchemeWG:
		return m.dialWG(ctx, a)
	case SchemeTailcat:
		return m.dialTailcat(ctx, a)
	case SchemeMem:
		if m.o.Mem == nil {
			return nil, fmt.Errorf("transport: dial %s: %w (no Options.Mem)", addr, ErrUnsupported)
		}
		return m.o.Mem.Dial(ctx, a.Host)
	}
	return nil, fmt.Errorf("transport: dial %s: %w", trunc(addr), ErrUnsupported)
}

// AllowKey lets k reach this node over wg: it configures k as a WireGuard
// peer (now, or when the device is created). Call it for keys the node
// accepts, trusts or dials. It is a no-op for tcp and unix.
func (m *Manager) AllowKey(k key.PublicKey) {
	if k.IsZero() || (!m.o.Key.IsZero() && k == m.o.Key.Public()) {
		return
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.allowed[k] = true
	dev := m.dev
	m.mu.Unlock()
	if dev != nil {
		if err := dev.AllowPeer(k, noEndpoint); err != nil {
			m.log.Warn("transport: wg allow key", "peer", k.Short(), "err", err)
		}
	}
}

// DisallowKey undoes AllowKey: k is no longer a WireGuard peer, and its
// tunnel conns are closed. Dialing k configures it again.
func (m *Manager) DisallowKey(k key.PublicKey) {
	m.mu.Lock()
	if m.closed || !m.allowed[k] {
		m.mu.Unlock()
		return
	}
	delete(m.allowed, k)
	dev := m.dev
	m.mu.Unlock()
	if dev != nil {
		if err := dev.RemovePeer(k); err != nil {
			m.log.Warn("transport: wg remove key", "peer", k.Short(), "err", err)
		}
	}
}

// AnnounceKey starts a WireGuard handshake with k at addr (k's own
// wg://HOST:PORT#KEY listen address) if this Manager has a wg device, so
// that k learns at once that this node restarted (wg.Device.Announce). k
// must be allowed already. HOST must be an IP literal (nothing is
// resolved).
func (m *Manager) AnnounceKey(k key.PublicKey, addr string) error {
	a, err := ParseAddr(addr)
	if err != nil || a.Scheme != SchemeWG || a.Key != k {
		return fmt.Errorf("transport: announce: %s is not a wg address of %s", trunc(addr), k.Short())
	}
	ip, err := netip.ParseAddr(a.Host)
	if err != nil || a.Port == 0 {
		return fmt.Errorf("transport: announce: %s: want an IP literal and a port", a)
	}
	m.mu.Lock()
	dev, allowed := m.dev, m.allowed[k]
	m.mu.Unlock()
	if dev == nil || !allowed {
		return nil
	}
	return dev.Announce(k, netip.AddrPortFrom(ip, uint16(a.Port)))
}

// WGEndpoint returns the UDP endpoint the wg device uses for k (learned
// from configuration or k's packets), if any.
func (m *Manager) WGEndpoint(k key.PublicKey) (netip.AddrPort, bool) {
	m.mu.Lock()
	dev := m.dev
	m.mu.Unlock()
	if dev == nil {
		return netip.AddrPort{}, false
	}
	return dev.PeerEndpoint(k)
}

// Allowed reports whether k is configured to reach this node over wg.
func (m *Manager) Allowed(k key.PublicKey) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.allowed[k]
}

// Close closes every listener, the WireGuard device and the dialed tailcat
// conns (waiting for their tunnels to stop). It is idempotent.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	ls := make([]*managed, 0, len(m.listeners))
	for l := range m.listeners {
		ls = append(ls, l)
	}
	m.listeners = nil
	dev := m.dev
	m.dev = nil
	m.mu.Unlock()

	var first error
	for _, l := range ls {
		if err := l.Listener.Close(); err != nil && first == nil {
			first = fmt.Errorf("transport: close %s: %w", l.Addr(), err)
		}
	}
	if dev != nil {
		if err := dev.Close(); err != nil && first == nil {
			first = fmt.Errorf("transport: close wg: %w", err)
		}
	}
	m.closeTailcat()
	return first
}

func (m *Manager) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}

// managed is a Listener the Manager closes on Close.
type managed struct {
	Listener
	m    *Manager
	once sync.Once
}

// Close closes the listener and forgets it.
func (l *managed) Close() error {
	l.once.Do(func() {
		l.m.mu.Lock()
		delete(l.m.listeners, l)
		l.m.mu.Unlock()
	})
	return l.Listener.Close()
}
