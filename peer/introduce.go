package peer

import (
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// An introduce line names another peer (key, name, addresses) and may
// carry a grant for it (docs/protocol/grants.md "Introduce"). The line is
// stored in its thread like any content; the introduced peer is recorded
// as introduced by the sender, which never makes its key trusted (nor
// allowed on WireGuard: known).

// storeIntroduce stores a received introduce line (lineHandlers).
func (n *Node) storeIntroduce(tx *store.Tx, in *inLine, i *wire.Introduce) error {
	return n.storeInThread(tx, in, func(*store.Thread) error {
		return n.noteIntroduced(tx, in, i)
	})
}

// noteIntroduced records the peer i introduces as introduced by in's
// sender (unless another introduced it first), and stores i's grant.
func (n *Node) noteIntroduced(tx *store.Tx, in *inLine, i *wire.Introduce) error {
	k, err := key.ParsePublic(i.Peer.Key)
	if err != nil || k == n.pub {
		return nil
	}
	p, ok := tx.Peer(k)
	if !ok {
		p = &store.Peer{Key: k.String(), FirstSeen: in.now, Name: i.Peer.Name, About: i.Peer.About, Listen: i.Peer.Listen}
	}
	if p.IntroducedBy == "" {
		p.IntroducedBy = in.s.peerS
	}
	if p.Name == "" {
		p.Name = i.Peer.Name
	}
	if len(p.Listen) == 0 {
		p.Listen = i.Peer.Listen
	}
	if err := tx.PutPeer(p); err != nil {
		return err
	}
	return n.storeGrantRaw(tx, i.Grant, in.now, newGrantRoom())
}
