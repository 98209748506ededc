package transport

// The tailcat binding (docs/protocol/bindings.md, addresses.md): AWP on TCP port 1 inside a
// tailcat tunnel (github.com/tailscale/tailcat: WireGuard through
// Tailscale's magicsock, DERP for rendezvous and as the relay of last
// resort), addressed by the server's "tc…" token. See docs/tailcat.md.
//
// Protocol flow:
//
//	listener: Listen("tailcat") → derive the node key, pick the DERP region
//	          (Relay / DERPMap / saved state / DERP map fetch) → tailcat.Server
//	          → token = Addr(); tunnel port 1 → Accept, other ports → RST
//	dialer:   Dial("tc…") → one tailcat.Client per conn (ephemeral key) →
//	          meow via DERP until acknowledged → TCP to port 1 → conn
//	both:     the AWP handshake runs inside, as over tcp.

import (
	"context"
	"crypto/sha512"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tailscale/tailcat"
	"tailscale.com/tailcfg"
	tskey "tailscale.com/types/key"
	"tailscale.com/wgengine/filter"

	"github.com/awp-tray/awp-tray/peer/key"
)

// TailcatListen is the listen address that starts a tailcat server; the
// listener's Addr is then its "tc…" token. Listening on this node's own
// token (a saved Addr) works too and keeps that token's relay.
const TailcatListen = "tailcat"

// TailcatPort is the TCP port AWP uses inside a tailcat tunnel.
const TailcatPort = 1

// TailcatStateFile is the file in TailcatOptions.StateDir that pins the
// DERP region a listener picked, so its token survives restarts.
const TailcatStateFile = "tailcat.json"

// TailcatOptions chooses the DERP relay of the tailcat binding. The zero
// value uses tailcat's default DERP map (tailcat.DefaultDERPMapURL) and
// the nearest region; set Relay, DERPMapURL or DERPMap so that nothing
// depends on a public relay the user did not choose. Relay wins over
// DERPMap, which wins over DERPMapURL.
type TailcatOptions struct {
	// Relay is the user's own DERP server: "host" or "host:port" (the
	// DERP HTTPS port; default 443), several separated by commas. It
	// forms one region; no DERP map is fetched.
	Relay string
	// DERPMapURL is a DERP map (JSON) to fetch instead of tailcat's.
	DERPMapURL string
	// DERPMap is a DERP map to use as is; nothing is fetched. Tests pass
	// an in-process relay's map here (package tailcat/relaytest).
	DERPMap *tailcfg.DERPMap
	// RegionID picks a region of the map; 0 picks the nearest (netcheck).
	RegionID int
	// StateDir is where a listener keeps TailcatStateFile (the region it
	// picked from a map), normally the node's data directory. Empty: the
	// region is picked again at every start, and the token may change.
	StateDir string
}

// ParseTailcatRelay turns the user's relay setting into options: "" or
// "default" is tailcat's default map, an http(s):// URL is a DERP map to
// fetch, anything else is Relay (host[:port][,host[:port]…]).
func ParseTailcatRelay(s string) (TailcatOptions, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "" || s == "default":
		return TailcatOptions{}, nil
	case strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://"):
		return TailcatOptions{DERPMapURL: s}, nil
	}
	o := TailcatOptions{Relay: s}
	if _, err := relayRegion(s); err != nil {
		return TailcatOptions{}, err
	}
	return o, nil
}

// TailcatNodeKey is the tailcat (WireGuard) node key of an AWP identity:
// X25519 private = clamp(SHA-512("awp-tailcat-v0" ‖ seed)[:32]). It is
// domain-separated from the wg binding's key, so a token cannot be worked
// out from the public AWP key: only those given the token can reach the
// listener.
func TailcatNodeKey(k key.PrivateKey) tskey.NodePrivate {
	h := sha512.New()
	h.Write([]byte("awp-tailcat-v0"))
	h.Write(k.Seed())
	var raw [32]byte
	copy(raw[:], h.Sum(nil))
	raw[0] &= 248
	raw[31] &= 127
	raw[31] |= 64
	// NodePrivate has no constructor from raw bytes but a deprecated one;
	// its text form ("privkey:" and hex) carries the same 32 bytes.
	var nk tskey.NodePrivate
	if err := nk.UnmarshalText(fmt.Appendf(nil, "privkey:%x", raw)); err != nil {
		panic("tailcat: node key text: " + err.Error()) // 32 bytes always parse
	}
	return nk
}

