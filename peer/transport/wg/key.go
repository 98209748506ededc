package wg

import (
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"fmt"
	"math/big"
	"net/netip"

	"github.com/awp-tray/awp-tray/peer/key"
)

// This file derives a peer's WireGuard identity from its AWP (Ed25519)
// identity, as docs/protocol/bindings.md says, so that an AWP key is all another peer needs
// to know. testdata/vectors/wireguard.json pins the results.

// ErrBadPeerKey is returned when an Ed25519 public key has no Montgomery form
// usable as a WireGuard key (the identity point, y = 1) or is the zero key.
var ErrBadPeerKey = errors.New("wg: ed25519 key has no usable montgomery form")

// MTU is the tunnel MTU of the AWP WireGuard binding.
const MTU = 1420

// AWPPort is the TCP port AWP listens on inside the tunnel.
const AWPPort = 1

// addrLabel prefixes the public key when hashing it into a tunnel address.
const addrLabel = "awp-wg-addr-v0"

// field is the prime 2^255 − 19 of Curve25519 and Ed25519.
var field = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19))

// PrivateKey returns the X25519 (WireGuard) private key of k: the clamped
// first half of SHA-512 of the Ed25519 seed (RFC 8032 §5.1.5), the same scalar
// Ed25519 itself uses.
func PrivateKey(k key.PrivateKey) [32]byte {
	h := sha512.Sum512(k.Seed())
	var s [32]byte
	copy(s[:], h[:32])
	s[0] &= 248
	s[31] &= 127
	s[31] |= 64
	return s
}

// PublicKey returns the WireGuard public key of an AWP key: the Montgomery u
// coordinate of the Ed25519 point, u = (1 + y) / (1 − y) mod 2^255 − 19,
// little-endian. It is X25519(PrivateKey(k), 9) for the matching private key.
func PublicKey(p key.PublicKey) ([32]byte, error) {
	var out [32]byte
	if p.IsZero() {
		return out, fmt.Errorf("%w: zero key", ErrBadPeerKey)
	}
	raw := p.Raw()
	y := new(big.Int).SetBytes(reverse(raw[:]))
	y.SetBit(y, 255, 0) // the top bit is the sign of x
	y.Mod(y, field)
	den := new(big.Int).Sub(big.NewInt(1), y)
	den.Mod(den, field)
	if den.Sign() == 0 {
		return out, fmt.Errorf("%w: %s", ErrBadPeerKey, p.Short())
	}
	num := new(big.Int).Add(big.NewInt(1), y)
	u := num.Mul(num, den.ModInverse(den, field))
	u.Mod(u, field)
	b := u.FillBytes(make([]byte, 32))
	copy(out[:], reverse(b))
	return out, nil
}

// TunnelAddr returns the tunnel IPv6 address of an AWP key: 0xfd followed by
// the first 15 bytes of SHA-256("awp-wg-addr-v0" || the 32-byte public key).
func TunnelAddr(p key.PublicKey) netip.Addr {
	raw := p.Raw()
	h := sha256.New()
	h.Write([]byte(addrLabel))
	h.Write(raw[:])
	var a [16]byte
	a[0] = 0xfd
	copy(a[1:], h.Sum(nil)[:15])
	return netip.AddrFrom16(a)
}

// reverse returns a reversed copy of b (little-endian ↔ big-endian).
func reverse(b []byte) []byte {
	r := make([]byte, len(b))
	for i, c := range b {
		r[len(b)-1-i] = c
	}
	return r
}

// EdwardsKeys returns the AWP keys whose WireGuard public key is wgPub:
// the Ed25519 points with y = (u − 1) / (u + 1), one for each sign of x
// (the Montgomery form does not keep the sign, so a WireGuard key names
// two AWP keys). It returns none for u = −1, which no Ed25519 key maps to.
func EdwardsKeys(wgPub [32]byte) []key.PublicKey {
	u := new(big.Int).SetBytes(reverse(wgPub[:]))
	u.Mod(u, field)
	den := new(big.Int).Add(u, big.NewInt(1))
	den.Mod(den, field)
	if den.Sign() == 0 {
		return nil
	}
	num := new(big.Int).Sub(u, big.NewInt(1))
	y := num.Mul(num, den.ModInverse(den, field))
	y.Mod(y, field)
	raw := reverse(y.FillBytes(make([]byte, 32)))
	var out []key.PublicKey
	for _, sign := range []byte{0, 0x80} {
		b := append([]byte(nil), raw...)
		b[31] |= sign
		k, err := key.PublicFromBytes(b)
		if err != nil {
			continue
		}
		if pk, err := PublicKey(k); err == nil && pk == wgPub {
			out = append(out, k)
		}
	}
	return out
}
