package peer

import (
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/transport"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// HandshakeError is a failed handshake and the err code that was sent (or
// received, when Remote is true).
type HandshakeError struct {
	Code   string
	Msg    string
	Remote bool // the other side sent the err
}

func (e *HandshakeError) Error() string {
	if e.Remote {
		return fmt.Sprintf("peer: handshake: remote said %s: %s", e.Code, e.Msg)
	}
	return fmt.Sprintf("peer: handshake: %s: %s", e.Code, e.Msg)
}

// hsWriter writes handshake lines so that both sides may send at once even
// over a synchronous pipe: small lines to a kernel socket (which buffers
// them) are written directly, saving a goroutine hand-off per line on the
// handshake's critical path; anything else goes through a goroutine.
type hsWriter struct {
	w      *wire.Writer
	direct bool
	err    error // first direct write error
	ch     chan []byte
	done   chan error
}

func newHSWriter(c net.Conn) *hsWriter {
	h := &hsWriter{w: wire.NewWriter(c)}
	switch c.(type) {
	case *net.TCPConn, *net.UnixConn:
		h.direct = true
	}
	return h
}

func (h *hsWriter) send(b []byte) {
	if h.ch == nil && h.direct && len(b) <= hsDirectMax {
		if h.err == nil {
			if h.err = h.w.WriteLine(b); h.err == nil {
				h.err = h.w.Flush()
			}
		}
		return
	}
	if h.ch == nil {
		h.ch, h.done = make(chan []byte, 4), make(chan error, 1)
		go func() {
			var err error
			for b := range h.ch {
				if err != nil {
					continue
				}
				if err = h.w.WriteLine(b); err == nil {
					err = h.w.Flush()
				}
			}
			h.done <- err
		}()
	}
	h.ch <- b
}

// finish waits until everything sent is written.
func (h *hsWriter) finish() error {
	err := h.err
	if h.ch != nil {
		close(h.ch)
		if e := <-h.done; err == nil {
			err = e
		}
		h.ch = nil
	}
	return err
}

// handshake runs docs/protocol/handshake.md on c: hello, auth, resume. dialAddr
// is the address dialed ("" for an accepted connection). On failure it sends
// the spec's err line, closes c and returns a *HandshakeError or the I/O error.
func (n *Node) handshake(c net.Conn, dialAddr string) (*session, error) {
	return n.handshakeSlot(c, dialAddr, nil)
}

// handshakeSlot is handshake for an accepted connection holding slot
// (hsadmit.go), which it marks once the peer has authenticated.
func (n *Node) handshakeSlot(c net.Conn, dialAddr string, slot *hsSlot) (*session, error) {
	start := time.Now()
	deadline := start.Add(n.cfg.HandshakeTimeout)
	_ = c.SetDeadline(deadline)
	// The hello comes first and at once (docs/protocol/handshake.md): a
	// connection that sends none holds its slot HelloTimeout at most.
	helloBy := start.Add(min(HelloTimeout, n.cfg.HandshakeTimeout))
	_ = c.SetReadDeadline(helloBy)
	h := &hsConn{n: n, c: c, r: wire.NewReader(c), hw: newHSWriter(c)}
	finished := false
	defer func() {
		if !finished {
			h.hw.finish()
			c.Close()
		}
	}()

	// hello, both ways at once.
	myRaw, err := h.send(wire.NewHello(n.ids.New(), n.stamp(), n.pub, n.cfg.Name, n.cfg.About, n.cfg.Caps, n.advertised()))
	if err != nil {
		return nil, err
	}
	f, err := h.read()
	if err != nil {
		return nil, err
	}
	_ = c.SetReadDeadline(deadline)
	if slot != nil {
		slot.stage.Store(hsHello)
	}
	ph, pk, err := h.checkHello(f)
	if err != nil {
		return nil, err
	}

	// auth, both ways.
	if err := h.auth(myRaw, ph, pk); err != nil {
		return nil, err
	}
	if slot != nil {
		slot.stage.Store(hsAuthed)
	}
	if tk, ok := transport.TunnelPeer(c); ok && tk != pk {
		return nil, h.fail(wire.CodeNotAllowed, "hello key is not the tunnel's WireGuard peer", ph.ID)
	}
	if dialAddr == "" {
		if why := n.refuse(pk); why != "" {
			return nil, h.fail(wire.CodeNotAllowed, why, ph.ID)
		}
	}

	// resume, both ways.
	pr, early, err := h.resume(pk)
	if err != nil {
		return nil, err
	}
	if err := h.hw.finish(); err != nil {
		finished = true
		c.Close()
		return nil, fmt.Errorf("peer: handshake: write: %w", err)
	}
	finished = true
	_ = c.SetDeadline(time.Time{})
	s := newSession(n, c, h.r, pk, ph, pr, dialAddr, early)
	s.hsDur = time.Since(start)
	return s, nil
}

// hsConn is one connection during its handshake: the reader, the writer,
// and how a failure is answered.
type hsConn struct {
	n  *Node
	c  net.Conn
	r  *wire.Reader
	hw *hsWriter
}

// fail sends the err line for code and msg (answering re, when known) and
// returns the *HandshakeError to report.
func (h *hsConn) fail(code, msg, re string) error {
	e := wire.NewErr(h.n.ids.New(), h.n.stamp(), code, msg, re, "")
	if b, err := wire.Encode(e); err == nil {
		_ = h.c.SetWriteDeadline(time.Now().Add(goodbyeTimeout))
		h.hw.send(b)
	}
	return &HandshakeError{Code: code, Msg: msg}
}

// send encodes f and queues it, returning the encoded line.
func (h *hsConn) send(f wire.Frame) ([]byte, error) {
	b, err := wire.Encode(f)
	if err != nil {
		return nil, err
	}
	h.hw.send(b)
	return b, nil
}

// read reads the next line. A line that cannot be read or decoded is
// answered with the err the spec names; an err from the peer becomes a
// remote *HandshakeError.
func (h *hsConn) read() (wire.Frame, error) {
	raw, err := h.r.ReadLine()
	if err != nil {
		var ne net.Error
		var de *wire.DecodeError
		switch {
		case errors.As(err, &ne) && ne.Timeout():
			return nil, h.fail(wire.CodeTimeout, "handshake not completed in time", "")
		case errors.Is(err, wire.ErrTooLong):
			return nil, h.fail(wire.CodeBadFrame, "line over 1 MiB", "")
		case errors.As(err, &de):
			return nil, h.fail(de.Code, de.Msg, "")
		}
		return nil, fmt.Errorf("peer: handshake: read: %w", err)
	}
	f, err := wire.Decode(raw)
	if err != nil {
		var de *wire.DecodeError
		if errors.As(err, &de) {
			switch de.Code {
			case wire.CodeBadFrame, wire.CodeBadHello:
				return nil, h.fail(de.Code, de.Msg, de.ID)
			}
			return nil, h.fail(wire.CodeUnauthenticated, "malformed "+de.T+" line before authentication", de.ID)
		}
		return nil, h.fail(wire.CodeBadFrame, err.Error(), "")
	}
	if e, ok := f.(*wire.Err); ok {
		return nil, &HandshakeError{Code: e.Code, Msg: e.Msg, Remote: true}
	}
	return f, nil
}

// checkHello checks that f, the peer's first line, is a valid hello from
// another key, and returns it with that key.
func (h *hsConn) checkHello(f wire.Frame) (*wire.Hello, key.PublicKey, error) {
	ph, ok := f.(*wire.Hello)
	if !ok {
		return nil, key.PublicKey{}, h.fail(wire.CodeUnauthenticated, "expected hello, got "+f.Header().T, f.Header().ID)
	}
	pk, err := ph.CheckHello()
	switch {
	case errors.Is(err, wire.ErrUnsupportedVersion):
		return nil, pk, h.fail(wire.CodeUnsupportedVersion, err.Error(), ph.ID)
	case err != nil:
		return nil, pk, h.fail(wire.CodeBadHello, err.Error(), ph.ID)
	case pk == h.n.pub:
		return nil, pk, h.fail(wire.CodeSelf, "hello carries my own key", ph.ID)
	}
	return ph, pk, nil
}

// auth sends this node's auth over both hellos (myRaw, then the peer's ph)
// and checks the peer's auth against pk.
func (h *hsConn) auth(myRaw []byte, ph *wire.Hello, pk key.PublicKey) error {
	auth := &wire.Auth{Sig: h.n.priv.SignText(wire.AuthMessage(myRaw, ph.Raw()))}
	auth.T, auth.ID, auth.TS = wire.TypeAuth, h.n.ids.New(), h.n.stamp()
	if _, err := h.send(auth); err != nil {
		return err
	}
	f, err := h.read()
	if err != nil {
		return err
	}
	pa, ok := f.(*wire.Auth)
	if !ok {
		return h.fail(wire.CodeUnauthenticated, "expected auth, got "+f.Header().T, f.Header().ID)
	}
	if !pk.VerifyText(wire.AuthMessage(ph.Raw(), myRaw), pa.Sig) {
		return h.fail(wire.CodeAuthFailed, "auth signature does not verify", pa.ID)
	}
	return nil
}

// resume sends what this node has seen from pk and reads until the peer's
// resume, keeping the content lines that arrive before it (early) for the
// session.
func (h *hsConn) resume(pk key.PublicKey) (*wire.Resume, []wire.Frame, error) {
	var seen map[string]string
	_ = h.n.db.View(func(tx *store.Tx) error {
		seen = tx.SeenMap(pk)
		return nil
	})
	res := &wire.Resume{Seen: seen}
	res.T, res.ID, res.TS = wire.TypeResume, h.n.ids.New(), h.n.stamp()
	if _, err := h.send(res); err != nil {
		return nil, nil, err
	}
	var early []wire.Frame
	earlyBytes := 0
	for {
		f, err := h.read()
		if err != nil {
			return nil, nil, err
		}
		switch f := f.(type) {
		case *wire.Resume:
			return f, early, nil
		case *wire.Hello, *wire.Auth:
			return nil, nil, h.fail(wire.CodeBadFrame, "second "+f.Header().T, f.Header().ID)
		default:
			// Kept until the session runs: at most maxEarlyLines lines and
			// maxEarlyBytes (64 lines of 1 MiB in each of the handshakes
			// in flight would be gigabytes).
			earlyBytes += len(f.Header().Raw())
			if c, ok := f.(*wire.Chunk); ok {
				earlyBytes += len(c.Data)
			}
			if len(early) >= maxEarlyLines || earlyBytes > maxEarlyBytes {
				return nil, nil, h.fail(wire.CodeBadFrame, "no resume after auth", "")
			}
			early = append(early, f)
		}
	}
}

// advertised is the listen list a hello carries: the bound addresses that
// another peer could dial, without the secret ones (listen.go): a hello
// goes to anyone, before authentication.
func (n *Node) advertised() []string { return n.listenAddrs(false) }

// refuse applies the accept policy to an authenticated incoming key; it
// returns why the key is refused, or "".
func (n *Node) refuse(k key.PublicKey) string {
	if n.cfg.Accept == AcceptAny {
		return ""
	}
	var p *store.Peer
	_ = n.db.View(func(tx *store.Tx) error {
		p, _ = tx.Peer(k)
		return nil
	})
	switch n.cfg.Accept {
	case AcceptTrusted:
		if p == nil || !p.Trusted {
			return "this peer accepts trusted keys only"
		}
	case AcceptKnown:
		if !known(p) {
			return "this peer accepts known keys only (trusted, dialed or added from an invite)"
		}
	}
	return ""
}