// tailcatLogf routes tailcat's (chatty) logs to log at Debug.
func tailcatLogf(log *slog.Logger) func(string, ...any) {
	return func(format string, args ...any) {
		if log.Enabled(context.Background(), slog.LevelDebug) {
			log.Debug("tailcat: " + fmt.Sprintf(format, args...))
		}
	}
}

// listenTailcat starts the Manager's tailcat server. own is this node's
// token when addr was one (to keep its relay), else "".
func (m *Manager) listenTailcat(ctx context.Context, own string) (Listener, error) {
	var ownCI *tailcat.ConnInfo
	if own != "" {
		ci, err := tailcat.ParseConnBlob(tailcat.ConnBlob(own))
		if err != nil {
			return nil, fmt.Errorf("transport: listen %s: %w (not a token this tailcat reads: %v)", trunc(own), ErrUnsupported, err)
		}
		if m.o.Key.IsZero() || ci.ServerPublic.NodePublic != TailcatNodeKey(m.o.Key).Public() {
			return nil, fmt.Errorf("transport: listen %s: %w (the token is not this node's)", trunc(own), ErrUnsupported)
		}
		ownCI = &ci
	}
	if m.o.Key.IsZero() {
		return nil, fmt.Errorf("transport: tailcat: %w (no Options.Key)", ErrNoKey)
	}
	priv := TailcatNodeKey(m.o.Key)
	m.mu.Lock()
	busy := m.tcListening
	m.tcListening = true
	m.mu.Unlock()
	if busy {
		return nil, fmt.Errorf("transport: listen tailcat: %w (one tailcat listener per Manager)", ErrInUse)
	}
	l, err := m.startTailcat(ctx, priv, ownCI)
	if err != nil {
		m.mu.Lock()
		m.tcListening = false
		m.mu.Unlock()
		return nil, err
	}
	return l, nil
}

func (m *Manager) startTailcat(ctx context.Context, priv tskey.NodePrivate, own *tailcat.ConnInfo) (*tailcatListener, error) {
	reg, err := m.tailcatRegion(ctx, own)
	if err != nil {
		return nil, fmt.Errorf("transport: listen tailcat: %w", err)
	}
	l := &tailcatListener{
		m:     m,
		conns: make(chan net.Conn),
		done:  make(chan struct{}),
		open:  make(map[net.Conn]struct{}),
	}
	l.s = &tailcat.Server{
		Key:            priv,
		Logf:           tailcatLogf(m.log),
		Region:         reg,
		ServedTCPPorts: []filter.PortRange{{First: TailcatPort, Last: TailcatPort}},
		OnTCP: func(port uint16) func(net.Conn) {
			if port != TailcatPort {
				return nil // RST
			}
			return l.handoff
		},
	}
	if err := l.s.Start(); err != nil {
		l.s.Close()
		return nil, fmt.Errorf("transport: listen tailcat: %w", err)
	}
	l.token = string(l.s.ConnBlob())
	if st := m.o.Tailcat.StateDir; st != "" && m.o.Tailcat.Relay == "" && m.o.Tailcat.DERPMap == nil {
		p := filepath.Join(st, TailcatStateFile)
		src := cmpOr(m.o.Tailcat.DERPMapURL, tailcat.DefaultDERPMapURL)
		if err := saveTailcatState(p, tailcatState{Source: src, Region: reg, Token: l.token}); err != nil {
			m.log.Warn("transport: tailcat: save region", "err", err)
		}
	}
	return l, nil
}

