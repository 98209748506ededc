package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"
)

// ErrNotCanonicalizable is returned by Canonical when the input holds a value
// that has no canonical form: a non-integer number, a duplicate key, invalid
// UTF-8, or trailing data.
var ErrNotCanonicalizable = errors.New("canonical json: value has no canonical form")

// Canonical returns the canonical JSON (docs/protocol/grants.md) of the JSON value in b:
// object keys sorted by the byte order of their UTF-8 encoding at every
// depth, no white space, only the quote, backslash and control characters
// escaped, integers in plain decimal.
func Canonical(b []byte) ([]byte, error) {
	if !utf8.Valid(b) {
		return nil, fmt.Errorf("%w: invalid UTF-8", ErrNotCanonicalizable)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var out bytes.Buffer
	out.Grow(len(b))
	if err := canonValue(d, &out, 0); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: trailing data", ErrNotCanonicalizable)
	}
	return out.Bytes(), nil
}

// CanonicalWithout returns the canonical JSON of the object in b with the
// top-level key drop removed (the bytes a "sig" signs).
func CanonicalWithout(b []byte, drop string) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotCanonicalizable, err)
	}
	if m == nil {
		return nil, fmt.Errorf("%w: not an object", ErrNotCanonicalizable)
	}
	// Duplicate keys are rejected by Canonical below on the full object.
	if _, err := Canonical(b); err != nil {
		return nil, err
	}
	delete(m, drop)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out bytes.Buffer
	out.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			out.WriteByte(',')
		}
		writeCanonString(&out, k)
		out.WriteByte(':')
		v, err := Canonical(m[k])
		if err != nil {
			return nil, err
		}
		out.Write(v)
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

const maxCanonDepth = 64

func canonValue(d *json.Decoder, out *bytes.Buffer, depth int) error {
	if depth > maxCanonDepth {
		return fmt.Errorf("%w: nested too deep", ErrNotCanonicalizable)
	}
	tok, err := d.Token()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNotCanonicalizable, err)
	}
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{':
			return canonObject(d, out, depth)
		case '[':
			return canonArray(d, out, depth)
		default:
			return fmt.Errorf("%w: unexpected %v", ErrNotCanonicalizable, v)
		}
	case string:
		writeCanonString(out, v)
	case json.Number:
		s, err := canonInt(string(v))
		if err != nil {
			return err
		}
		out.WriteString(s)
	case bool:
		if v {
			out.WriteString("true")
		} else {
			out.WriteString("false")
		}
	case nil:
		out.WriteString("null")
	default:
		return fmt.Errorf("%w: unexpected token %T", ErrNotCanonicalizable, tok)
	}
	return nil
}

// canonObject writes the members of the object whose '{' d has read, keys
// sorted, and reads its '}'.
func canonObject(d *json.Decoder, out *bytes.Buffer, depth int) error {
	type kv struct {
		k string
		v []byte
	}
	var kvs []kv
	seen := map[string]bool{}
	for d.More() {
		kt, err := d.Token()
		if err != nil {
			return fmt.Errorf("%w: %v", ErrNotCanonicalizable, err)
		}
		k, ok := kt.(string)
		if !ok {
			return fmt.Errorf("%w: object key", ErrNotCanonicalizable)
		}
		if seen[k] {
			return fmt.Errorf("%w: duplicate key %q", ErrNotCanonicalizable, k)
		}
		seen[k] = true
		var sub bytes.Buffer
		if err := canonValue(d, &sub, depth+1); err != nil {
			return err
		}
		kvs = append(kvs, kv{k, sub.Bytes()})
	}
	if _, err := d.Token(); err != nil { // '}'
		return fmt.Errorf("%w: %v", ErrNotCanonicalizable, err)
	}
	sort.Slice(kvs, func(i, j int) bool { return kvs[i].k < kvs[j].k })
	out.WriteByte('{')
	for i, e := range kvs {
		if i > 0 {
			out.WriteByte(',')
		}
		writeCanonString(out, e.k)
		out.WriteByte(':')
		out.Write(e.v)
	}
	out.WriteByte('}')
	return nil
}

// canonArray writes the array whose '[' d has read, and reads its ']'.
func canonArray(d *json.Decoder, out *bytes.Buffer, depth int) error {
	out.WriteByte('[')
	first := true
	for d.More() {
		if !first {
			out.WriteByte(',')
		}
		first = false
		if err := canonValue(d, out, depth+1); err != nil {
			return err
		}
	}
	if _, err := d.Token(); err != nil { // ']'
		return fmt.Errorf("%w: %v", ErrNotCanonicalizable, err)
	}
	out.WriteByte(']')
	return nil
}

// canonInt accepts a JSON number that is an integer (no fraction, no
// exponent) and returns its canonical decimal form.
func canonInt(s string) (string, error) {
	neg := strings.HasPrefix(s, "-")
	digits := strings.TrimPrefix(s, "-")
	if digits == "" {
		return "", fmt.Errorf("%w: number %q", ErrNotCanonicalizable, s)
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return "", fmt.Errorf("%w: non-integer number %q", ErrNotCanonicalizable, s)
		}
	}
	if digits == "0" {
		return "0", nil
	}
	if neg {
		return "-" + digits, nil
	}
	return digits, nil
}

const hexdigits = "0123456789abcdef"

// writeCanonString writes s as a JSON string escaping only '"', '\\' and
// U+0000..U+001F (short forms where JSON has them, else \u00xx).
func writeCanonString(out *bytes.Buffer, s string) {
	out.Write(appendCanonString(out.AvailableBuffer(), s))
}

// appendCanonString appends s as a canonical JSON string to b.
func appendCanonString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, `\"`...)
		case '\\':
			b = append(b, `\\`...)
		case '\b':
			b = append(b, `\b`...)
		case '\f':
			b = append(b, `\f`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		default:
			b = append(b, `\u00`...)
			b = append(b, hexdigits[c>>4], hexdigits[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
