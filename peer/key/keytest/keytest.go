// Package keytest makes keys for tests: a fixed key from a seed byte (the
// same key in every run, so a test can name it) and a fresh random one.
package keytest

import (
	"bytes"
	"testing"

	"github.com/awp-tray/awp-tray/peer/key"
)

// Seeded returns the fixed key whose 32-byte seed is b repeated.
func Seeded(t testing.TB, b byte) key.PrivateKey {
	t.Helper()
	k, err := key.FromSeed(bytes.Repeat([]byte{b}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// NewPublic returns the public half of a fresh random key.
func NewPublic(t testing.TB) key.PublicKey {
	t.Helper()
	k, err := key.NewPrivate()
	if err != nil {
		t.Fatal(err)
	}
	return k.Public()
}
