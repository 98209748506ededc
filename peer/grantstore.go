package peer

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/awp-tray/awp-tray/peer/grant"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// This file holds the grants this node stores: the bbolt records (the truth,
// keyed by grant.ID: the canonical form, docs/protocol/grants.md) and an index
// of them in memory, by subject, that every request is checked against. A grant
// is parsed and its signature verified once, when it is stored; a request looks
// up the grants for its requester (and for the issuers it must find introduce
// grants for) and verifies only the grants it carries.

// grantRoom is what one received line may still store: loose grants
// (counted once, on its first loose grant; -1 until then) and grants in
// all (MaxGrantsPerLine).
type grantRoom struct {
	loose int
	left  int
}

func newGrantRoom() *grantRoom { return &grantRoom{loose: -1, left: MaxGrantsPerLine} }

// grantIndex holds the stored grants that can be honored, in memory:
// parsed and verified, not revoked, by subject; and the ids of revoked
// grants until they expire. Lists are copied on removal, so a reader may
// keep the slice it got.
type grantIndex struct {
	mu       sync.RWMutex
	bySub    map[key.PublicKey][]*grant.Grant
	held     map[string]*grant.Grant // by id
	revoked  map[string]time.Time    // id → the grant's exp
	issuedTo map[key.PublicKey]bool  // subjects of grants this node issued (any time)
	nextExp  time.Time               // the earliest exp in held (zero: none)
}

func (x *grantIndex) init() {
	x.bySub = map[key.PublicKey][]*grant.Grant{}
	x.held = map[string]*grant.Grant{}
	x.revoked = map[string]time.Time{}
	x.issuedTo = map[key.PublicKey]bool{}
}

// add indexes a stored grant whose signature was verified.
func (x *grantIndex) add(g *grant.Grant, issued bool) {
	id := g.ID()
	x.mu.Lock()
	defer x.mu.Unlock()
	if issued {
		x.issuedTo[g.Sub] = true
	}
	if _, ok := x.held[id]; ok {
		return
	}
	if _, ok := x.revoked[id]; ok {
		return
	}
	x.held[id] = g
	x.bySub[g.Sub] = append(x.bySub[g.Sub], g)
	if x.nextExp.IsZero() || g.Exp.Before(x.nextExp) {
		x.nextExp = g.Exp
	}
}

// revoke drops id from the index and remembers it as revoked until exp.
func (x *grantIndex) revoke(id string, exp time.Time) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.revoked[id] = exp
	g := x.held[id]
	if g == nil {
		return
	}
	delete(x.held, id)
	x.removeLocked(g)
}

func (x *grantIndex) removeLocked(g *grant.Grant) {
	old := x.bySub[g.Sub]
	keep := make([]*grant.Grant, 0, len(old))
	for _, h := range old {
		if h != g {
			keep = append(keep, h)
		}
	}
	if len(keep) == 0 {
		delete(x.bySub, g.Sub)
	} else {
		x.bySub[g.Sub] = keep
	}
}

// forSub returns the held grants whose subject is k (do not change it).
func (x *grantIndex) forSub(k key.PublicKey) []*grant.Grant {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.bySub[k]
}

// isRevoked reports whether the grant with this id was revoked here.
func (x *grantIndex) isRevoked(id string) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	_, ok := x.revoked[id]
	return ok
}

// holds reports whether the grant with this id is held (stored, honorable).
func (x *grantIndex) holds(id string) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	_, ok := x.held[id]
	return ok
}

// issued reports whether this node ever issued a grant to k (still stored).
func (x *grantIndex) issued(k key.PublicKey) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.issuedTo[k]
}

// size is how many unexpired grants are held at now; expired ones (and
// revocations of expired grants) are dropped first when any is due.
func (x *grantIndex) size(now time.Time) int {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.nextExp.IsZero() && !now.Before(x.nextExp) {
		x.sweepLocked(now)
	}
	return len(x.held)
}

func (x *grantIndex) sweepLocked(now time.Time) {
	x.nextExp = time.Time{}
	for id, g := range x.held {
		if !now.Before(g.Exp) {
			delete(x.held, id)
			x.removeLocked(g)
			continue
		}
		if x.nextExp.IsZero() || g.Exp.Before(x.nextExp) {
			x.nextExp = g.Exp
		}
	}
	for id, exp := range x.revoked {
		if !now.Before(exp) {
			delete(x.revoked, id)
		}
	}
}

// trustSet is the node's trust list in memory (the peers bucket is the
// truth; Trust updates both).
type trustSet struct {
	mu sync.RWMutex
	m  map[key.PublicKey]bool
}

func (t *trustSet) has(k key.PublicKey) bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.m[k]
}

func (t *trustSet) set(k key.PublicKey, trusted bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = map[key.PublicKey]bool{}
	}
	if trusted {
		t.m[k] = true
	} else {
		delete(t.m, k)
	}
}

