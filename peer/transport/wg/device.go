package wg

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"time"

	"golang.zx2c4.com/wireguard/conn"
	"golang.zx2c4.com/wireguard/device"

	"github.com/awp-tray/awp-tray/peer/key"
)

// Sentinel errors of the device.
var (
	// ErrClosed is returned by operations on a Device after Close. It wraps
	// net.ErrClosed, so errors.Is(err, net.ErrClosed) holds too.
	ErrClosed = fmt.Errorf("wg: device closed: %w", net.ErrClosed)
	// ErrSelf is returned when asked to dial or allow the device's own key.
	ErrSelf = errors.New("wg: that is this device's own key")
	// ErrListening is returned by Listen when the device already has a
	// listener open.
	ErrListening = errors.New("wg: device already has a listener")
)

// DefaultKeepAlive is the persistent keepalive used when Config.KeepAlive is 0.
const DefaultKeepAlive = 25 * time.Second

// Config configures a Device.
type Config struct {
	Key       key.PrivateKey // the node identity; required
	Port      int            // UDP port; 0 picks one
	KeepAlive time.Duration  // persistent keepalive; 0 = DefaultKeepAlive, negative = off
	Logger    *slog.Logger   // nil = silent

	// OnHandshake is called when a configured peer starts a handshake
	// with this device (at most once a second per key, from the device's
	// own goroutine; it must not block): if the peer restarted, the conns
	// with it are dead (sniff.go).
	OnHandshake func(peer key.PublicKey)
	// OnRefused is called when a handshake from a key that is not
	// configured is dropped (at most once a minute per key; it must not
	// block).
	OnRefused func(Refused)
}

// Device is one userspace WireGuard device with its netstack. Its methods are
// safe for concurrent use.
type Device struct {
	pub       key.PublicKey
	addr      netip.Addr
	keepalive int // seconds; 0 = off
	log       *slog.Logger
	dev       *device.Device
	tnet      *netTun
	links     *linkWatch // nil where the system has no link events
	sniff     *sniffer

	onHandshake func(key.PublicKey)
	onRefused   func(Refused)

	mu sync.Mutex
	// mu guards:
	peers    map[netip.Addr]key.PublicKey // tunnel address → configured AWP key
	byWG     map[[32]byte]key.PublicKey   // WireGuard public key → configured AWP key
	conns    map[*Conn]struct{}           // open conns, closed by Close
	listener *Listener
	closed   bool
}