// tailcatListener serves tunnel port 1 of a tailcat server. Closing it
// closes the server, and with it every conn it accepted.
type tailcatListener struct {
	m     *Manager
	s     *tailcat.Server
	token string
	conns chan net.Conn // handoff → Accept
	done  chan struct{} // closed by Close
	once  sync.Once

	mu sync.Mutex
	// mu guards:
	open map[net.Conn]struct{} // accepted conns not yet closed
}

// handoff runs on netstack's goroutine for each new port-1 connection.
func (l *tailcatListener) handoff(c net.Conn) {
	if err := boundTailcatBuffers(c); err != nil {
		l.m.log.Warn("transport: tailcat: conn buffers left as they are", "err", err)
	}
	tc := &tailcatConn{Conn: c, l: l}
	l.mu.Lock()
	if l.open == nil { // closed
		l.mu.Unlock()
		c.Close()
		return
	}
	l.open[tc] = struct{}{}
	l.mu.Unlock()
	select {
	case l.conns <- tc:
	case <-l.done:
		tc.Close()
	}
}

// Accept returns the next connection to tunnel port 1.
func (l *tailcatListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, fmt.Errorf("transport: accept %s: %w", trunc(l.token), ErrClosed)
	}
}

// Addr returns the server's token (dial it to reach tunnel port 1).
func (l *tailcatListener) Addr() string { return l.token }

// tailcatDrainWait bounds how long Close waits for the FINs of the conns
// it closes to leave before the tunnel goes down (all of TCP runs in this
// process; without the wait the peer may never learn the conn ended).
const tailcatDrainWait = time.Second

// Close closes the accepted conns, lets their FINs out, and stops the
// server. It is idempotent.
func (l *tailcatListener) Close() error {
	var err error
	l.once.Do(func() {
		close(l.done)
		l.mu.Lock()
		open := l.open
		l.open = nil
		l.mu.Unlock()
		for c := range open {
			c.(*tailcatConn).Conn.Close()
		}
		// Also for conns their owners closed just before (a node
		// closes its sessions first): their FINs may still be queued.
		ctx, cancel := context.WithTimeout(context.Background(), tailcatDrainWait)
		_ = l.s.DrainTCP(ctx) // conns in TIME-WAIT run to the bound
		cancel()
		err = l.s.Close()
		l.m.mu.Lock()
		l.m.tcListening = false
		l.m.mu.Unlock()
	})
	return err
}

func (l *tailcatListener) forget(c net.Conn) {
	l.mu.Lock()
	delete(l.open, c)
	l.mu.Unlock()
}

// dialTailcat dials tunnel port 1 of a token with a fresh tailcat client
// (an ephemeral key, its own tunnel), closed with the conn. A client per
// conn means nothing is cached across a listener's restart: a redial
// always introduces itself (meow) to the server that is there now.
func (m *Manager) dialTailcat(ctx context.Context, a Addr) (net.Conn, error) {
	tok := tailcat.ConnBlob(a.Raw)
	ci, err := tailcat.ParseConnBlob(tok)
	if err != nil {
		// ParseAddr took it for a token; tailcat cannot read it (a
		// damaged token, or a newer format).
		return nil, fmt.Errorf("transport: dial %s: %w (not a token this tailcat reads: %v)", a, ErrUnsupported, err)
	}
	if len(ci.Region) == 0 && m.o.Tailcat.DERPMap != nil {
		// A short token names a region of a map: resolve it with ours.
		if tok, err = tok.Resolve(ctx, m.o.Tailcat.DERPMap); err != nil {
			return nil, fmt.Errorf("transport: dial %s: %w", a, err)
		}
	}
	if !m.addTailcatDial() {
		return nil, ErrClosed
	}
	cl := &tailcat.Client{Server: tok, Logf: tailcatLogf(m.log), DERPMapURL: m.o.Tailcat.DERPMapURL}
	c, err := tailcatDial(ctx, cl)
	if err != nil {
		cl.Close()
		m.tcDials.Done()
		return nil, fmt.Errorf("transport: dial %s: %w", a, err)
	}
	if err := boundTailcatBuffers(c); err != nil {
		m.log.Warn("transport: tailcat: conn buffers left as they are", "err", err)
	}
	tc := &tailcatConn{Conn: c, cl: cl, m: m}
	if !m.trackTailcatConn(tc) {
		tc.Close()
		return nil, ErrClosed
	}
	return tc, nil
}

