package grant

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// reencodings returns the grant object raw written other ways: members in
// reverse order, white space everywhere, every character of every string
// escaped as \uXXXX, "/" as "\/", and encoding/json's HTML escapes. Each
// is the same grant (docs/protocol/grants.md).
func reencodings(t testing.TB, raw []byte) map[string][]byte {
	t.Helper()
	raw, err := wire.Canonical(raw) // "/" only as itself, so slashes below is exact
	if err != nil {
		t.Fatalf("reencode: %v", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("reencode: %v", err)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(keys)))
	obj := func(sep, colon string, val func(json.RawMessage) []byte, name func(string) []byte) []byte {
		var b bytes.Buffer
		b.WriteString("{" + sep)
		for i, k := range keys {
			if i > 0 {
				b.WriteString("," + sep)
			}
			b.Write(name(k))
			b.WriteString(colon)
			b.Write(val(m[k]))
		}
		b.WriteString(sep + "}")
		return b.Bytes()
	}
	plainName := func(k string) []byte { b, _ := json.Marshal(k); return b }
	same := func(v json.RawMessage) []byte { return v }
	out := map[string][]byte{
		"reversed":   obj("", ":", same, plainName),
		"whitespace": obj("\n\t ", " : ", func(v json.RawMessage) []byte { return indent(v) }, plainName),
		"escaped":    obj("", ":", escapeStrings, func(k string) []byte { return escapeAll(k) }),
		"slashes":    obj("", ":", func(v json.RawMessage) []byte { return bytes.ReplaceAll(v, []byte("/"), []byte(`\/`)) }, plainName),
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err == nil {
		if b, err := json.Marshal(v); err == nil {
			out["encoding/json"] = b
		}
	}
	return out
}

func indent(v json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Indent(&b, v, "   ", "\t") != nil {
		return v
	}
	return b.Bytes()
}

// escapeAll writes s as a JSON string with every character as \uXXXX
// (surrogate pairs above U+FFFF).
func escapeAll(s string) []byte {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if r > 0xffff {
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04X`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
			continue
		}
		fmt.Fprintf(&b, `\u%04X`, r)
	}
	b.WriteByte('"')
	return []byte(b.String())
}

// escapeStrings rewrites every string inside the JSON value v with
// escapeAll; numbers, literals and structure stay.
func escapeStrings(v json.RawMessage) []byte {
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	var b bytes.Buffer
	var walk func() bool
	walk = func() bool {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		switch x := tok.(type) {
		case json.Delim:
			switch x {
			case '{':
				b.WriteByte('{')
				for i := 0; d.More(); i++ {
					if i > 0 {
						b.WriteByte(',')
					}
					k, err := d.Token()
					if err != nil {
						return false
					}
					b.Write(escapeAll(k.(string)))
					b.WriteByte(':')
					if !walk() {
						return false
					}
				}
				d.Token()
				b.WriteByte('}')
			case '[':
				b.WriteByte('[')
				for i := 0; d.More(); i++ {
					if i > 0 {
						b.WriteByte(',')
					}
					if !walk() {
						return false
					}
				}
				d.Token()
				b.WriteByte(']')
			}
		case string:
			b.Write(escapeAll(x))
		case json.Number:
			b.WriteString(x.String())
		case bool:
			fmt.Fprint(&b, x)
		case nil:
			b.WriteString("null")
		}
		return true
	}
	if !walk() {
		return v
	}
	return b.Bytes()
}

// TestIDEveryEncoding: a signed grant re-encoded (order, white space,
// escapes) has the same ID and still verifies; a change to any signed
// field or to the signature's bytes gives another ID; a signature or
// nonce written another way (low bits, padding, line breaks) is not a
// grant at all.
func TestIDEveryEncoding(t *testing.T) {
	iss, _ := key.NewPrivate()
	sub, _ := key.NewPrivate()
	g, err := Sign(iss, sub.Public(), []string{"exec", "fs:read"}, time.Now().Add(time.Hour), []key.PublicKey{iss.Public()}, "tests </> & \"é\" 😀")
	if err != nil {
		t.Fatal(err)
	}
	id := g.ID()
	if !strings.HasPrefix(id, IDPrefix) || len(id) != len(IDPrefix)+24 {
		t.Fatalf("id %q", id)
	}
	if !bytes.Equal(g.Canonical(), g.Raw) {
		t.Fatalf("Sign does not write the canonical form:\n%s\n%s", g.Raw, g.Canonical())
	}
	for name, raw := range reencodings(t, g.Raw) {
		if bytes.Equal(raw, g.Raw) && name != "encoding/json" {
			t.Fatalf("%s: not re-encoded", name)
		}
		g2, err := Parse(raw)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, raw)
		}
		if g2.ID() != id || !bytes.Equal(g2.Canonical(), g.Canonical()) {
			t.Errorf("%s: id %s, want %s\n%s", name, g2.ID(), id, raw)
		}
		if err := g2.Verify(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Another grant: another ID.
	other, _ := Sign(iss, sub.Public(), []string{"exec", "fs:read"}, g.Exp, []key.PublicKey{iss.Public()}, g.Note)
	if other.ID() == id {
		t.Fatal("two grants (fresh nonces) share an id")
	}
	// The signature's other texts: refused, so no second id.
	for name, s := range map[string]string{
		"low bits": g.Sig[:85] + string(flipLow(g.Sig[85])),
		"padded":   g.Sig + "==",
		"newline":  g.Sig[:10] + "\n" + g.Sig[10:],
	} {
		b, _ := json.Marshal(s)
		raw := bytes.Replace(g.Raw, []byte(`"sig":"`+g.Sig+`"`), append([]byte(`"sig":`), b...), 1)
		if _, err := Parse(raw); !errors.Is(err, ErrMalformed) {
			t.Errorf("sig %s: Parse = %v, want ErrMalformed", name, err)
		}
		if _, err := key.B64.DecodeString(s); err == nil && name == "low bits" {
			// The lenient decoder reads the same bytes: what Repair fixes.
			fixed, err := Repair(raw)
			if err != nil {
				t.Fatalf("Repair: %v", err)
			}
			if g3, err := Parse(fixed); err != nil || g3.ID() != id {
				t.Errorf("Repair of sig %s: %v, id %v", name, err, g3)
			}
		}
	}
}

// flipLow returns a base64url character with the same top two bits (the
// last byte's data) as c and other low bits.
func flipLow(c byte) byte {
	const alpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	i := strings.IndexByte(alpha, c)
	return alpha[i^1]
}

// FuzzGrantID: whatever Parse accepts has an ID that every re-encoding of
// it shares, that its canonical form keeps (a fixed point), and that
// differs from a grant with other canonical bytes.
func FuzzGrantID(f *testing.F) {
	addGrantSeeds(f)
	f.Add([]byte(base("note", `"a\u00e9\/<>&\n\"😀"`)))
	f.Add([]byte(base("x", `{"b":[1,-0,{"c":null}],"a":true}`)))
	f.Fuzz(func(t *testing.T, b []byte) {
		g := fuzzParse(t, b)
		if g == nil {
			return
		}
		id := g.ID()
		c := g.Canonical()
		if c2, err := wire.Canonical(c); err != nil || !bytes.Equal(c2, c) {
			t.Fatalf("canonical form is not a fixed point: %v", err)
		}
		gc, err := Parse(c)
		if err != nil || gc.ID() != id {
			t.Fatalf("canonical form parses to another grant: %v", err)
		}
		if r, err := Repair(b); err != nil || !bytes.Equal(r, c) {
			t.Fatalf("Repair of a valid grant: %v", err)
		}
		for name, raw := range reencodings(t, g.Raw) {
			g2, err := Parse(raw)
			if err != nil {
				t.Fatalf("%s: re-encoding does not parse: %v\n%q\n%q", name, err, g.Raw, raw)
			}
			if g2.ID() != id {
				t.Fatalf("%s: id %s, want %s\n%q\n%q", name, g2.ID(), id, g.Raw, raw)
			}
		}
		// A grant with another note is another grant.
		m := map[string]json.RawMessage{}
		_ = json.Unmarshal(c, &m)
		m["note"], _ = json.Marshal(g.Note + "x")
		if raw, err := json.Marshal(m); err == nil {
			if g3, err := Parse(raw); err == nil && g3.ID() == id {
				t.Fatalf("a changed grant kept its id")
			}
		}
	})
}
