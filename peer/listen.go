package peer

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"slices"
	"time"

	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/transport"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// A tailcat token is a secret (docs/tailcat.md): whoever holds it can open
// a tunnel to this node. A hello goes to anyone who opens a connection,
// before either side has authenticated, so the hello's listen list never
// carries one. The token leaves this node in its invite, and, after
// authentication, in a "listen" line to the peers its person trusts:
//
//	{"t":"listen","id":…,"ts":…,"listen":["tc…"]}
//
// An unknown type to other peers (ignored, docs/protocol/framing.md). A node
// keeps what a peer sent it this way apart from the peer's hello addresses
// (store.Peer.PrivateListen), shows it only to its own person (the local API)
// and passes it on to no one.
const typeListen = "listen"

// secretAddr reports whether a listen address must not leave this node
// before authentication: a tailcat token.
func secretAddr(a string) bool {
	pa, err := transport.ParseAddr(a)
	return err == nil && pa.Scheme == transport.SchemeTailcat
}

// listenAddrs returns the bound addresses another peer could dial (not
// unix sockets, which are local paths); secret ones (tokens) only when
// withSecret is set.
func (n *Node) listenAddrs(withSecret bool) []string {
	var out []string
	for _, a := range n.ListenAddrs() {
		if len(a) > 7 && a[:7] == "unix://" {
			continue
		}
		if !withSecret && secretAddr(a) {
			continue
		}
		out = append(out, a)
	}
	return out
}

// secretListen returns this node's secret listen addresses.
func (n *Node) secretListen() []string {
	var out []string
	for _, a := range n.ListenAddrs() {
		if secretAddr(a) {
			out = append(out, a)
		}
	}
	return out
}

// sendListen sends s's peer this node's secret addresses, if it has any
// and its person trusts the peer.
func (n *Node) sendListen(s *session) {
	secret := n.secretListen()
	if len(secret) == 0 {
		return
	}
	trusted := false
	_ = n.db.View(func(tx *store.Tx) error {
		p, ok := tx.Peer(s.peer)
		trusted = ok && p.Trusted
		return nil
	})
	if !trusted {
		return
	}
	b, err := json.Marshal(struct {
		T      string   `json:"t"`
		ID     string   `json:"id"`
		TS     string   `json:"ts"`
		Listen []string `json:"listen"`
	}{typeListen, n.ids.New(), n.stamp(), secret})
	if err == nil {
		s.wq.tryPush(b)
	}
}

// onListen stores the addresses a peer sent in a listen line.
func (n *Node) onListen(s *session, raw []byte) {
	if s.listenLines.Add(1) > maxListenLines {
		return
	}
	var l struct {
		Listen []string `json:"listen"`
	}
	if json.Unmarshal(raw, &l) != nil {
		return
	}
	h := &wire.Hello{Listen: l.Listen}
	boundHello(h) // the same bounds as a hello's list
	addrs := h.Listen
	var same bool
	_ = n.db.View(func(tx *store.Tx) error {
		p, ok := tx.Peer(s.peer)
		same = ok && slices.Equal(p.PrivateListen, addrs)
		return nil
	})
	if same {
		return
	}
	now := n.now()
	n.commit.async("peer's private addresses", func(tx *store.Tx) error {
		p, ok := tx.Peer(s.peer)
		if !ok {
			p = &store.Peer{Key: s.peerS, FirstSeen: now, LastSeen: now}
		}
		p.PrivateListen = addrs
		return tx.PutPeer(p)
	})
}

// Listen adds a listener at addr.
func (n *Node) Listen(addr string) error {
	l, err := n.tm.Listen(n.ctx, addr)
	if err != nil {
		return fmt.Errorf("peer: %w", err) // the transport's error names the address
	}
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		l.Close()
		return ErrClosed
	}
	n.listeners = append(n.listeners, l)
	n.wg.Add(1)
	n.mu.Unlock()
	go n.acceptLoop(l)
	return nil
}

// ListenAddrs returns the bound listen addresses.
func (n *Node) ListenAddrs() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make([]string, 0, len(n.listeners))
	for _, l := range n.listeners {
		out = append(out, l.Addr())
	}
	return out
}

func (n *Node) acceptLoop(l transport.Listener) {
	defer n.wg.Done()
	backoff := acceptBackoffMin
	for {
		c, err := l.Accept()
		if err != nil {
			if n.ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			n.log.Warn("accept", "addr", l.Addr(), "err", err)
			select {
			case <-time.After(backoff):
			case <-n.ctx.Done():
				return
			}
			backoff = min(backoff*2, acceptBackoffMax)
			continue
		}
		backoff = acceptBackoffMin
		// Never wait for a slot here: a full table makes room (hsadmit.go).
		slot, evicted := n.hs.admit(c, time.Now())
		if evicted {
			if due, total := n.hs.warnDue(time.Now()); due {
				n.log.Warn("handshake slots full: closing the connections that waited longest",
					"evicted_in_all", total, "slots", MaxHandshakes, "per_source", MaxHandshakesPerSource)
			}
		}
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			s, err := n.handshakeSlot(c, "", slot)
			evicted := n.hs.release(slot)
			if err != nil {
				if evicted || n.ctx.Err() != nil {
					n.log.Debug("handshake ended", "remote", c.RemoteAddr(), "evicted", evicted, "err", err)
				} else {
					n.log.Info("handshake failed", "remote", c.RemoteAddr(), "err", err)
				}
				return
			}
			s.run()
		}()
	}
}

func (n *Node) closeListeners() {
	n.mu.Lock()
	ls := n.listeners
	n.listeners = nil
	n.mu.Unlock()
	for _, l := range ls {
		l.Close()
	}
}