// tailcatPingTry bounds one meow attempt; the first may go out before
// either side's DERP connection is up, so Dial retries until ctx ends.
const tailcatPingTry = time.Second

// tailcatRetryPause spaces meow attempts that failed at once.
const tailcatRetryPause = 200 * time.Millisecond

func tailcatDial(ctx context.Context, cl *tailcat.Client) (net.Conn, error) {
	for {
		pctx, cancel := context.WithTimeout(ctx, tailcatPingTry)
		_, err := cl.Ping(pctx)
		cancel()
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("tailcat: server did not answer: %w (%v)", ctx.Err(), err)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			// Not sent (DERP still connecting) or not started: retry
			// after a pause rather than spin.
			select {
			case <-time.After(tailcatRetryPause):
			case <-ctx.Done():
				return nil, fmt.Errorf("tailcat: %w (%v)", ctx.Err(), err)
			}
		}
	}
	return cl.DialTCPPort(ctx, TailcatPort)
}

// addTailcatDial counts a dial in progress (Close waits for it); false
// after Close.
func (m *Manager) addTailcatDial() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return false
	}
	m.tcDials.Add(1)
	return true
}

// trackTailcatConn records a dialed conn so Close can close it; the dial
// count taken by addTailcatDial passes to the conn. False after Close.
func (m *Manager) trackTailcatConn(tc *tailcatConn) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return false
	}
	if m.tcConns == nil {
		m.tcConns = make(map[*tailcatConn]struct{})
	}
	m.tcConns[tc] = struct{}{}
	return true
}

// closeTailcat closes the dialed tailcat conns and waits for their
// clients to shut down. Manager.Close calls it after marking itself closed.
func (m *Manager) closeTailcat() {
	m.mu.Lock()
	cs := m.tcConns
	m.tcConns = nil
	m.mu.Unlock()
	for c := range cs {
		c.Close()
	}
	m.tcDials.Wait()
}

// tailcatConn is a conn through a tailcat tunnel: accepted (l set) or
// dialed (cl, m set; closing it shuts its client down).
type tailcatConn struct {
	net.Conn
	l    *tailcatListener
	cl   *tailcat.Client
	m    *Manager
	once sync.Once
}

// Close closes the conn; a dialed conn's client lingers until the FIN is
// out (bounded by tailcatDrainWait), then stops.
func (c *tailcatConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		if c.l != nil {
			c.l.forget(c)
			return
		}
		c.m.mu.Lock()
		delete(c.m.tcConns, c)
		c.m.mu.Unlock()
		go func() {
			defer c.m.tcDials.Done()
			ctx, cancel := context.WithTimeout(context.Background(), tailcatDrainWait)
			_ = c.cl.DrainTCP(ctx)
			cancel()
			c.cl.Close()
		}()
	})
	return err
}

// tunnelAddr is the address of an accepted conn whose TCP handshake has
// not finished (gVisor reports nil until then).
var tunnelAddr net.Addr = &net.TCPAddr{IP: net.IPv6unspecified}

// RemoteAddr returns the peer's tunnel address (never nil).
func (c *tailcatConn) RemoteAddr() net.Addr {
	if a := c.Conn.RemoteAddr(); a != nil {
		return a
	}
	return tunnelAddr
}

// LocalAddr returns the local tunnel address (never nil).
func (c *tailcatConn) LocalAddr() net.Addr {
	if a := c.Conn.LocalAddr(); a != nil {
		return a
	}
	return tunnelAddr
}
