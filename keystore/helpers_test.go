package keystore

import (
	"testing"

	"github.com/awp-tray/awp-tray/peer/key"
)

func newKey(t testing.TB) key.PrivateKey {
	t.Helper()
	k, err := key.NewPrivate()
	if err != nil {
		t.Fatal(err)
	}
	return k
}
