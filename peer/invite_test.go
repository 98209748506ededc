package peer

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/key/keytest"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// invite makes an invite of c as Node.Invite does.
func invite(t testing.TB, c wire.Card) string {
	t.Helper()
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return InvitePrefix + key.B64.EncodeToString(b)
}

// A damaged invite is refused with a reason a person can act on, not a
// decoder's offset.
func TestParseInviteErrors(t *testing.T) {
	good := wire.Card{Key: keytest.SeededPublic(1).String(), Name: "bob", Listen: []string{"tcp://127.0.0.1:7702"}}
	inv := invite(t, good)
	if c, err := ParseInvite("  " + inv + "\n"); err != nil || !reflect.DeepEqual(c, good) {
		t.Fatalf("ParseInvite(good) = %+v, %v", c, err)
	}
	for _, tc := range []struct{ in, want string }{
		{"hello", `it does not start with "awp:"`},
		{"awp:%%%", "is cut or changed (not base64url)"},
		{"awp:garbage", "is cut or changed (no card inside)"},
		{inv[:len(inv)-7], "is cut or changed"},
		{invite(t, wire.Card{Key: "ed25519:nope"}), "its key: "},
	} {
		_, err := ParseInvite(tc.in)
		if !errors.Is(err, ErrBadInvite) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseInvite(%q) = %v, want %q", tc.in, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "looking for") {
			t.Errorf("ParseInvite(%q) says the decoder's words: %v", tc.in, err)
		}
	}
}

// FuzzParseInvite: any text is refused or read; what is read has a key
// that parses, and the same card made into an invite again reads the same.
func FuzzParseInvite(f *testing.F) {
	good := invite(f, wire.Card{Key: keytest.SeededPublic(1).String(), Name: "bob", Listen: []string{"tcp://127.0.0.1:7702"}})
	for _, s := range []string{good, "awp:garbage", "awp:e30", "hello"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseInvite(s)
		if err != nil {
			if !errors.Is(err, ErrBadInvite) {
				t.Fatalf("ParseInvite(%q): %v does not wrap ErrBadInvite", s, err)
			}
			return
		}
		if _, err := key.ParsePublic(c.Key); err != nil {
			t.Fatalf("ParseInvite(%q) read key %q: %v", s, c.Key, err)
		}
		again, err := ParseInvite(invite(t, c))
		if err != nil || !reflect.DeepEqual(again, c) {
			t.Fatalf("ParseInvite(%q) = %+v; made again and read: %+v, %v", s, c, again, err)
		}
	})
}
