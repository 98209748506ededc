package store

import (
	"github.com/awp-tray/awp-tray/peer/key"
)

// Received reports whether a content line with this id from peer in
// thread th was already stored. Ids of one sender increase in creation
// order and a thread's lines arrive in that order, so a line is a
// duplicate exactly when its id is not after the last id received in its
// thread; the store keeps that one id per (peer, thread) rather than every
// id ever received (docs/protocol/acks-and-resume.md, "Duplicates").
func (tx *Tx) Received(peer key.PublicKey, th, id string) bool {
	last := tx.LastSeen(peer, th)
	return last != "" && upperCmp(id, last) <= 0
}

// upperCmp compares two ids case-insensitively (Crockford base32).
func upperCmp(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		x, y := upper(a[i]), upper(b[i])
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return len(a) - len(b)
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// MarkReceived records id from peer as stored and makes it the last id
// received in thread th (what resume lists).
func (tx *Tx) MarkReceived(peer key.PublicKey, th, id string) error {
	// Written once per transaction, at flush.
	if tx.seen == nil {
		tx.seen = map[seenKey]string{}
	}
	tx.seen[seenKey{peer, th}] = id
	return nil
}

// LastSeen returns the last id received from peer in thread th ("" if none).
func (tx *Tx) LastSeen(peer key.PublicKey, th string) string {
	if id, ok := tx.seen[seenKey{peer, th}]; ok {
		return id
	}
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
	for k, id := range tx.seen {
		if k.peer == peer {
			out[k.th] = id
		}
	}
	return out
}

// CompareIDs compares two line ids as the dedupe does (case-insensitive
// byte order): negative when a is before b.
func CompareIDs(a, b string) int { return upperCmp(a, b) }
