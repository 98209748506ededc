// Package keytest makes keys for tests: a fixed key from a seed byte (the
// same key in every run, so a test can name it), a fresh random one, and
// the key of a test vector.
package keytest

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/awp-tray/awp-tray/internal/vectors"
	"github.com/awp-tray/awp-tray/peer/key"
)

// Seeded returns the fixed key whose 32-byte seed is b repeated.
func Seeded(t testing.TB, b byte) key.PrivateKey {
	t.Helper()
	k, err := seeded(b)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// SeededPublic returns the public half of Seeded's key for b, for the keys
// a test names at package level, where there is no t.
func SeededPublic(b byte) key.PublicKey {
	k, err := seeded(b)
	if err != nil {
		panic(err) // a 32-byte seed always makes a key
	}
	return k.Public()
}

func seeded(b byte) (key.PrivateKey, error) { return key.FromSeed(bytes.Repeat([]byte{b}, 32)) }

// NewPublic returns the public half of a fresh random key.
func NewPublic(t testing.TB) key.PublicKey {
	t.Helper()
	k, err := key.NewPrivate()
	if err != nil {
		t.Fatal(err)
	}
	return k.Public()
}

// FromVector returns the key a test vector's seed makes (an entry of
// keys.json, or of a file that carries its fields), failing the test unless
// its public key is the one the vector names.
func FromVector(t testing.TB, v vectors.Key) key.PrivateKey {
	t.Helper()
	seed, err := hex.DecodeString(v.SeedHex)
	if err != nil {
		t.Fatal(err)
	}
	k, err := key.FromSeed(seed)
	if err != nil {
		t.Fatal(err)
	}
	if got := k.Public().String(); got != v.Key {
		t.Fatalf("key = %s, want %s", got, v.Key)
	}
	return k
}
