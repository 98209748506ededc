package wire

import (
	"encoding/hex"
	"testing"

	"github.com/awp-tray/awp-tray/internal/vectors"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/key/keytest"
)

// TestAuthVector checks the auth bytes and signatures of auth.json with the
// seeds of keys.json (docs/protocol/handshake.md). Ed25519 is deterministic, so the signatures
// must match exactly.
func TestAuthVector(t *testing.T) {
	keys := vectors.Keys(t)
	var av struct {
		AliceHello string `json:"alice_hello_line"`
		BobHello   string `json:"bob_hello_line"`
		AliceHex   string `json:"alice_signs_hex"`
		AliceSig   string `json:"alice_sig"`
		BobHex     string `json:"bob_signs_hex"`
		BobSig     string `json:"bob_sig"`
	}
	vectors.Read(t, "auth.json", &av)

	alice, bob := keytest.FromVector(t, keys["alice"]), keytest.FromVector(t, keys["bob"])
	aliceHello, bobHello := []byte(av.AliceHello), []byte(av.BobHello)

	// The hello lines decode, check, and carry the keys of keys.json.
	for _, c := range []struct {
		line []byte
		want key.PublicKey
	}{{aliceHello, alice.Public()}, {bobHello, bob.Public()}} {
		f, err := Decode(c.line)
		if err != nil {
			t.Fatal(err)
		}
		k, err := f.(*Hello).CheckHello()
		if err != nil || k != c.want {
			t.Fatalf("CheckHello = %v, %v; want %v", k, err, c.want)
		}
	}

	aliceMsg := AuthMessage(aliceHello, bobHello)
	if got := hex.EncodeToString(aliceMsg); got != av.AliceHex {
		t.Fatalf("AuthMessage(alice, bob) =\n%s\nwant\n%s", got, av.AliceHex)
	}
	bobMsg := AuthMessage(bobHello, aliceHello)
	if got := hex.EncodeToString(bobMsg); got != av.BobHex {
		t.Fatalf("AuthMessage(bob, alice) =\n%s\nwant\n%s", got, av.BobHex)
	}
	if got := alice.SignText(aliceMsg); got != av.AliceSig {
		t.Errorf("alice sig = %s, want %s", got, av.AliceSig)
	}
	if got := bob.SignText(bobMsg); got != av.BobSig {
		t.Errorf("bob sig = %s, want %s", got, av.BobSig)
	}

	// What each side verifies: the peer's sig over peer_hello 0 my_hello.
	if !alice.Public().VerifyText(AuthMessage(aliceHello, bobHello), av.AliceSig) {
		t.Errorf("bob cannot verify alice's auth")
	}
	if !bob.Public().VerifyText(AuthMessage(bobHello, aliceHello), av.BobSig) {
		t.Errorf("alice cannot verify bob's auth")
	}
	// The other order, the other key, or a changed byte fails.
	if alice.Public().VerifyText(AuthMessage(bobHello, aliceHello), av.AliceSig) {
		t.Errorf("alice's sig verifies with the hellos swapped")
	}
	if bob.Public().VerifyText(AuthMessage(aliceHello, bobHello), av.BobSig) {
		t.Errorf("bob's sig verifies with the hellos swapped")
	}
	if bob.Public().VerifyText(aliceMsg, av.AliceSig) {
		t.Errorf("alice's sig verifies with bob's key")
	}
	// "\r" before the newline is part of the signed bytes.
	if alice.Public().VerifyText(AuthMessage(append(append([]byte(nil), aliceHello...), '\r'), bobHello), av.AliceSig) {
		t.Errorf("alice's sig verifies with a \\r appended to her hello")
	}

	// The auth line itself round-trips.
	a := &Auth{Sig: av.AliceSig}
	a.T, a.ID, a.TS = TypeAuth, "01J9ZX0000000000000000000B", "2026-09-25T17:03:11Z"
	b, err := Encode(a)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Decode(append([]byte(nil), b...))
	if err != nil || f.(*Auth).Sig != av.AliceSig {
		t.Fatalf("auth round trip: %v", err)
	}
}

// TestAuthMessageLayout pins the layout on small inputs.
func TestAuthMessageLayout(t *testing.T) {
	got := AuthMessage([]byte("A"), []byte("BB"))
	if want := "awp-auth-v0\x00A\x00BB"; string(got) != want {
		t.Fatalf("AuthMessage = %q, want %q", got, want)
	}
	if AuthContext != "awp-auth-v0" {
		t.Fatalf("AuthContext = %q", AuthContext)
	}
}
