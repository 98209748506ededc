package grant

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/wire"
)

const (
	kA = "ed25519:ebVWLo_mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ"
	kB = "ed25519:2inpWwLgD_oVZFd1-x0roiKhlDOV7qBrlOLAV7e-adA"
)

// fakeSig is a well-formed signature text that verifies nothing: 64
// bytes of 0x07 in strict unpadded base64url.
var fakeSig = key.B64.EncodeToString(bytes.Repeat([]byte{7}, SigSize))

// base is a well-formed (unsigned: bad sig) grant with one field replaced.
func base(field, value string) string {
	f := map[string]string{
		"iss": `"` + kA + `"`, "sub": `"` + kB + `"`, "caps": `["exec"]`,
		"exp": `"2030-01-01T00:00:00Z"`, "nonce": `"bm9uY2U"`, "sig": `"` + fakeSig + `"`,
	}
	if value == "" {
		delete(f, field)
	} else {
		f[field] = value
	}
	var parts []string
	for k, v := range f {
		parts = append(parts, `"`+k+`":`+v)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func TestParseGood(t *testing.T) {
	for _, s := range []string{
		base("", ""),
		base("nonce", ""), // nonce optional
		base("exp", `"2030-01-01T01:00:00+01:00"`),
		base("exp", `"2030-01-01T00:00:00.5Z"`),
		base("on", `[]`),
		base("on", `["`+kA+`","`+kB+`"]`),
		base("note", `"hi"`),
		base("extra", `{"deep":[1,-2,{"x":null}]}`),
		"  \n" + base("", "") + "\r\n",
	} {
		g, err := Parse([]byte(s))
		if err != nil {
			t.Errorf("Parse(%s): %v", s, err)
			continue
		}
		if g.Iss.String() != kA || g.Sub.String() != kB || !g.Has("exec") || g.Sig != fakeSig {
			t.Errorf("fields of %s: %+v", s, g)
		}
		if g.Raw[0] != '{' || g.Raw[len(g.Raw)-1] != '}' {
			t.Errorf("Raw not trimmed: %q", g.Raw)
		}
		if err := g.Verify(); !errors.Is(err, ErrBadSignature) {
			t.Errorf("unsigned grant verified: %v", err)
		}
	}
	g, _ := Parse([]byte(base("on", `[]`)))
	if g.On == nil || len(g.On) != 0 {
		t.Errorf("on [] must be non-nil and empty: %#v", g.On)
	}
	g, _ = Parse([]byte(base("exp", `"2030-01-01T01:00:00+01:00"`)))
	if !g.Exp.Equal(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("exp %v", g.Exp)
	}
}

func TestParseBad(t *testing.T) {
	zero := "ed25519:" + strings.Repeat("A", 43)
	bad := map[string]string{
		"empty":           ``,
		"not json":        `{`,
		"array":           `[1]`,
		"string":          `"x"`,
		"null":            `null`,
		"trailing":        base("", "") + `{}`,
		"missing iss":     base("iss", ""),
		"missing sub":     base("sub", ""),
		"missing caps":    base("caps", ""),
		"missing exp":     base("exp", ""),
		"missing sig":     base("sig", ""),
		"iss not key":     base("iss", `"bob"`),
		"iss number":      base("iss", `1`),
		"sub zero key":    base("sub", `"`+zero+`"`),
		"iss null":        base("iss", `null`),
		"caps empty":      base("caps", `[]`),
		"caps null":       base("caps", `null`),
		"caps string":     base("caps", `"exec"`),
		"caps number":     base("caps", `[1]`),
		"caps empty str":  base("caps", `[""]`),
		"caps null elem":  base("caps", `["exec",null]`),
		"exp not rfc3339": base("exp", `"2030-01-01 00:00:00"`),
		"exp number":      base("exp", `1893456000`),
		"sig empty":       base("sig", `""`),
		"sig number":      base("sig", `7`),
		"on null":         base("on", `null`),
		"on string":       base("on", `"`+kA+`"`),
		"on bad key":      base("on", `["x"]`),
		"on null elem":    base("on", `[null]`),
		"note number":     base("note", `3`),
		"note null":       base("note", `null`),
		"nonce number":    base("nonce", `3`),
		// docs/protocol/grants.md: one text per signature and nonce.
		"sig short":           base("sig", `"c2ln"`),
		"sig 65 bytes":        base("sig", `"`+key.B64.EncodeToString(make([]byte, SigSize+1))+`"`),
		"sig low bits set":    base("sig", `"`+fakeSig[:85]+"x"+`"`),
		"sig padded":          base("sig", `"`+fakeSig+`=="`),
		"sig with a newline":  base("sig", `"`+fakeSig[:40]+`\n`+fakeSig[40:]+`"`),
		"sig with a CR":       base("sig", `"`+fakeSig[:40]+`\r`+fakeSig[40:]+`"`),
		"sig std alphabet":    base("sig", `"`+strings.Repeat("+", 86)+`"`),
		"nonce low bits set":  base("nonce", `"bm9uY2V"`),
		"nonce padded":        base("nonce", `"bm9uY2U="`),
		"nonce with newline":  base("nonce", `"bm9u\nY2U"`),
		"nonce not base64url": base("nonce", `"n/o"`),
		"float field":         base("x", `1.5`),
		"exponent":            base("x", `1e3`),
		"duplicate key":       strings.Replace(base("", ""), "{", `{"sub":"`+kA+`",`, 1),
		"invalid utf8":        base("note", "\"\xff\""),
		"too large":           base("x", `"`+strings.Repeat("a", MaxSize)+`"`),
		"deep":                base("x", strings.Repeat("[", 100)+strings.Repeat("]", 100)),
	}
	for name, s := range bad {
		if _, err := Parse([]byte(s)); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v, want ErrMalformed", name, err)
		}
	}
}

// TestParseCaseExact: a second field differing only in case must not be
// read as the field (encoding/json struct decoding would do that).
func TestParseCaseExact(t *testing.T) {
	s := strings.Replace(base("", ""), "{", `{"SUB":"`+kA+`","Caps":["fs:write"],`, 1)
	g, err := Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	if g.Sub.String() != kB || g.Has("fs:write") {
		t.Errorf("case-folded field used: sub %s caps %v", g.Sub, g.Caps)
	}
}

func TestAttached(t *testing.T) {
	g1, g2 := base("note", `"one"`), base("note", `"two"`)
	got, err := Attached(json.RawMessage(`{"cmd":["ls"],"grant":` + g1 + `,"grants":[` + g2 + `]}`))
	if err != nil || len(got) != 2 || got[0].Note != "one" || got[1].Note != "two" {
		t.Fatalf("Attached: %v %v", got, err)
	}
	if got, err := Attached(json.RawMessage(`{"cmd":["ls"]}`)); err != nil || len(got) != 0 {
		t.Errorf("no grants: %v %v", got, err)
	}
	for _, s := range []string{`{"grant":1}`, `{"grants":{}}`, `{"grants":[` + base("iss", "") + `]}`, `[`, `"x"`} {
		if _, err := Attached(json.RawMessage(s)); !errors.Is(err, ErrMalformed) {
			t.Errorf("Attached(%s) = %v", s, err)
		}
	}
}

// addGrantSeeds adds the grants the grant fuzzers start from: a minimal
// one, one with an on list, and the vectors' introduce grant.
func addGrantSeeds(f *testing.F) {
	f.Add([]byte(base("", "")))
	f.Add([]byte(base("on", `["`+kA+`"]`)))
	f.Add([]byte(`{"caps":["introduce"],"exp":"2030-01-01T00:00:00Z","iss":"ed25519:ebVWLo_mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ","nonce":"CQkJCQkJCQkJCQkJCQkJCQ","sig":"RQYW_m3Wae7BvW6VjwimiLvtcsohyIcZB6VhAubuPMTocyc8tN6QuUtamwzn4caLm47c0j6dg3PVle-1UIjvDQ","sub":"ed25519:6kpsY-KcUgq-9VB7Ey7F-ZVHdq6-vnuSQh7qaRRG0iw"}`))
}

// fuzzParse parses b for a fuzzer: nil when Parse refuses it, failing the
// test if the refusal does not wrap ErrMalformed.
func fuzzParse(t *testing.T, b []byte) *Grant {
	t.Helper()
	g, err := Parse(b)
	if err != nil {
		if !errors.Is(err, ErrMalformed) {
			t.Fatalf("error does not wrap ErrMalformed: %v", err)
		}
		return nil
	}
	return g
}

func FuzzParseVerify(f *testing.F) {
	addGrantSeeds(f)
	f.Add([]byte(`{}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, b []byte) {
		g := fuzzParse(t, b)
		if g == nil {
			return
		}
		if g.Iss.IsZero() || g.Sub.IsZero() || len(g.Caps) == 0 || g.Sig == "" {
			t.Fatalf("Parse accepted an incomplete grant: %+v", g)
		}
		verr := g.Verify()
		c := Checker{Self: g.Iss, Now: func() time.Time { return g.Exp.Add(-time.Second) }}
		ok, _ := c.Honors(g.Sub, g.Caps[0], []*Grant{g, g})
		if ok && verr != nil {
			t.Fatalf("honored a grant that does not verify: %v", verr)
		}
		// A parsed grant re-parses from its own Raw to the same fields.
		g2, err := Parse(g.Raw)
		if err != nil || g2.Iss != g.Iss || g2.Sig != g.Sig || !g2.Exp.Equal(g.Exp) {
			t.Fatalf("re-parse of Raw: %v", err)
		}
	})
}

// FuzzCanonicalFixedPoint: the canonical form is a fixed point, both
// directly and after decoding it into Go values and encoding it again.
func FuzzCanonicalFixedPoint(f *testing.F) {
	for _, s := range []string{
		`{"b": 1, "a": "x", "c": [3, 2, 1]}`,
		`{"s": "ctl \u0000\u0001\b\t\n\f\r\u001f end"}`,
		`{"s": "unicode \u00e9 \u65e5\u672c \ud83d\ude00 \u2028 <&>/"}`,
		`{"\u00e9": 1, "e": 2, "E": 3, "_": 4}`,
		`{"n": 1790352652876, "m": 0, "arr": [], "obj": {}, "neg": -0}`,
		base("", ""),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := wire.Canonical(b)
		if err != nil {
			return
		}
		c2, err := wire.Canonical(c)
		if err != nil || string(c2) != string(c) {
			t.Fatalf("not a fixed point:\n%q\n%q (%v)", c, c2, err)
		}
		dec := json.NewDecoder(strings.NewReader(string(c)))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("canonical output does not decode: %v", err)
		}
		re, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		c3, err := wire.Canonical(re)
		if err != nil || string(c3) != string(c) {
			t.Fatalf("decode/encode changed the canonical form:\n%q\n%q (%v)", c, c3, err)
		}
	})
}
