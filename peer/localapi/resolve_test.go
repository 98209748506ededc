package localapi

import (
	"errors"
	"strings"
	"testing"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

func TestResolveKey(t *testing.T) {
	mk := func() key.PublicKey {
		p, err := key.NewPrivate()
		if err != nil {
			t.Fatal(err)
		}
		return p.Public()
	}
	a, b, self := mk(), mk(), mk()
	c := mk() // named "bob" too: the name is then ambiguous
	peers := []peer.PeerInfo{{Key: a, Name: "alice"}, {Key: b, Name: "bob"}, {Key: c, Name: "bob"}}
	unseen := mk()
	at := func(k key.PublicKey, n int) string { return strings.TrimPrefix(k.String(), key.Prefix)[:n] }
	ok := []struct {
		in   string
		want key.PublicKey
	}{
		{a.String(), a},
		{unseen.String(), unseen}, // a full key need not be known
		{strings.TrimPrefix(unseen.String(), key.Prefix), unseen},
		{at(b, 10), b},
		{key.Prefix + at(b, 10), b},
		{"alice", a},
		{"ALICE", a},
		{at(self, 12), self},
	}
	for _, tc := range ok {
		got, err := ResolveKey(tc.in, peers, self)
		if err != nil || got != tc.want {
			t.Errorf("ResolveKey(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "carol", at(b, 5), key.Prefix + "zzzzzzzzzz"} {
		if _, err := ResolveKey(in, peers, self); !errors.Is(err, ErrUnknownKey) {
			t.Errorf("ResolveKey(%q) err = %v, want ErrUnknownKey", in, err)
		}
	}
	_, err := ResolveKey("bob", peers, self)
	if !errors.Is(err, ErrAmbiguousKey) || !strings.Contains(err.Error(), at(b, 12)) || !strings.Contains(err.Error(), at(c, 12)) {
		t.Errorf("ResolveKey(bob) err = %v, want ambiguous listing both", err)
	}
	_, err = ResolveKey(at(a, 6), []peer.PeerInfo{{Key: a}, {Key: a, Name: "dup"}}, key.PublicKey{})
	if err != nil {
		t.Errorf("one key listed twice is not ambiguous: %v", err)
	}
}
