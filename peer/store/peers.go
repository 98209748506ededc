package store

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
)

// Peer is what the node remembers of a peer.
type Peer struct {
	Key          string    `json:"key"`
	Name         string    `json:"name,omitempty"`
	About        string    `json:"about,omitempty"`
	Listen       []string  `json:"listen,omitempty"`
	Caps         []string  `json:"caps,omitempty"`
	Trusted      bool      `json:"trusted,omitempty"`
	IntroducedBy string    `json:"introduced_by,omitempty"`
	Dialed       string    `json:"dialed,omitempty"` // an address this node keeps dialing
	FirstSeen    time.Time `json:"first_seen"`
	LastSeen     time.Time `json:"last_seen"`

	// Invited: the person added this peer's invite (with Trusted and
	// Dialed, a reason to configure its key in WireGuard,
	// docs/protocol/bindings.md "Who can connect").
	Invited bool `json:"invited,omitempty"`
	// PrivateListen are addresses the peer gave this node only after
	// authentication (its tailcat token): shown to this node's person,
	// passed on to no one.
	PrivateListen []string `json:"private_listen,omitempty"`
	// WGEndpoint is the UDP endpoint (HOST:PORT) of the peer's last
	// session over the wg binding: where a restarted node tells it so.
	WGEndpoint string `json:"wg_endpoint,omitempty"`
}

// Peer returns a peer's record.
func (tx *Tx) Peer(k key.PublicKey) (*Peer, bool) {
	return getRecord[Peer](tx.btx.Bucket(bPeers), peerBytes(k))
}

// PutPeer stores a peer's record.
func (tx *Tx) PutPeer(p *Peer) error {
	k, err := key.ParsePublic(p.Key)
	if err != nil {
		return fmt.Errorf("store: put peer: %w", err)
	}
	return putRecord(tx.btx.Bucket(bPeers), peerBytes(k), p, "put peer")
}

// Peers calls fn for every known peer.
func (tx *Tx) Peers(fn func(*Peer) bool) { eachRecord(tx.btx.Bucket(bPeers), fn) }

// GrantRec is a stored grant: the exact object bytes and when it expires.
type GrantRec struct {
	ID      string          `json:"id"` // issuer key + nonce
	Raw     json.RawMessage `json:"raw"`
	Exp     time.Time       `json:"exp"`
	Issued  bool            `json:"issued,omitempty"`  // this node signed it
	Revoked bool            `json:"revoked,omitempty"` // no longer honored locally
	Stored  time.Time       `json:"stored"`
}

// PutGrant stores a grant record under its ID.
func (tx *Tx) PutGrant(g *GrantRec) error {
	return putRecord(tx.btx.Bucket(bGrants), []byte(g.ID), g, "put grant")
}

// Grant returns one grant record.
func (tx *Tx) Grant(id string) (*GrantRec, bool) {
	return getRecord[GrantRec](tx.btx.Bucket(bGrants), []byte(id))
}

// Grants calls fn for every stored grant.
func (tx *Tx) Grants(fn func(*GrantRec) bool) { eachRecord(tx.btx.Bucket(bGrants), fn) }

// GrantCount is how many grant records are stored (keys counted, nothing
// decoded).
func (tx *Tx) GrantCount() int {
	n := 0
	c := tx.btx.Bucket(bGrants).Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		n++
	}
	return n
}

// DeleteGrant removes a grant record.
func (tx *Tx) DeleteGrant(id string) error { return tx.btx.Bucket(bGrants).Delete([]byte(id)) }
