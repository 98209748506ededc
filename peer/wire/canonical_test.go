package wire

import (
	"encoding/hex"
	"encoding/json"

	"testing"

	"github.com/awp-tray/awp-tray/internal/vectors"
)

func TestCanonicalVectors(t *testing.T) {
	var vs []struct {
		Object string `json:"object_json"`
		Canon  string `json:"canonical"`
		Hex    string `json:"canonical_utf8_hex"`
	}
	vectors.Read(t, "canonical.json", &vs)
	if len(vs) < 7 {
		t.Fatalf("only %d vectors", len(vs))
	}
	for i, v := range vs {
		got, err := Canonical([]byte(v.Object))
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		if string(got) != v.Canon {
			t.Errorf("%d: got %s want %s", i, got, v.Canon)
		}
		if hex.EncodeToString(got) != v.Hex {
			t.Errorf("%d: hex mismatch", i)
		}
		again, err := Canonical(got)
		if err != nil || string(again) != string(got) {
			t.Errorf("%d: not idempotent: %s %v", i, again, err)
		}
	}
}

func TestCanonicalRejects(t *testing.T) {
	for _, s := range []string{`{"a":1.5}`, `{"a":1e3}`, `{"a":1,"a":2}`, `{"a":1} x`, "{\"a\":\"\xff\"}", `{`, `{"a":[1,]}`} {
		if out, err := Canonical([]byte(s)); err == nil {
			t.Errorf("Canonical(%q) = %s, want error", s, out)
		}
	}
}

func TestCanonicalWithout(t *testing.T) {
	got, err := CanonicalWithout([]byte(`{"sig":"x","b":{"d":1,"c":2},"a":"é"}`), "sig")
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":"é","b":{"c":2,"d":1}}`; string(got) != want {
		t.Fatalf("got %s want %s", got, want)
	}
}

func FuzzCanonical(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":"x","c":[3,2,1]}`, `{"s":"ctl \u0000\u0001\b\t\n\f\r\u001f end"}`, `{"\u00e9":1,"e":2}`, `[]`, `"x"`, `{"n":-0}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Canonical(b)
		if err != nil {
			return
		}
		// Property: the canonical form is a fixed point and valid JSON.
		if !json.Valid(c) {
			t.Fatalf("invalid JSON %q from %q", c, b)
		}
		c2, err := Canonical(c)
		if err != nil || string(c2) != string(c) {
			t.Fatalf("not a fixed point: %q -> %q (%v)", c, c2, err)
		}
	})
}
