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
	for _, in := range []string{"", "carol", at(b, 5), key.Prefix + "zzzzzzzzzz", strings.Repeat("A", 43), key.Prefix + strings.Repeat("A", 43)} {
		if _, err := ResolveKey(in, peers, self); !errors.Is(err, ErrUnknownKey) {
			t.Errorf("ResolveKey(%q) err = %v, want ErrUnknownKey", in, err)
		}
	}
	// The zero key's text says why, not "neither a key nor a prefix".
	if _, err := ResolveKey(strings.Repeat("A", 43), peers, self); err == nil || !strings.Contains(err.Error(), "all zero") {
		t.Errorf("ResolveKey(zero key) err = %v", err)
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

// FuzzResolveKey: whatever a person types where a KEY goes, ResolveKey
// either refuses it with one of its two errors (or a malformed full key's)
// or gives a key that the text names: the key itself, a prefix of a
// candidate's key text, or a candidate's name.
func FuzzResolveKey(f *testing.F) {
	mk := func(seed byte) key.PublicKey {
		var s [32]byte
		s[0] = seed
		p, err := key.FromSeed(s[:])
		if err != nil {
			f.Fatal(err)
		}
		return p.Public()
	}
	a, b, c, self := mk(1), mk(2), mk(3), Identity{Key: mk(4), Name: "me"}
	peers := []peer.PeerInfo{{Key: a, Name: "alice"}, {Key: b, Name: "bob"}, {Key: c, Name: "Bob"}, {Key: a, Name: "alice"}}
	for _, s := range []string{"", "alice", "BOB", "bob", "me", " me ", a.String(), strings.TrimPrefix(b.String(), key.Prefix)[:7],
		key.Prefix + "zz", "ed25519:", strings.Repeat("A", 43), "\x00", "émoji🙂"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ResolveKey(s, peers, self)
		if err != nil {
			if !k.IsZero() {
				t.Fatalf("%q: error %v with key %v", s, err, k)
			}
			return
		}
		in := strings.TrimSpace(s)
		text := strings.TrimPrefix(k.String(), key.Prefix)
		byKey := in == k.String() || in == text ||
			len(strings.TrimPrefix(in, key.Prefix)) >= MinKeyPrefix && strings.HasPrefix(text, strings.TrimPrefix(in, key.Prefix))
		byName := false
		for _, p := range append(peers, peer.PeerInfo{Key: self.Key, Name: self.Name}) {
			if p.Key == k && p.Name != "" && strings.EqualFold(p.Name, in) {
				byName = true
			}
		}
		if !byKey && !byName {
			t.Fatalf("%q resolved to %v, which it does not name", s, k)
		}
	})
}
