package peer

import (
	"errors"
	"maps"
	"net/netip"
	"slices"
	"strings"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/transport"
	"github.com/awp-tray/awp-tray/peer/transport/wg"
)

// known reports whether the person chose p's key: trusted it, added its invite,
// or dialed it (docs/protocol/bindings.md). These keys, and only these, are
// configured in WireGuard (before and after a restart: the reasons are stored)
// and pass `--accept known`. A key this node only heard of (an introduce line,
// a presence document, a grant) or that merely connected here is not known.
func known(p *store.Peer) bool {
	return p != nil && (p.Trusted || p.Invited || p.Dialed != "")
}

// errUnconfigured closes a tunnel session whose key lost its reason to be
// configured.
var errUnconfigured = errors.New("peer: the key is no longer trusted, dialed or invited: removed from WireGuard")

// configureWG configures k in WireGuard when chosen; otherwise it removes
// it (unless this node is dialing it right now) and ends its session if
// that runs through the tunnel.
func (n *Node) configureWG(k key.PublicKey, chosen bool) {
	if chosen {
		n.tm.AllowKey(k)
		return
	}
	if n.dialingKey(k) {
		return
	}
	n.tm.DisallowKey(k)
	if s := n.sessionFor(k); s != nil {
		if _, ok := transport.TunnelPeer(s.c); ok {
			s.close(errUnconfigured)
		}
	}
}

// dialingKey reports whether a dialer of this node has reached k or dials
// a wg address of k.
func (n *Node) dialingKey(k key.PublicKey) bool {
	n.mu.Lock()
	ds := slices.Collect(maps.Values(n.dialers))
	n.mu.Unlock()
	for _, d := range ds {
		d.mu.Lock()
		p := d.peer
		d.mu.Unlock()
		if p == k {
			return true
		}
		if a, err := transport.ParseAddr(d.addr); err == nil && a.Key == k {
			return true
		}
	}
	return false
}

// announcement is a known peer and its own wg listen address.
type announcement struct {
	k    key.PublicKey
	addr string
}

// wgListenOf returns where to announce a restart to k: its own wg listen
// address (with k's key and an IP literal host, not 0.0.0.0 or [::]) from
// its record, else the UDP endpoint of its last tunnel session, else "".
func wgListenOf(k key.PublicKey, p *store.Peer) string {
	for _, l := range p.Listen {
		if !strings.HasPrefix(l, "wg://") {
			continue
		}
		a, err := transport.ParseAddr(l)
		if err != nil || a.Key != k || a.Port == 0 {
			continue
		}
		if ip, err := netip.ParseAddr(a.Host); err == nil && !ip.IsUnspecified() {
			return l
		}
	}
	if ap, err := netip.ParseAddrPort(p.WGEndpoint); err == nil && ap.Port() != 0 && !ap.Addr().IsUnspecified() {
		return "wg://" + ap.String() + "#" + k.String()
	}
	return ""
}

// wgEndpoint returns the UDP endpoint of s's WireGuard peer, "" when s
// does not run through the wg binding or it is not known.
func (n *Node) wgEndpoint(s *session) string {
	if _, ok := transport.TunnelPeer(s.c); !ok {
		return ""
	}
	if ep, ok := n.tm.WGEndpoint(s.peer); ok {
		return ep.String()
	}
	return ""
}

// announceRestart starts a WireGuard handshake with each known peer this
// node does not dial itself, at the wg address it listens on: a peer that
// still holds a tunnel session from before this node restarted sees the
// handshake, probes that session and redials (keepalive.go), instead of
// waiting for WireGuard's own timeouts (15 s and more). Peers this node
// dials learn it from the dial.
func (n *Node) announceRestart(as []announcement) {
	for _, a := range as {
		if err := n.tm.AnnounceKey(a.k, a.addr); err != nil {
			n.log.Debug("wg: announce", "peer", a.k.Short(), "err", err)
		}
	}
}

// onWGRefused logs a WireGuard handshake the device dropped because its key
// is not configured here (rate-limited by the device): the person on the
// other side sees their dial time out, and this person should learn why.
// A WireGuard key names two AWP keys; when one of them is known here (a
// peer record: introduced, seen, or a presence origin) it is named.
func (n *Node) onWGRefused(r wg.Refused) {
	var named key.PublicKey
	var name string
	_ = n.db.View(func(tx *store.Tx) error {
		for _, k := range r.Keys {
			if p, ok := tx.Peer(k); ok {
				named, name = k, p.Name
				return nil
			}
		}
		return nil
	})
	if named.IsZero() {
		for _, e := range n.pres.table.List(n.now()) {
			for _, k := range r.Keys {
				if e.Origin == k {
					named, name = k, e.Doc.Name
				}
			}
		}
	}
	const why = "dropped a WireGuard handshake: you have not added this key's invite (awp add INVITE) nor trusted it (awp trust KEY)"
	if !named.IsZero() {
		n.log.Info(why, "key", named.String(), "name", name, "from", r.From)
		return
	}
	keys := make([]string, len(r.Keys))
	for i, k := range r.Keys {
		keys[i] = k.String()
	}
	n.log.Info(why, "key", "unknown: one of "+strings.Join(keys, " or "), "from", r.From)
}
