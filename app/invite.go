package app

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// InvitePrefix starts every invite (docs/protocol/addresses.md).
const InvitePrefix = "awp:"

// Card is what an invite carries: one peer's key, name and addresses.
type Card struct {
	Key    string   `json:"key"`
	Name   string   `json:"name"`
	Listen []string `json:"listen"`
}

// ErrBadInvite is returned by ParseInvite for text that is not an invite.
var ErrBadInvite = errors.New("not an AWP invite (awp:…)")

// MakeInvite encodes a card as invite text.
func MakeInvite(c Card) string {
	if c.Listen == nil {
		c.Listen = []string{}
	}
	b, _ := json.Marshal(c) // a struct of strings always marshals
	return InvitePrefix + base64.RawURLEncoding.EncodeToString(b)
}

// ParseInvite decodes invite text. Surrounding space is ignored.
func ParseInvite(s string) (Card, error) {
	var c Card
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, InvitePrefix) {
		return c, ErrBadInvite
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s[len(InvitePrefix):], "="))
	if err != nil {
		return c, fmt.Errorf("%w: %v", ErrBadInvite, err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("%w: %v", ErrBadInvite, err)
	}
	if !strings.HasPrefix(c.Key, "ed25519:") {
		return c, fmt.Errorf("%w: no key", ErrBadInvite)
	}
	return c, nil
}

// isAddress reports whether s looks like a peer address rather than an
// invite: tcp://, unix://, wg:// or a tailcat token.
func isAddress(s string) bool {
	for _, p := range []string{"tcp://", "unix://", "wg://", "tc"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
