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
	a, b := mk(), mk()
	self := Identity{Key: mk(), Name: "me@laptop"}
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
		{at(self.Key, 12), self.Key},
		{"me@laptop", self.Key}, // this peer by its name
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
	_, err = ResolveKey(at(a, 6), []peer.PeerInfo{{Key: a}, {Key: a, Name: "dup"}}, Identity{})
	if err != nil {
		t.Errorf("one key listed twice is not ambiguous: %v", err)
	}
	// A peer that takes this peer's name: the name is ambiguous, and the
	// listing says which one is this peer.
	_, err = ResolveKey("me@laptop", append(peers, peer.PeerInfo{Key: unseen, Name: "me@laptop"}), self)
	if !errors.Is(err, ErrAmbiguousKey) || !strings.Contains(err.Error(), at(self.Key, 12)+" (me@laptop, this peer)") || !strings.Contains(err.Error(), at(unseen, 12)+" (me@laptop)") {
		t.Errorf("ResolveKey(me@laptop) err = %v, want ambiguous naming this peer", err)
	}
}