// loadGrants reads the stored grants into the index and the trust list
// from the peers bucket, when the node opens. Records an earlier version
// stored under the hash of the bytes a grant arrived in are moved to the
// grant's identity (grant.ID), and two records of one grant are merged
// into one that is revoked when either was, so a revoked grant stays
// revoked in every encoding. A signature text an earlier version accepted
// loosely is rewritten in its one strict form (grant.Repair). A record
// that is no grant at all is kept as it is (and never honored).
func (n *Node) loadGrants() error {
	n.grants.init()
	var moves []grantMove
	err := n.db.View(func(tx *store.Tx) error {
		tx.Peers(func(p *store.Peer) bool {
			if p.Trusted {
				if k, err := key.ParsePublic(p.Key); err == nil {
					n.trust.set(k, true)
				}
			}
			return true
		})
		tx.Grants(func(r *store.GrantRec) bool {
			canon, err := grant.Repair(r.Raw)
			if err != nil {
				n.log.Warn("stored grant is malformed; kept, never honored", "id", r.ID, "err", err)
				return true
			}
			g, err := grant.Parse(canon)
			if err != nil {
				return true
			}
			if id := g.ID(); id != r.ID {
				from := r.ID
				r.ID, r.Raw = id, canon
				moves = append(moves, grantMove{from, r})
			}
			return true
		})
		return nil
	})
	if err != nil {
		return err
	}
	if err := n.moveGrants(moves); err != nil {
		return err
	}
	now := n.now()
	return n.db.View(func(tx *store.Tx) error {
		tx.Grants(func(r *store.GrantRec) bool {
			if r.Revoked {
				if now.Before(r.Exp) {
					n.grants.revoke(r.ID, r.Exp)
				}
				return true
			}
			g, err := grant.Parse(r.Raw)
			if err != nil || g.ID() != r.ID {
				return true
			}
			if r.Issued {
				n.grants.add(g, true) // issuedTo is kept for expired grants too
			} else if now.Before(g.Exp) {
				n.grants.add(g, false)
			}
			return true
		})
		return nil
	})
}

// grantMove is a stored grant record to move from the id it was stored
// under to its identity (rec.ID).
type grantMove struct {
	from string
	rec  *store.GrantRec
}

