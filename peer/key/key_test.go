package key

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/awp-tray/awp-tray/internal/vectors"
)

func TestVectorsKeys(t *testing.T) {
	n := 0
	for name, e := range vectors.Keys(t) {
		seed, _ := hex.DecodeString(e.SeedHex)
		k, err := FromSeed(seed)
		if err != nil {
			t.Fatal(err)
		}
		if got := k.Public().String(); got != e.Key {
			t.Errorf("%s: key %s, want %s", name, got, e.Key)
		}
		p, err := ParsePublic(e.Key)
		if err != nil || p != k.Public() {
			t.Errorf("%s: parse %v", name, err)
		}
		n++
	}
	if n != 3 {
		t.Fatalf("checked %d keys, want 3", n)
	}
}

func TestParseBad(t *testing.T) {
	good := "ed25519:ebVWLo_mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ"
	for _, s := range []string{"", "ed25519:", good[:len(good)-1], good + "A", "ed25519:ebVWLo_mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmR",
		"x25519:ebVWLo_mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ", "ed25519:ebVWLo+mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ",
		"ed25519:" + strings.Repeat("A", 43)} { // the zero key, which stands for no key
		if _, err := ParsePublic(s); err == nil {
			t.Errorf("ParsePublic(%q) accepted", s)
		}
	}
	if _, err := ParsePublic(good); err != nil {
		t.Fatal(err)
	}
}

func TestSignVerify(t *testing.T) {
	k, err := NewPrivate()
	if err != nil {
		t.Fatal(err)
	}
	sig := k.SignText([]byte("hi"))
	if !k.Public().VerifyText([]byte("hi"), sig) {
		t.Fatal("verify failed")
	}
	if k.Public().VerifyText([]byte("ho"), sig) {
		t.Fatal("verify of other message succeeded")
	}
	var z PublicKey
	if z.Verify([]byte("hi"), k.Sign([]byte("hi"))) {
		t.Fatal("zero key verified")
	}
	var p PublicKey
	if err := json.Unmarshal([]byte(`"`+k.Public().String()+`"`), &p); err != nil || p != k.Public() {
		t.Fatalf("json round trip: %v", err)
	}
}

// TestPublicKeyJSON checks that a PublicKey in JSON is exactly the string it
// replaced in the API types: "ed25519:…", "" for the zero key (omitted under
// omitzero), and that a malformed key is an ErrBadKey, not a zero key.
func TestPublicKeyJSON(t *testing.T) {
	good := "ed25519:ebVWLo_mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ"
	type s struct {
		K   PublicKey   `json:"k"`
		Opt PublicKey   `json:"opt,omitzero"`
		L   []PublicKey `json:"l"`
	}
	v := s{K: MustParsePublic(good), L: []PublicKey{MustParsePublic(good), {}}}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"k":"` + good + `","l":["` + good + `",""]}`
	if string(b) != want {
		t.Fatalf("marshal: %s\nwant %s", b, want)
	}
	var back s
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.K != v.K || len(back.L) != 2 || back.L[0] != v.K || !back.L[1].IsZero() || !back.Opt.IsZero() {
		t.Fatalf("round trip: %+v", back)
	}
	if b, _ := json.Marshal(s{}); string(b) != `{"k":"","l":null}` {
		t.Fatalf("zero: %s", b)
	}
	for _, bad := range []string{`{"k":"ed25519:"}`, `{"k":"nope"}`, `{"k":"` + good + `A"}`, `{"opt":"x25519:ebVWLo_mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ"}`} {
		var x s
		err := json.Unmarshal([]byte(bad), &x)
		if !errors.Is(err, ErrBadKey) {
			t.Errorf("%s: err %v, want ErrBadKey", bad, err)
		}
	}
	if got, _ := MustParsePublic(good).AppendText([]byte("x")); string(got) != "x"+good {
		t.Fatalf("AppendText: %s", got)
	}
}

// ShortText keeps the first ShortLen characters after the prefix of a
// key's text, as Short does for the key; other text comes back as it is.
func TestShortText(t *testing.T) {
	k := MustParsePublic(Prefix + "someoneelse" + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	if got := ShortText(k.String()); got != "someonee" || got != k.Short() {
		t.Errorf("ShortText(%s) = %q, Short() = %q; want someonee", k, got, k.Short())
	}
	for _, s := range []string{"", "bob", Prefix + "short", "someoneelse"} {
		if got := ShortText(s); got != s {
			t.Errorf("ShortText(%q) = %q, want it unchanged", s, got)
		}
	}
	if got := (PublicKey{}).Short(); got != "(none)" {
		t.Errorf("zero key's Short() = %q", got)
	}
}