// New creates and starts a Device. The caller must Close it.
func New(cfg Config) (*Device, error) {
	if cfg.Key.IsZero() {
		return nil, errors.New("wg: new device: no key")
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	pub := cfg.Key.Public()
	d := &Device{
		pub:   pub,
		addr:  TunnelAddr(pub),
		log:   log,
		peers: make(map[netip.Addr]key.PublicKey),
		byWG:  make(map[[32]byte]key.PublicKey),
		conns: make(map[*Conn]struct{}),

		onHandshake: cfg.OnHandshake,
		onRefused:   cfg.OnRefused,
	}
	switch {
	case cfg.KeepAlive == 0:
		d.keepalive = int(DefaultKeepAlive / time.Second)
	case cfg.KeepAlive > 0:
		d.keepalive = max(1, int(cfg.KeepAlive/time.Second))
	}
	tnet, err := newNetTun(d.addr, MTU)
	if err != nil {
		return nil, fmt.Errorf("wg: new device: %w", err)
	}
	d.tnet = tnet
	var offer func([]byte, conn.Endpoint)
	if d.onHandshake != nil || d.onRefused != nil {
		d.sniff = newSniffer(d, cfg.Key)
		offer = d.sniff.offer
	}
	d.dev = device.NewDevice(tnet, newBind(offer), deviceLogger(log))
	sk := PrivateKey(cfg.Key)
	if err := d.dev.IpcSet(fmt.Sprintf("private_key=%x\nlisten_port=%d\n", sk[:], cfg.Port)); err != nil {
		d.dev.Close()
		d.sniff.close()
		return nil, fmt.Errorf("wg: new device: configure: %w", err)
	}
	if err := d.dev.Up(); err != nil {
		d.dev.Close()
		d.sniff.close()
		return nil, fmt.Errorf("wg: new device: up: %w", err)
	}
	if d.links, err = startLinkWatch(d.networkChanged); err != nil {
		log.Debug("wg: not watching for network changes", "err", err)
	}
	log.Debug("wg device up", "addr", d.addr, "port", d.Port())
	return d, nil
}

// networkChanged has wireguard-go reopen its UDP sockets on the same port
// and forget the local address each peer was last reached on (see
// linkwatch.go).
func (d *Device) networkChanged() {
	if err := d.dev.BindUpdate(); err != nil {
		d.log.Warn("wg: network changed; reopening the UDP sockets failed", "port", d.Port(), "err", err)
		return
	}
	d.log.Info("wg: network changed; UDP sockets reopened, peers' source addresses cleared", "port", d.Port())
}

// deviceLogger adapts slog to wireguard-go's printf logger: verbose lines at
// Debug, errors at Warn (they are mostly unreachable endpoints).
func deviceLogger(l *slog.Logger) *device.Logger {
	logf := func(level slog.Level) func(string, ...any) {
		if !l.Enabled(context.Background(), level) {
			return device.DiscardLogf
		}
		return func(format string, args ...any) {
			l.Log(context.Background(), level, "wireguard: "+fmt.Sprintf(format, args...))
		}
	}
	return &device.Logger{Verbosef: logf(slog.LevelDebug), Errorf: logf(slog.LevelWarn)}
}

// Key returns the device's AWP public key.
func (d *Device) Key() key.PublicKey { return d.pub }

// Addr returns the device's tunnel address.
func (d *Device) Addr() netip.Addr { return d.addr }

// Port returns the UDP port the device is bound to (0 after Close).
func (d *Device) Port() int {
	st, err := d.state()
	if err != nil {
		return 0
	}
	return st.port
}

// SetPort rebinds the device's UDP socket to port (0 picks one). Peers learn
// the new endpoint from the next authenticated packet (roaming).
func (d *Device) SetPort(port int) error {
	if d.isClosed() {
		return ErrClosed
	}
	if err := d.dev.IpcSet(fmt.Sprintf("listen_port=%d\n", port)); err != nil {
		return fmt.Errorf("wg: set port %d: %w", port, err)
	}
	return nil
}

// AllowPeer configures k as a WireGuard peer: its public key and its /128
// tunnel address as the only allowed IP. When endpoint is valid it becomes
// the peer's endpoint and the persistent keepalive is switched on; otherwise
// the current endpoint and keepalive (if any) are kept, and the peer's first
// handshake sets the endpoint.
func (d *Device) AllowPeer(k key.PublicKey, endpoint netip.AddrPort) error {
	if k == d.pub {
		return ErrSelf
	}
	pk, ta, err := d.lockPeer("allow", k)
	if err != nil {
		return err
	}
	d.peers[ta] = k
	d.byWG[pk] = k
	d.mu.Unlock()

	cfg := fmt.Sprintf("public_key=%x\nreplace_allowed_ips=true\nallowed_ip=%s/128\n", pk[:], ta)
	if endpoint.IsValid() {
		// Keepalives only toward peers we know how to reach: the dialing
		// side keeps the NAT mapping open; a peer that is only allowed gets
		// its endpoint (and our replies) from its own handshake.
		cfg += fmt.Sprintf("endpoint=%s\npersistent_keepalive_interval=%d\n", endpoint, d.keepalive)
	}
	if err := d.dev.IpcSet(cfg); err != nil {
		return fmt.Errorf("wg: allow %s: %w", k.Short(), err)
	}
	d.log.Debug("wg peer configured", "peer", k.Short(), "endpoint", endpoint, "tunnel", ta)
	return nil
}

// lockPeer gives k's WireGuard key and tunnel address and returns with
// d.mu held, for AllowPeer and RemovePeer (op names the call in the error);
// on an error (a key WireGuard cannot take, or a closed device) d.mu is not
// held.
func (d *Device) lockPeer(op string, k key.PublicKey) (pk [32]byte, ta netip.Addr, err error) {
	pk, err = PublicKey(k)
	if err != nil {
		return pk, ta, fmt.Errorf("wg: %s %s: %w", op, k.Short(), err)
	}
	ta = TunnelAddr(k)
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return pk, ta, ErrClosed
	}
	return pk, ta, nil
}

