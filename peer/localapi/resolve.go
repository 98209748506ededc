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
// peer (case-insensitive when no exact match exists). self, when not zero,
// is a candidate too (a grant's --on may name this node).
func ResolveKey(s string, peers []peer.PeerInfo, self key.PublicKey) (key.PublicKey, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return key.PublicKey{}, fmt.Errorf("%w: empty key", ErrUnknownKey)
	}
	if k, err := key.ParsePublic(s); err == nil {
		return k, nil
	}
	if k, err := key.ParsePublic(key.Prefix + s); err == nil {
		return k, nil
	}
	type cand struct{ key, name string }
	all := make([]cand, 0, len(peers)+1)
	for _, p := range peers {
		if !p.Key.IsZero() {
			all = append(all, cand{p.Key.String(), p.Name})
		}
	}
	if !self.IsZero() {
		all = append(all, cand{self.String(), "(this peer)"})
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
	prefix := strings.TrimPrefix(s, key.Prefix)
	if len(prefix) >= MinKeyPrefix {
		found = pick(func(c cand) bool { return strings.HasPrefix(strings.TrimPrefix(c.key, key.Prefix), prefix) })
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
		if c.name != "" {
			fmt.Fprintf(&b, "%s (%s)", short, c.name)
		} else {
			b.WriteString(short)
		}
	}
	return key.PublicKey{}, fmt.Errorf("%w: %q matches %d peers: %s", ErrAmbiguousKey, s, len(found), b.String())
}

// ResolveKey resolves s against the running peer's known peers and its own
// key (see the function ResolveKey). A full key needs no call.
func (c *Client) ResolveKey(ctx context.Context, s string) (key.PublicKey, error) {
	if k, err := ResolveKey(s, nil, key.PublicKey{}); err == nil {
		return k, nil
	}
	peers, err := c.Peers(ctx)
	if err != nil {
		return key.PublicKey{}, err
	}
	var self key.PublicKey
	if id, err := c.Identity(ctx); err == nil {
		self = id.Key
	}
	return ResolveKey(s, peers, self)
}
