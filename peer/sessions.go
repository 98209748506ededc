package peer

// The node's table of sessions, one per peer: registering a new session
// (reconnects, crossed connections, the session limits), finding and waking
// a peer's session, and recording what its hello said.

import (
	"errors"
	"slices"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/store"
)

// register makes s the session for its peer. When a session for the peer
// exists: a reconnect from the same side replaces it; crossed connections
// (each side dialed) keep the one dialed by the smaller key, so both sides
// choose the same. But a peer that connects while its old session is up
// may have lost that session (it restarted: over wg nothing told this
// side), so before the old one is kept over the new it is probed
// (keepalive.go); if it is dead, the new one takes its place. A new peer
// past MaxSessions (MaxStrangerSessions for a stranger) is refused with
// errTooMany.
func (n *Node) register(s *session) error {
	probed := false
	for {
		n.mu.Lock()
		if n.closed {
			n.mu.Unlock()
			return ErrClosed
		}
		old := n.sessions[s.peer]
		if old == nil && n.fullLocked(s.tier) {
			n.mu.Unlock()
			return errTooMany
		}
		if old != nil && old.ctx.Err() == nil {
			oldMine, newMine := old.dialAddr != "", s.dialAddr != ""
			// Crossed: keep the connection the smaller key dialed.
			if oldMine != newMine && newMine != lessKey(n.pub, s.peer) {
				n.mu.Unlock()
				if probed || old.probe(probeTimeout) || n.ctx.Err() != nil {
					return errCrossed // the old one is alive: a real crossing
				}
				n.log.Info("an old connection is dead; the peer's new one replaces it", "peer", s.peer.Short())
				old.close(errStale)
				probed = true
				continue
			}
		}
		n.sessions[s.peer] = s
		n.names.set(s.peer, s.hello.Name)
		n.mu.Unlock()
		if old != nil {
			old.close(errors.New("replaced by a newer connection"))
		}
		if s.dialAddr != "" {
			// A key this node dialed may reach it over wg
			// (docs/protocol/bindings.md); one that merely connected here may
			// not.
			n.tm.AllowKey(s.peer)
		}
		return nil
	}
}

// fullLocked reports whether the sessions leave no room for one more of
// tier (MaxSessions, MaxStrangerSessions). n.mu is held.
func (n *Node) fullLocked(tier int) bool {
	all, strangers := len(n.sessions), 0
	for _, o := range n.sessions {
		if o.tier != tierKnown {
			strangers++
		}
	}
	return all >= MaxSessions || tier != tierKnown && strangers >= MaxStrangerSessions
}

var errCrossed = errors.New("peer: crossed connection; the other one is kept")

func lessKey(a, b key.PublicKey) bool {
	ra, rb := a.Raw(), b.Raw()
	return string(ra[:]) < string(rb[:])
}

func (n *Node) unregister(s *session) {
	n.mu.Lock()
	if n.sessions[s.peer] == s {
		delete(n.sessions, s.peer)
		n.names.drop(s.peer)
	}
	n.mu.Unlock()
}

func (n *Node) sessionFor(k key.PublicKey) *session {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.sessions[k]
}

// notePeer records what the hello said about the peer (asynchronously).
func (n *Node) notePeer(s *session) {
	now := n.now()
	h := s.hello
	ep := n.wgEndpoint(s) // where to announce a restart to (wgkeys.go)
	// Checked in a read first: a commit costs fsyncs even when its ops
	// end up writing nothing.
	unchanged := func(p *store.Peer, ok bool) bool {
		return ok && p.Name == h.Name && p.About == h.About && slices.Equal(p.Listen, h.Listen) &&
			slices.Equal(p.Caps, h.Caps) && (s.dialAddr == "" || p.Dialed != "") &&
			(ep == "" || p.WGEndpoint == ep) &&
			now.Sub(p.LastSeen) < lastSeenEvery && !now.Before(p.LastSeen)
	}
	skip := false
	_ = n.db.View(func(tx *store.Tx) error {
		skip = unchanged(tx.Peer(s.peer))
		return nil
	})
	if skip {
		return // a reconnect within the minute: nothing worth a write
	}
	n.commit.async("peer record", func(tx *store.Tx) error {
		p, ok := tx.Peer(s.peer)
		if unchanged(p, ok) {
			return nil
		}
		if !ok {
			p = &store.Peer{Key: s.peerS, FirstSeen: now}
		}
		if !ok || p.Name != h.Name {
			// A new peer, or a new name: this node's presence document
			// lists its peers by name, so it is rebuilt after the commit
			// (the session's own up event may have come before this).
			n.commit.presenceAfter()
		}
		p.Name, p.About, p.Listen, p.Caps, p.LastSeen = h.Name, h.About, h.Listen, h.Caps, now
		if s.dialAddr != "" && p.Dialed == "" {
			p.Dialed = s.dialAddr
		}
		if ep != "" {
			p.WGEndpoint = ep
		}
		return tx.PutPeer(p)
	})
}

// noteDown records when a session with a known peer ended, so its
// last_seen is the last time it was here rather than when the session
// began (the Presence window's "last seen 5 min ago"). Like notePeer it
// writes at most once per lastSeenEvery: a session shorter than that left
// last_seen recent enough, so a peer that reconnects in a loop costs no
// writes here.
func (n *Node) noteDown(s *session) {
	if n.ctx.Err() != nil {
		return // closing: the commit loop is stopping
	}
	now := n.now()
	stale := func(p *store.Peer, ok bool) bool { return ok && now.Sub(p.LastSeen) >= lastSeenEvery }
	var write bool
	_ = n.db.View(func(tx *store.Tx) error {
		write = stale(tx.Peer(s.peer))
		return nil
	})
	if !write {
		return
	}
	n.commit.async("peer last seen", func(tx *store.Tx) error {
		p, ok := tx.Peer(s.peer)
		if !stale(p, ok) {
			return nil
		}
		p.LastSeen = now
		return tx.PutPeer(p)
	})
}

// outSignal returns the channel that wakes the sender for peer k.
func (n *Node) outSignal(k key.PublicKey) chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	ch := n.outSig[k]
	if ch == nil {
		ch = make(chan struct{}, 1)
		n.outSig[k] = ch
	}
	return ch
}

func (n *Node) wakeSender(k key.PublicKey) {
	select {
	case n.outSignal(k) <- struct{}{}:
	default:
	}
}