// RemovePeer removes k's WireGuard peer (no handshake from it is answered
// any more) and closes the tunnel conns that ran through it.
func (d *Device) RemovePeer(k key.PublicKey) error {
	pk, ta, err := d.lockPeer("remove", k)
	if err != nil {
		return err
	}
	delete(d.peers, ta)
	delete(d.byWG, pk)
	var conns []*Conn
	for c := range d.conns {
		if c.peer == k {
			conns = append(conns, c)
		}
	}
	d.mu.Unlock()
	if err := d.dev.IpcSet(fmt.Sprintf("public_key=%x\nremove=true\n", pk[:])); err != nil {
		return fmt.Errorf("wg: remove %s: %w", k.Short(), err)
	}
	for _, c := range conns {
		c.Close()
	}
	d.log.Debug("wg peer removed", "peer", k.Short())
	return nil
}

// PeerEndpoint returns the UDP endpoint the device currently uses for k, as
// learned from configuration or roaming.
func (d *Device) PeerEndpoint(k key.PublicKey) (netip.AddrPort, bool) {
	pk, err := PublicKey(k)
	if err != nil {
		return netip.AddrPort{}, false
	}
	st, err := d.state()
	if err != nil {
		return netip.AddrPort{}, false
	}
	ep, ok := st.endpoints[pk]
	return ep, ok && ep.IsValid()
}

// HandshakeWait is how long a Dial waits for the peer's WireGuard to
// answer before it gives up with a NoHandshakeError. wireguard-go sends
// an initiation at once and again every 5 s (plus up to 1/3 s of jitter),
// so this covers two of them: one lost packet does not fail a dial, and a
// peer that has not configured this key (it drops initiations without a
// word) is named in seconds, not when the caller's deadline runs out.
const HandshakeWait = 6 * time.Second

// rejectAfter is WireGuard's Reject-After-Time: a session older than this
// carries no data, so a dial with only such a one needs a new handshake.
const rejectAfter = 180 * time.Second

// NoHandshakeError is a dial that failed with no WireGuard handshake: the
// peer never answered this device's initiations. WireGuard answers only
// keys it has configured (docs/protocol/bindings.md), so the likely reason is that the
// peer has not added this node's invite (or trusted its key); the other is
// that nothing listens at the endpoint.
type NoHandshakeError struct {
	Peer     key.PublicKey
	Endpoint netip.AddrPort
	Waited   time.Duration
}

func (e *NoHandshakeError) Error() string {
	return fmt.Sprintf("%s has not added your invite: no WireGuard handshake from %s in %v (or nothing listens there)",
		e.Peer, e.Endpoint, e.Waited.Round(100*time.Millisecond))
}

// errNoHandshake is the cause a Dial's context is cancelled with when
// HandshakeWait passes without a handshake.
var errNoHandshake = errors.New("wg: no handshake")

