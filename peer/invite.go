package peer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sort"
	"strings"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/transport"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// InvitePrefix starts every invite (docs/protocol/addresses.md).
const InvitePrefix = "awp:"

// ErrBadInvite is returned for an invite that does not parse.
var ErrBadInvite = errors.New("peer: bad invite")

// Invite returns this peer's invite: "awp:" and the unpadded base64url of
// its card {key, name, listen}. Listen addresses bound to all interfaces
// are listed once per interface address, so the other side can dial one.
// Unlike a hello, an invite carries the tailcat token: the person hands it
// to whom they choose.
func (n *Node) Invite() string {
	return encodeInvite(wire.Card{Key: n.pub.String(), Name: n.cfg.Name, Listen: expandUnspecified(n.listenAddrs(true))})
}

// encodeInvite is the invite of card, which ParseInvite reads.
func encodeInvite(card wire.Card) string {
	b, _ := json.Marshal(card) // a Card always encodes
	return InvitePrefix + key.B64.EncodeToString(b)
}

// ParseInvite decodes an invite.
func ParseInvite(s string) (wire.Card, error) {
	var c wire.Card
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, InvitePrefix) {
		return c, fmt.Errorf("%w: it does not start with %q", ErrBadInvite, InvitePrefix)
	}
	// What follows awp: is base64url of a JSON card; the decoders' own
	// words (an offset, "looking for beginning of value") say nothing to
	// the person who pasted it, so the reasons are said plainly.
	b, err := key.B64.DecodeString(s[len(InvitePrefix):])
	if err != nil {
		return c, fmt.Errorf("%w: the text after %q is cut or changed (not base64url)", ErrBadInvite, InvitePrefix)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("%w: the text after %q is cut or changed (no card inside)", ErrBadInvite, InvitePrefix)
	}
	if _, err := key.ParsePublic(c.Key); err != nil {
		return c, fmt.Errorf("%w: its key: %v", ErrBadInvite, err)
	}
	return c, nil
}

// AddInvite records the peer an invite describes (allowing its key on the
// WireGuard binding) and dials it, preferring wg, then tailcat, then tcp,
// then others, until one address connects. It returns the peer's key once
// connected, and the addresses that failed before are not redialed; when
// none connects, the peer stays recorded and this node keeps dialing every
// address it tried.
func (n *Node) AddInvite(ctx context.Context, invite string) (key.PublicKey, error) {
	c, err := ParseInvite(invite)
	if err != nil {
		return key.PublicKey{}, err
	}
	k, err := key.ParsePublic(c.Key)
	if err != nil {
		return key.PublicKey{}, fmt.Errorf("%w: %v", ErrBadKey, err)
	}
	if err := n.checkPeer(k); err != nil {
		return key.PublicKey{}, err
	}
	now := n.now()
	err = n.commit.run(func(tx *store.Tx) error {
		p, ok := tx.Peer(k)
		if !ok {
			p = &store.Peer{Key: k.String(), FirstSeen: now}
		}
		if c.Name != "" {
			p.Name = wire.Clip(c.Name, MaxPeerName)
		}
		if len(c.Listen) > 0 {
			p.Listen = c.Listen
		}
		if c.About != "" {
			p.About = wire.Clip(c.About, MaxPeerAbout)
		}
		p.Invited = true // the person chose this key (docs/protocol/bindings.md)
		return tx.PutPeer(p)
	})
	if err != nil {
		return key.PublicKey{}, err
	}
	n.tm.AllowKey(k)
	addrs := append([]string(nil), c.Listen...)
	sort.SliceStable(addrs, func(i, j int) bool { return addrRank(addrs[i]) < addrRank(addrs[j]) })
	if len(addrs) == 0 {
		return k, fmt.Errorf("peer: invite for %s has no address; it can dial this peer", k.Short())
	}
	var errs []error
	for i, a := range addrs {
		got, err := n.Connect(ctx, a)
		if err == nil {
			if got != k {
				return got, fmt.Errorf("peer: %s answered with key %s, not the invite's %s", a, got.Short(), k.Short())
			}
			// The addresses that failed before this one are not redialed.
			for _, failed := range addrs[:i] {
				n.stopIdleDialer(failed)
			}
			return k, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return k, errors.Join(errs...)
}

func addrRank(a string) int {
	switch {
	case strings.HasPrefix(a, "wg://"):
		return 0
	case strings.HasPrefix(a, "tcp://"):
		return 2
	case strings.HasPrefix(a, "tc"):
		return 1
	}
	return 3
}

// expandUnspecified replaces 0.0.0.0 and [::] hosts with this machine's
// interface addresses (non-loopback first).
func expandUnspecified(addrs []string) []string {
	var out []string
	for _, s := range addrs {
		a, err := transport.ParseAddr(s)
		if err != nil || a.Host == "" {
			out = append(out, s)
			continue
		}
		ip, err := netip.ParseAddr(a.Host)
		if err != nil || !ip.IsUnspecified() {
			out = append(out, s)
			continue
		}
		for _, local := range localIPs(ip.Is4()) {
			b := a
			b.Host = local.String()
			out = append(out, b.String())
		}
	}
	return out
}

func localIPs(v4 bool) []netip.Addr {
	ifaddrs, _ := net.InterfaceAddrs()
	var out, loop []netip.Addr
	for _, ia := range ifaddrs {
		pfx, err := netip.ParsePrefix(ia.String())
		if err != nil {
			continue
		}
		ip := pfx.Addr()
		if ip.Is4() != v4 || ip.IsLinkLocalUnicast() {
			continue
		}
		if ip.IsLoopback() {
			loop = append(loop, ip)
		} else {
			out = append(out, ip)
		}
	}
	return append(out, loop...)
}
