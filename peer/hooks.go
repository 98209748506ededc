package peer

import (
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// storeIntroduce records the introduced peer as introduced by the sender.
// It never makes the key trusted.
func (n *Node) storeIntroduce(tx *store.Tx, from key.PublicKey, in *wire.Introduce, now time.Time) {
	k, err := key.ParsePublic(in.Peer.Key)
	if err != nil || k == n.pub {
		return
	}
	p, ok := tx.Peer(k)
	if !ok {
		p = &store.Peer{Key: k.String(), FirstSeen: now, Name: in.Peer.Name, About: in.Peer.About, Listen: in.Peer.Listen}
	}
	if p.IntroducedBy == "" {
		p.IntroducedBy = from.String()
	}
	if p.Name == "" {
		p.Name = in.Peer.Name
	}
	if len(p.Listen) == 0 {
		p.Listen = in.Peer.Listen
	}
	_ = tx.PutPeer(p)
	n.storeGrantRaw(tx, in.Grant, now, newGrantRoom())
}