// Dial configures peer (with endpoint, see AllowPeer) and opens a TCP
// connection to its tunnel address, port 1. ctx bounds the WireGuard
// handshake and the TCP handshake together; without a WireGuard handshake
// it fails after HandshakeWait with a *NoHandshakeError.
func (d *Device) Dial(ctx context.Context, peer key.PublicKey, endpoint netip.AddrPort) (*Conn, error) {
	if err := d.AllowPeer(peer, endpoint); err != nil {
		return nil, err
	}
	began := time.Now()
	dctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if !d.sessionSince(peer, began.Add(-rejectAfter)) {
		t := time.AfterFunc(HandshakeWait, func() {
			if !d.sessionSince(peer, began) {
				cancel(errNoHandshake)
			}
		})
		defer t.Stop()
	}
	tc, err := d.tnet.dialTCP(dctx, netip.AddrPortFrom(TunnelAddr(peer), AWPPort))
	if err != nil {
		if d.isClosed() {
			return nil, ErrClosed
		}
		if errors.Is(context.Cause(dctx), errNoHandshake) ||
			(dctx.Err() != nil && !d.sessionSince(peer, began.Add(-rejectAfter))) {
			return nil, fmt.Errorf("wg: dial %s via %s: %w", peer.Short(), endpoint,
				&NoHandshakeError{Peer: peer, Endpoint: endpoint, Waited: time.Since(began)})
		}
		return nil, fmt.Errorf("wg: dial %s via %s: %w", peer.Short(), endpoint, err)
	}
	c, err := d.track(tc, peer)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// sessionSince reports whether a WireGuard handshake with peer completed
// after t.
func (d *Device) sessionSince(peer key.PublicKey, t time.Time) bool {
	pk, err := PublicKey(peer)
	if err != nil {
		return false
	}
	st, err := d.state()
	if err != nil {
		return false
	}
	hs, ok := st.handshakes[pk]
	return ok && hs.After(t)
}

// Announce configures peer with endpoint (without a persistent keepalive)
// and starts a handshake with it, so that a peer that still holds conns
// from before this device existed (this node restarted) learns at once
// that they are dead (its own device reports the handshake, sniff.go).
// wireguard-go retries an unanswered initiation for 90 s, then stops.
func (d *Device) Announce(peer key.PublicKey, endpoint netip.AddrPort) error {
	if !endpoint.IsValid() {
		return fmt.Errorf("wg: announce to %s: no endpoint", peer.Short())
	}
	pk, err := PublicKey(peer)
	if err != nil {
		return fmt.Errorf("wg: announce to %s: %w", peer.Short(), err)
	}
	if err := d.AllowPeer(peer, noEndpointKeep); err != nil {
		return err
	}
	if err := d.dev.IpcSet(fmt.Sprintf("public_key=%x\nendpoint=%s\n", pk[:], endpoint)); err != nil {
		return fmt.Errorf("wg: announce to %s: %w", peer.Short(), err)
	}
	if p := d.dev.LookupPeer(device.NoisePublicKey(pk)); p != nil {
		p.SendKeepalive() // no session yet: this starts the handshake
	}
	return nil
}

// noEndpointKeep is an invalid endpoint: AllowPeer keeps the current one.
var noEndpointKeep netip.AddrPort

// track registers a new conn so Close can close it.
func (d *Device) track(nc net.Conn, peer key.PublicKey) (*Conn, error) {
	c := &Conn{Conn: nc, peer: peer, d: d}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		nc.Close()
		return nil, ErrClosed
	}
	d.conns[c] = struct{}{}
	return c, nil
}

func (d *Device) untrack(c *Conn) {
	d.mu.Lock()
	delete(d.conns, c)
	d.mu.Unlock()
}

// peerByWG returns the configured key whose WireGuard key is pk.
func (d *Device) peerByWG(pk [32]byte) (key.PublicKey, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	k, ok := d.byWG[pk]
	return k, ok
}

// peerFor returns the configured key whose tunnel address is a.
func (d *Device) peerFor(a netip.Addr) (key.PublicKey, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	k, ok := d.peers[a]
	return k, ok
}

func (d *Device) isClosed() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.closed
}

// Close closes the listener and every conn, then the WireGuard device and
// its netstack. It is idempotent.
func (d *Device) Close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	l := d.listener
	conns := make([]*Conn, 0, len(d.conns))
	for c := range d.conns {
		conns = append(conns, c)
	}
	d.conns = nil
	d.mu.Unlock()

	if l != nil {
		l.Close()
	}
	for _, c := range conns {
		c.Conn.Close()
	}
	d.links.Close()
	d.dev.Close()
	<-d.dev.Wait()
	d.sniff.close()
	d.log.Debug("wg device closed", "addr", d.addr)
	return nil
}

// Conn is a TCP connection through the tunnel. It remembers the WireGuard
// peer it came through.
type Conn struct {
	net.Conn
	peer key.PublicKey
	d    *Device
	once sync.Once
}

// Peer returns the AWP key of the WireGuard peer the connection runs through.
func (c *Conn) Peer() key.PublicKey { return c.peer }

// Close closes the connection.
func (c *Conn) Close() error {
	c.once.Do(func() { c.d.untrack(c) })
	return c.Conn.Close()
}

// CloseWrite shuts down the sending side (a TCP half-close).
func (c *Conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