// moveGrants stores each record of moves under its grant's identity, merged
// with a record already there (revoked or issued when either was; the
// earlier stored time), in one transaction.
func (n *Node) moveGrants(moves []grantMove) error {
	if len(moves) == 0 {
		return nil
	}
	err := n.db.Update(func(tx *store.Tx) error {
		for _, mv := range moves {
			if err := tx.DeleteGrant(mv.from); err != nil {
				return err
			}
			r := mv.rec
			if have, ok := tx.Grant(r.ID); ok {
				r.Revoked = r.Revoked || have.Revoked
				r.Issued = r.Issued || have.Issued
				if !have.Stored.IsZero() && (r.Stored.IsZero() || have.Stored.Before(r.Stored)) {
					r.Stored = have.Stored
				}
			}
			if err := tx.PutGrant(r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("peer: migrate grants: %w", err)
	}
	n.log.Info("stored grants moved to their canonical identity", "records", len(moves))
	return nil
}

// take uses one of the line's MaxGrantsPerLine; false when none is left.
func (r *grantRoom) take() bool {
	if r.left <= 0 {
		return false
	}
	r.left--
	return true
}

// storeGrantRaw parses a received grant and stores it (storeGrant), if
// the line has room for one more. A grant that does not parse is ignored;
// the error is the store's.
func (n *Node) storeGrantRaw(tx *store.Tx, raw json.RawMessage, now time.Time, room *grantRoom) error {
	if len(raw) == 0 || string(raw) == "null" || !room.take() {
		return nil
	}
	g, err := grant.Parse(raw)
	if err != nil {
		return nil
	}
	return n.storeGrant(tx, g, now, room)
}

// storeGrant stores a received grant whose signature verifies and that has
// not expired, under its identity, unless a record of it exists (a revoked
// grant is not stored again, in any encoding); anything else is ignored,
// and so is a loose grant (see MaxLooseGrants) when room is used up. The
// caller has taken the line's room for it (grantRoom.take). The error is
// the store's.
func (n *Node) storeGrant(tx *store.Tx, g *grant.Grant, now time.Time, room *grantRoom) error {
	if g.Expired(now) {
		return nil
	}
	id := g.ID()
	if n.grants.isRevoked(id) {
		return nil
	}
	if _, ok := tx.Grant(id); ok {
		return nil // stored already (a revoked record too): a copy is not a new grant
	}
	loose := !n.usableGrant(tx, g)
	if loose {
		if room.loose < 0 {
			room.loose = max(MaxLooseGrants-n.grants.size(now), 0)
		}
		if room.loose == 0 {
			return nil // before the signature check: a flood costs no verifying
		}
	}
	if g.Verify() != nil {
		return nil
	}
	if loose {
		room.loose--
	}
	issued := g.Iss == n.pub
	if err := tx.PutGrant(&store.GrantRec{ID: id, Raw: g.Canonical(), Exp: g.Exp, Issued: issued, Stored: now}); err != nil {
		return err
	}
	// Indexed at once: the grant verifies, so honoring it before its
	// record commits (or if the commit fails) gives nothing away.
	n.grants.add(g, issued)
	return nil
}

// usableGrant reports whether g is one this node always keeps: issued by
// it or by a key it trusts, or for it from a peer it knows.
func (n *Node) usableGrant(tx *store.Tx, g *grant.Grant) bool {
	if g.Iss == n.pub || n.trust.has(g.Iss) {
		return true
	}
	return g.Sub == n.pub && n.knownPeerTx(tx, g.Iss)
}

// knownPeer reports whether k is a peer this node knows beyond having
// seen it connect (which any throwaway key can): trusted, dialed by this
// node (an address it keeps dialing), added from an invite, introduced by
// a key it trusts, or given a grant by this node. Budgets that a flood of
// strangers must not exhaust (approval slots) keep room for known peers.
func (n *Node) knownPeer(k key.PublicKey) bool {
	if n.trust.has(k) || n.grants.issued(k) {
		return true
	}
	known := false
	_ = n.db.View(func(tx *store.Tx) error {
		known = n.knownPeerTx(tx, k)
		return nil
	})
	return known
}

func (n *Node) knownPeerTx(tx *store.Tx, k key.PublicKey) bool {
	if n.trust.has(k) || n.grants.issued(k) {
		return true
	}
	p, ok := tx.Peer(k)
	if !ok {
		return false
	}
	if known(p) { // trusted, dialed, or added from an invite
		return true
	}
	if p.IntroducedBy != "" {
		if by, err := key.ParsePublic(p.IntroducedBy); err == nil && n.trust.has(by) {
			return true
		}
	}
	return false
}

// signGrant signs a grant with this node's key and stores it as issued.
func (n *Node) signGrant(sub key.PublicKey, caps []string, ttl time.Duration, on []key.PublicKey, note string) (*grant.Grant, error) {
	g, err := grant.Sign(n.priv, sub, caps, n.now().Add(ttl), on, note)
	if err != nil {
		return nil, err
	}
	err = n.commit.run(func(tx *store.Tx) error {
		return tx.PutGrant(&store.GrantRec{ID: g.ID(), Raw: g.Canonical(), Exp: g.Exp, Issued: true, Stored: n.now()})
	})
	if err != nil {
		return nil, err
	}
	n.grants.add(g, true)
	return g, nil
}

// keepHonored stores a grant that honored a request but came only attached
// to it (a loose one past the bound, say), so that the person sees it in
// the list of grants and can revoke it.
func (n *Node) keepHonored(g *grant.Grant) {
	if n.grants.holds(g.ID()) {
		return
	}
	now := n.now()
	err := n.commit.run(func(tx *store.Tx) error {
		id := g.ID()
		if _, ok := tx.Grant(id); ok || g.Expired(now) {
			return nil
		}
		if err := tx.PutGrant(&store.GrantRec{ID: id, Raw: g.Canonical(), Exp: g.Exp, Issued: g.Iss == n.pub, Stored: now}); err != nil {
			return err
		}
		n.grants.add(g, g.Iss == n.pub)
		return nil
	})
	if err != nil {
		n.log.Error("store honored grant", "err", err)
	}
}

// Grants lists stored grants (issued by me and received).
func (n *Node) Grants() ([]GrantInfo, error) {
	out := []GrantInfo{}
	now := n.now()
	err := n.db.View(func(tx *store.Tx) error {
		tx.Grants(func(r *store.GrantRec) bool {
			out = append(out, GrantInfo{ID: r.ID, Grant: r.Raw, Issued: r.Issued, Revoked: r.Revoked, Expired: !now.Before(r.Exp), Exp: wire.FormatTime(r.Exp)})
			return true
		})
		return nil
	})
	return out, err
}

// RevokeGrant stops honoring a stored grant on this node, in every encoding
// (docs/protocol/grants.md): its record stays, marked revoked, so a copy
// received later is not stored again; the signed grant itself cannot be
// recalled.
func (n *Node) RevokeGrant(id string) error {
	var exp time.Time
	err := n.commit.run(func(tx *store.Tx) error {
		r, ok := tx.Grant(id)
		if !ok {
			return fmt.Errorf("peer: revoke: no grant %s", id)
		}
		r.Revoked, exp = true, r.Exp
		return tx.PutGrant(r)
	})
	if err == nil {
		n.grants.revoke(id, exp)
	}
	return err
}
