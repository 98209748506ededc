package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/grant"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/localapi"
)

// resolveKey turns a KEY argument (what names it: "--to", "KEY") into a
// full key: a full key as it is; otherwise a key prefix of at least
// localapi.MinKeyPrefix characters or a unique peer name, looked up in the
// running peer (localapi's ResolveKey). A text that matches no peer, or
// more than one, is bad usage; the message lists the candidates. A text
// that starts like a key but cannot be one is bad usage without asking
// the peer.
func resolveKey(ctx context.Context, c *localapi.Client, what, s string) (key.PublicKey, error) {
	if k, err := key.ParsePublic(s); err == nil {
		return k, nil
	} else if rest, ok := strings.CutPrefix(s, key.Prefix); ok && (!keyPrefixText(rest) || len(rest) == key.TextLen) {
		// Not key text, or a whole key's length that does not parse (the
		// zero key): no prefix lookup can help.
		return key.PublicKey{}, usagef("%s: %v", what, err)
	}
	k, err := c.ResolveKey(ctx, s)
	if errors.Is(err, localapi.ErrUnknownKey) || errors.Is(err, localapi.ErrAmbiguousKey) {
		return key.PublicKey{}, usagef("%s: %v", what, err)
	}
	if err != nil {
		return key.PublicKey{}, err
	}
	return k, nil
}

// resolveKeys resolves every text of ss (see resolveKey). None gives nil,
// never an empty list: a grant's empty "on" would be honored nowhere.
func resolveKeys(ctx context.Context, c *localapi.Client, what string, ss []string) ([]key.PublicKey, error) {
	var out []key.PublicKey
	for _, s := range ss {
		k, err := resolveKey(ctx, c, what, s)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// keyPrefixText reports whether s could be the start of a key's text:
// at least MinKeyPrefix characters of unpadded base64url.
func keyPrefixText(s string) bool {
	if len(s) < localapi.MinKeyPrefix || len(s) > key.TextLen {
		return false
	}
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// notConnectedNote tells the person (on stderr) that what they queued for
// k waits in the outbox: k has never connected to this peer, or is not
// connected now. Nothing when k is up, or the peer list is unavailable.
func (e *env) notConnectedNote(ctx context.Context, c *localapi.Client, k key.PublicKey, what string) {
	peers, err := c.Peers(ctx)
	if err != nil {
		return
	}
	i := slices.IndexFunc(peers, func(p peer.PeerInfo) bool { return p.Key == k })
	switch {
	case i < 0:
		fmt.Fprintf(e.stderr, "awp: %s has never connected to this peer: the %s is queued until it connects (`awp connect ADDR` or `awp add INVITE` reaches it)\n", k, what)
	case !peers[i].Up:
		fmt.Fprintf(e.stderr, "awp: %s is not connected: the %s is queued until it connects\n", nameKey(peers[i]), what)
	}
}

// nameKey is "name (short key)", or the key.
func nameKey(p peer.PeerInfo) string {
	if p.Name == "" {
		return p.Key.String()
	}
	return peerLabel(p.Key, p.Name)
}

// knownCaps are the capability names a grant may carry (the protocol's
// grants page, docs/protocol/grants.md).
var knownCaps = []string{grant.CapChat, grant.CapExec, grant.CapFSRead, grant.CapFSWrite, grant.CapIntroduce}

// parseCaps splits a comma-separated --caps value and refuses names that
// are not capabilities, listing the known ones.
func parseCaps(s string) ([]string, error) {
	var cs []string
	for c := range strings.SplitSeq(s, ",") {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		if !slices.Contains(knownCaps, c) {
			return nil, usagef("--caps: unknown capability %q (known: %s)", c, strings.Join(knownCaps, ", "))
		}
		if !slices.Contains(cs, c) {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return nil, usagef("--caps is required (one or more of %s)", strings.Join(knownCaps, ", "))
	}
	return cs, nil
}
