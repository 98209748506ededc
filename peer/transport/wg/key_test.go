package wg

import (
	"crypto/ecdh"
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"

	"github.com/awp-tray/awp-tray/internal/vectors"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/key/keytest"
)

type wgVector struct {
	vectors.Key        // seed_hex, key
	X25519      string `json:"x25519_private_b64"`
	WGPublic    string `json:"wg_public_b64"`
	TunnelIP6   string `json:"tunnel_addr"`
}

// TestVectors reproduces testdata/vectors/wireguard.json.
func TestVectors(t *testing.T) {
	var all map[string]json.RawMessage
	vectors.Read(t, "wireguard.json", &all)
	n := 0
	for name, raw := range all {
		var v wgVector
		if json.Unmarshal(raw, &v) != nil || v.SeedHex == "" {
			continue // "note" and other non-vector fields
		}
		n++
		t.Run(name, func(t *testing.T) {
			priv := keytest.FromVector(t, v.Key)
			sk := PrivateKey(priv)
			if got := base64.StdEncoding.EncodeToString(sk[:]); got != v.X25519 {
				t.Errorf("x25519 private = %s, want %s", got, v.X25519)
			}
			pk, err := PublicKey(priv.Public())
			if err != nil {
				t.Fatal(err)
			}
			if got := base64.StdEncoding.EncodeToString(pk[:]); got != v.WGPublic {
				t.Errorf("wg public = %s, want %s", got, v.WGPublic)
			}
			if got := TunnelAddr(priv.Public()).String(); got != v.TunnelIP6 {
				t.Errorf("tunnel addr = %s, want %s", got, v.TunnelIP6)
			}
		})
	}
	if n < 2 {
		t.Fatalf("found %d vectors in wireguard.json, want at least 2", n)
	}
}

// TestPublicMatchesX25519 checks, over many keys, that the Montgomery form of
// the Ed25519 public key is the X25519 public key of the derived private key.
func TestPublicMatchesX25519(t *testing.T) {
	for i := 0; i < 64; i++ {
		seed := make([]byte, 32)
		for j := range seed {
			seed[j] = byte(i*31 + j*7)
		}
		priv, err := key.FromSeed(seed)
		if err != nil {
			t.Fatal(err)
		}
		sk := PrivateKey(priv)
		x, err := ecdh.X25519().NewPrivateKey(sk[:])
		if err != nil {
			t.Fatal(err)
		}
		pk, err := PublicKey(priv.Public())
		if err != nil {
			t.Fatal(err)
		}
		if got := x.PublicKey().Bytes(); string(got) != string(pk[:]) {
			t.Fatalf("seed %d: montgomery %x != x25519 %x", i, pk, got)
		}
		if a := TunnelAddr(priv.Public()); !a.Is6() || a.As16()[0] != 0xfd {
			t.Fatalf("tunnel addr %s is not in fd00::/8", a)
		}
	}
}

func TestPublicKeyRejects(t *testing.T) {
	if _, err := PublicKey(key.PublicKey{}); !errors.Is(err, ErrBadPeerKey) {
		t.Errorf("zero key: err = %v, want ErrBadPeerKey", err)
	}
	one := make([]byte, 32)
	one[0] = 1 // y = 1: the identity point
	p, err := key.PublicFromBytes(one)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := PublicKey(p); !errors.Is(err, ErrBadPeerKey) {
		t.Errorf("identity point: err = %v, want ErrBadPeerKey", err)
	}
}
