package peer

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/key/keytest"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// A damaged invite is refused with a reason a person can act on, not a
// decoder's offset.
func TestParseInviteErrors(t *testing.T) {
	good := wire.Card{Key: keytest.SeededPublic(1).String(), Name: "bob", Listen: []string{"tcp://127.0.0.1:7702"}}
	inv := encodeInvite(good)
	if c, err := ParseInvite("  " + inv + "\n"); err != nil || !reflect.DeepEqual(c, good) {
		t.Fatalf("ParseInvite(good) = %+v, %v", c, err)
	}
	for _, tc := range []struct{ in, want string }{
		{"hello", `it does not start with "awp:"`},
		{"awp:%%%", "is cut or changed (not base64url)"},
		{"awp:garbage", "is cut or changed (no card inside)"},
		{inv[:len(inv)-7], "is cut or changed"},
		{encodeInvite(wire.Card{Key: "ed25519:nope"}), "its key: "},
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
	good := encodeInvite(wire.Card{Key: keytest.SeededPublic(1).String(), Name: "bob", Listen: []string{"tcp://127.0.0.1:7702"}})
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
		again, err := ParseInvite(encodeInvite(c))
		if err != nil || !reflect.DeepEqual(again, c) {
			t.Fatalf("ParseInvite(%q) = %+v; made again and read: %+v, %v", s, c, again, err)
		}
	})
}

// Once one of an invite's addresses connects, the ones that failed before
// it are no longer redialed (each failure was logged and shown every up
// to 30 s for as long as the node ran); the one that connected stays.
func TestAddInviteStopsFailedDialers(t *testing.T) {
	a, b := newTestNode(t, "a"), newTestNode(t, "b")
	dead := closedTCP(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := a.Connect(ctx, dead); err == nil {
		t.Fatal("Connect to a closed port succeeded")
	}
	a.mu.Lock()
	d := a.dialers[dead]
	a.mu.Unlock()
	if d == nil {
		t.Fatal("no dialer for the closed port after Connect")
	}
	inv := encodeInvite(wire.Card{Key: b.Key().String(), Name: "b", Listen: []string{dead, b.addr()}})
	if k, err := a.AddInvite(ctx, inv); err != nil || k != b.Key() {
		t.Fatalf("AddInvite = %v, %v", k, err)
	}
	a.mu.Lock()
	_, deadStays := a.dialers[dead]
	_, liveStays := a.dialers[b.addr()]
	a.mu.Unlock()
	if deadStays || !liveStays {
		t.Fatalf("dialers after AddInvite: the failed address %v, the connected one %v; want only the connected one", deadStays, liveStays)
	}
	select {
	case <-d.stop:
	default:
		t.Fatal("the failed address's dial loop was not told to stop")
	}
	d.mu.Lock()
	started := d.started
	d.mu.Unlock()
	time.Sleep(4 * minBackoff) // the loop, had it gone on, would have dialed again
	d.mu.Lock()
	again := d.started
	d.mu.Unlock()
	if again != started {
		t.Errorf("the stopped dialer dialed %d more times", again-started)
	}
	// Connect to that address again starts a new dialer.
	if _, err := a.Connect(ctx, dead); err == nil {
		t.Fatal("Connect to a closed port succeeded")
	}
	a.mu.Lock()
	d2 := a.dialers[dead]
	a.mu.Unlock()
	if d2 == nil || d2 == d {
		t.Errorf("Connect after the stop: dialer %p, the stopped one %p", d2, d)
	}
}
