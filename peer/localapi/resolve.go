package localapi

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

// MinKeyPrefix is the shortest key prefix (characters after "ed25519:")
// ResolveKey accepts: the short keys tables print are 8 characters, and
// with fewer than 6 (36 bits) two of a few thousand peers would often share
// one.
const MinKeyPrefix = 6

// maxCandidates bounds how many candidates an ambiguity error lists.
const maxCandidates = 8

// ErrAmbiguousKey is returned (wrapped) when a key prefix or a name matches
// more than one peer; the message lists the candidates.
var ErrAmbiguousKey = errors.New("ambiguous key")

// ErrUnknownKey is returned (wrapped) when a text is neither a full key nor
// the prefix or unique name of a known peer.
var ErrUnknownKey = errors.New("unknown peer")

// ResolveKey turns what a person typed where a KEY is expected into a full
// key: a full key ("ed25519:…", or its 43 characters without the prefix)
// is returned as it is, known or not; otherwise s is an unambiguous prefix
// of a known key's text after "ed25519:" (at least MinKeyPrefix
// characters, with or without "ed25519:") or the name of exactly one known
// peer (case-insensitive when no exact match exists). self, when its key
// is not zero, is a candidate too, by its key and its name (a grant's --on
// may name this node).
func ResolveKey(s string, peers []peer.PeerInfo, self Identity) (key.PublicKey, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return key.PublicKey{}, fmt.Errorf("%w: empty key", ErrUnknownKey)
	}
	// A full key, with or without "ed25519:", is returned as it is; a
	// whole key's length that does not parse (the zero key, a
	// non-canonical text) is a prefix of no key but itself.
	text := strings.TrimPrefix(s, key.Prefix) // a key's text, or the start of one
	k, err := key.ParsePublic(key.Prefix + text)
	switch {
	case err == nil:
		return k, nil
	case len(text) == key.TextLen:
		return key.PublicKey{}, fmt.Errorf("%w: %v", ErrUnknownKey, err)
	}
	type cand struct{ key, name, label string } // label: what an ambiguity lists beside the key
	all := make([]cand, 0, len(peers)+1)
	for _, p := range peers {
		if !p.Key.IsZero() {
			all = append(all, cand{p.Key.String(), p.Name, p.Name})
		}
	}
	if !self.Key.IsZero() {
		label := "this peer"
		if self.Name != "" {
			label = self.Name + ", this peer"
		}
		all = append(all, cand{self.Key.String(), self.Name, label})
	}
	pick := func(match func(c cand) bool) []cand {
		var out []cand
		seen := map[string]bool{}
		for _, c := range all {
			if match(c) && !seen[c.key] {
				seen[c.key] = true
				out = append(out, c)
			}
		}
		return out
	}
	var found []cand
	if len(text) >= MinKeyPrefix {
		found = pick(func(c cand) bool { return strings.HasPrefix(strings.TrimPrefix(c.key, key.Prefix), text) })
	}
	if len(found) == 0 {
		found = pick(func(c cand) bool { return c.name != "" && c.name == s })
	}
	if len(found) == 0 {
		found = pick(func(c cand) bool { return c.name != "" && strings.EqualFold(c.name, s) })
	}
	switch len(found) {
	case 0:
		return key.PublicKey{}, fmt.Errorf("%w: %q is neither a key, nor the prefix (%d characters or more) of a known peer's key, nor a known peer's name", ErrUnknownKey, s, MinKeyPrefix)
	case 1:
		return key.ParsePublic(found[0].key)
	}
	sort.Slice(found, func(i, j int) bool { return found[i].key < found[j].key })
	var b strings.Builder
	for i, c := range found {
		if i == maxCandidates {
			fmt.Fprintf(&b, ", and %d more", len(found)-maxCandidates)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		short := strings.TrimPrefix(c.key, key.Prefix)[:12]
		if c.label != "" {
			fmt.Fprintf(&b, "%s (%s)", short, c.label)
		} else {
			b.WriteString(short)
		}
	}
	return key.PublicKey{}, fmt.Errorf("%w: %q matches %d peers: %s", ErrAmbiguousKey, s, len(found), b.String())
}

// ResolveKey resolves s against the running peer's known peers and itself
// (see the function ResolveKey). A full key needs no call.
func (c *Client) ResolveKey(ctx context.Context, s string) (key.PublicKey, error) {
	if k, err := ResolveKey(s, nil, Identity{}); err == nil {
		return k, nil
	}
	peers, err := c.Peers(ctx)
	if err != nil {
		return key.PublicKey{}, err
	}
	self, _ := c.Identity(ctx) // without it, this peer is no candidate
	return ResolveKey(s, peers, self)
}
