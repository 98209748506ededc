package store

import (
	"strings"

	"github.com/awp-tray/awp-tray/peer/key"
)

// Received reports whether a content line with this id from peer was
// already stored (dedupe by (peer, id), SPEC §6).
func (tx *Tx) Received(peer key.PublicKey, id string) bool {
	b := tx.btx.Bucket(bDedupe).Bucket(peerBytes(peer))
	return b != nil && b.Get([]byte(strings.ToUpper(id))) != nil
}

// MarkReceived records id from peer as stored and makes it the last id
// received in thread th (what resume lists).
func (tx *Tx) MarkReceived(peer key.PublicKey, th, id string) error {
	d := tx.sub(bDedupe, peerBytes(peer))
	if err := d.Put([]byte(strings.ToUpper(id)), []byte{}); err != nil {
		return err
	}
	return tx.sub(bSeen, peerBytes(peer)).Put([]byte(th), []byte(id))
}

// LastSeen returns the last id received from peer in thread th ("" if none).
func (tx *Tx) LastSeen(peer key.PublicKey, th string) string {
	b := tx.btx.Bucket(bSeen).Bucket(peerBytes(peer))
	if b == nil {
		return ""
	}
	return string(b.Get([]byte(th)))
}

// SeenMap returns, per thread, the last id received from peer.
func (tx *Tx) SeenMap(peer key.PublicKey) map[string]string {
	out := map[string]string{}
	b := tx.btx.Bucket(bSeen).Bucket(peerBytes(peer))
	if b == nil {
		return out
	}
	_ = b.ForEach(func(k, v []byte) error {
		out[string(k)] = string(v)
		return nil
	})
	return out
}
