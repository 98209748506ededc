package grant

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// Mime is the mime type of a grant carried as a data part (docs/protocol/grants.md).
const Mime = "application/vnd.awp.grant+json"

// Capability names defined by docs/protocol/grants.md.
const (
	CapChat      = "chat"
	CapExec      = "exec"
	CapFSRead    = "fs:read"
	CapFSWrite   = "fs:write"
	CapIntroduce = "introduce"
)

// MaxSize is the largest grant object Parse accepts, in bytes. It bounds the
// work a hostile grant can cause; a real grant is a few hundred bytes.
const MaxSize = 64 << 10

// NonceSize is the number of random bytes in the nonce Sign writes.
const NonceSize = 16

// Grant is one parsed grant. Raw holds the exact object bytes as received
// (or as Sign wrote them): unknown fields are signed and kept there.
type Grant struct {
	Iss   key.PublicKey   // issuer; signs the grant
	Sub   key.PublicKey   // subject; the key that may use it
	Caps  []string        // capabilities granted, non-empty
	Exp   time.Time       // the grant is honored only before Exp
	Nonce string          // "" when absent
	On    []key.PublicKey // nil when "on" is absent; non-nil (maybe empty) when present
	Note  string          // "" when absent
	Sig   string          // unpadded base64url Ed25519 signature
	Raw   json.RawMessage // the exact object bytes; what Verify checks and what is forwarded

	canon []byte // the canonical JSON of Raw, sig included (set by Parse)
}

// SigSize is the size of an Ed25519 signature; a grant's sig is its
// strict unpadded base64url text (86 characters).
const SigSize = 64

// MaxAttached bounds the grants one profile request may carry ("grant"
// and "grants" together; Attached refuses more). Each may cost the
// executing peer a signature check, and a real request needs one or two
// (the grant, and an introduce grant for its issuer); Node.Request
// attaches at most this many.
const MaxAttached = 32

// IDPrefix starts every grant id.
const IDPrefix = "g_"

// ID returns the grant's identity (docs/protocol/grants.md): "g_" and the first 12
// bytes of the SHA-256 of its canonical JSON with sig included, in hex.
// The same signed grant re-encoded (members in another order, other white
// space or string escapes) has the same ID; keys, the signature and the
// nonce have one text each (Parse refuses any other), so they cannot make
// a second ID for one grant.
func (g *Grant) ID() string {
	c := g.canon
	if c == nil {
		var err error
		if c, err = wire.Canonical(g.Raw); err != nil {
			return ""
		}
	}
	return idOf(c)
}

func idOf(canon []byte) string {
	h := sha256.Sum256(canon)
	return IDPrefix + hex.EncodeToString(h[:12])
}

// Canonical returns the grant's canonical JSON, sig included: the form a
// peer stores and forwards (its signature is the same as Raw's). The
// caller must not change it.
func (g *Grant) Canonical() []byte {
	if g.canon != nil {
		return g.canon
	}
	c, _ := wire.Canonical(g.Raw)
	return c
}

func malformed(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, a...))
}

// Parse decodes a grant object strictly: iss and sub valid non-zero keys,
// caps a non-empty array of non-empty strings, exp an RFC 3339 time, sig a
// string, on (if present) an array of keys, nonce and note (if present)
// strings, and the whole object canonicalizable (no duplicate keys, integer
// numbers only). It does not verify the signature: call Verify. Errors wrap
// ErrMalformed.
func Parse(raw []byte) (*Grant, error) {
	raw = bytes.Trim(raw, " \t\r\n")
	if len(raw) > MaxSize {
		return nil, malformed("%d bytes, limit %d", len(raw), MaxSize)
	}
	if len(raw) == 0 || raw[0] != '{' {
		return nil, malformed("not a JSON object")
	}
	canon, err := wire.Canonical(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	// Decode field by field with exact names: encoding/json matches struct
	// fields case-insensitively, and {"iss":A,"ISS":B} must not be read as B.
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, malformed("decode: %v", err)
	}
	g := &Grant{Raw: append(json.RawMessage(nil), raw...), canon: canon}
	if g.Iss, err = reqKey(m, "iss"); err != nil {
		return nil, err
	}
	if g.Sub, err = reqKey(m, "sub"); err != nil {
		return nil, err
	}
	var caps []*string
	if r, ok := m["caps"]; !ok || json.Unmarshal(r, &caps) != nil || len(caps) == 0 {
		return nil, malformed("caps is not a non-empty array of strings")
	}
	for i, c := range caps {
		if c == nil || *c == "" {
			return nil, malformed("caps[%d] is not a non-empty string", i)
		}
		g.Caps = append(g.Caps, *c)
	}
	exp, err := reqString(m, "exp")
	if err != nil {
		return nil, err
	}
	if g.Exp, err = time.Parse(time.RFC3339, exp); err != nil {
		return nil, malformed("exp %q is not RFC 3339", trunc(exp))
	}
	if g.Sig, err = reqString(m, "sig"); err != nil {
		return nil, err
	}
	if b, err := key.DecodeStrict(g.Sig); err != nil || len(b) != SigSize {
		return nil, malformed("sig %q is not a %d-byte signature in strict unpadded base64url", trunc(g.Sig), SigSize)
	}
	if g.Nonce, err = optString(m, "nonce"); err != nil {
		return nil, err
	}
	if _, ok := m["nonce"]; ok {
		if _, err := key.DecodeStrict(g.Nonce); err != nil {
			return nil, malformed("nonce %q is not strict unpadded base64url", trunc(g.Nonce))
		}
	}
	if g.Note, err = optString(m, "note"); err != nil {
		return nil, err
	}
	if r, ok := m["on"]; ok {
		var on []*string
		if err := json.Unmarshal(r, &on); err != nil || on == nil {
			return nil, malformed("on is not an array of keys")
		}
		g.On = make([]key.PublicKey, 0, len(on))
		for i, s := range on {
			if s == nil {
				return nil, malformed("on[%d] is not a key", i)
			}
			k, err := parseKey(fmt.Sprintf("on[%d]", i), *s)
			if err != nil {
				return nil, err
			}
			g.On = append(g.On, k)
		}
	}
	return g, nil
}

// reqString decodes a required string field.
func reqString(m map[string]json.RawMessage, field string) (string, error) {
	r, ok := m[field]
	if !ok {
		return "", malformed("%s missing", field)
	}
	var s *string
	if err := json.Unmarshal(r, &s); err != nil || s == nil {
		return "", malformed("%s is not a string", field)
	}
	return *s, nil
}

func reqKey(m map[string]json.RawMessage, field string) (key.PublicKey, error) {
	s, err := reqString(m, field)
	if err != nil {
		return key.PublicKey{}, err
	}
	return parseKey(field, s)
}

func parseKey(field, s string) (key.PublicKey, error) {
	k, err := key.ParsePublic(s)
	if err != nil {
		return key.PublicKey{}, fmt.Errorf("%w: %s: %w", ErrMalformed, field, err)
	}
	if k.IsZero() {
		return key.PublicKey{}, malformed("%s is the zero key", field)
	}
	return k, nil
}

// optString decodes an optional string field; null and other types are
// malformed (a signer that meant "absent" leaves the field out).
func optString(m map[string]json.RawMessage, field string) (string, error) {
	if _, ok := m[field]; !ok {
		return "", nil
	}
	return reqString(m, field)
}

func trunc(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// Verify checks that Sig is Iss's signature over the canonical JSON of Raw
// without "sig". It returns an error wrapping ErrBadSignature when it is not.
func (g *Grant) Verify() error {
	if g == nil || len(g.Raw) == 0 {
		return fmt.Errorf("%w: no grant bytes", ErrBadSignature)
	}
	msg, err := wire.CanonicalWithout(g.Raw, "sig")
	if err != nil {
		return fmt.Errorf("%w: canonical form: %w", ErrBadSignature, err)
	}
	if !g.Iss.VerifyText(msg, g.Sig) {
		return fmt.Errorf("%w: issuer %s", ErrBadSignature, g.Iss.Short())
	}
	return nil
}

// Sign issues a grant from k to sub for caps, valid until exp (written in
// UTC to the second, fractional seconds dropped), with a fresh random
// 16-byte nonce. on (optional) restricts the peers that honor it; an empty
// non-nil on is written as [] (honored by nobody), a nil on is left out.
// note is left out when empty. Errors wrap ErrMalformed.
func Sign(k key.PrivateKey, sub key.PublicKey, caps []string, exp time.Time, on []key.PublicKey, note string) (*Grant, error) {
	if k.IsZero() {
		return nil, malformed("sign: no private key")
	}
	if sub.IsZero() {
		return nil, malformed("sign: zero sub")
	}
	if len(caps) == 0 || slices.Contains(caps, "") {
		return nil, malformed("sign: caps must be non-empty strings")
	}
	if exp.IsZero() {
		return nil, malformed("sign: zero exp")
	}
	nonce := make([]byte, NonceSize)
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("grant: sign: nonce: %w", err)
	}
	obj := map[string]any{
		"iss":   k.Public().String(),
		"sub":   sub.String(),
		"caps":  caps,
		"exp":   exp.UTC().Format(time.RFC3339),
		"nonce": key.B64.EncodeToString(nonce),
	}
	if on != nil {
		ons := make([]string, 0, len(on))
		for _, p := range on {
			if p.IsZero() {
				return nil, malformed("sign: zero key in on")
			}
			ons = append(ons, p.String())
		}
		obj["on"] = ons
	}
	if note != "" {
		obj["note"] = note
	}
	msg, err := canonicalOf(obj)
	if err != nil {
		return nil, err
	}
	obj["sig"] = k.SignText(msg)
	raw, err := canonicalOf(obj)
	if err != nil {
		return nil, err
	}
	g, err := Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("grant: sign: %w", err)
	}
	return g, nil
}

// canonicalOf encodes v without HTML escaping and returns its canonical JSON.
func canonicalOf(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("grant: encode: %w", err)
	}
	c, err := wire.Canonical(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return c, nil
}

// Has reports whether the grant lists capability c (exact match).
func (g *Grant) Has(c string) bool { return g != nil && slices.Contains(g.Caps, c) }

// Expired reports whether the grant is no longer honored at now: a grant is
// honored only while now is strictly before Exp.
// A nil grant is expired.
func (g *Grant) Expired(now time.Time) bool { return g == nil || !now.Before(g.Exp) }

// OnAllows reports whether "on" lets peer self honor the grant: "on" absent,
// or listing self. A nil grant allows nothing.
func (g *Grant) OnAllows(self key.PublicKey) bool {
	return g != nil && (g.On == nil || slices.Contains(g.On, self))
}

// MarshalJSON returns Raw, so a Grant embedded in a JSON value is forwarded
// with every field it was signed with. (encoding/json compacts it and may
// escape <, >, & — the canonical form, and so the signature, is unchanged.)
func (g *Grant) MarshalJSON() ([]byte, error) {
	if len(g.Raw) == 0 {
		return nil, malformed("grant has no raw bytes")
	}
	return g.Raw, nil
}

// UnmarshalJSON parses b with Parse.
func (g *Grant) UnmarshalJSON(b []byte) error {
	p, err := Parse(b)
	if err != nil {
		return err
	}
	*g = *p
	return nil
}

// Attached returns the grants a profile request carries in its data
// (docs/protocol/profile.md): "grant" (one object) and "grants" (an array), in that
// order. Absent fields yield nothing. A malformed grant fails the whole
// call with an error wrapping ErrMalformed; signatures are not checked here.
func Attached(data json.RawMessage) ([]*Grant, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, malformed("request grants: %v", err)
	}
	var grants []json.RawMessage
	if r, ok := m["grants"]; ok {
		if err := json.Unmarshal(r, &grants); err != nil {
			return nil, malformed("request grants: %v", err)
		}
	}
	n := len(grants)
	if r, ok := m["grant"]; ok && string(r) != "null" {
		n++
	}
	if n > MaxAttached {
		return nil, malformed("request carries %d grants, at most %d", n, MaxAttached)
	}
	var out []*Grant
	add := func(r json.RawMessage) error {
		g, err := Parse(r)
		if err != nil {
			return err
		}
		out = append(out, g)
		return nil
	}
	if r, ok := m["grant"]; ok && string(r) != "null" {
		if err := add(r); err != nil {
			return nil, fmt.Errorf("grant: attached grant: %w", err)
		}
	}
	for i, r := range grants {
		if err := add(r); err != nil {
			return nil, fmt.Errorf("grant: attached grants[%d]: %w", i, err)
		}
	}
	return out, nil
}

// Repair returns the canonical form of a grant stored by an earlier
// version, which took any text its base64url decoder accepted as sig
// (unused low bits set, line breaks): the same signature written in its
// one strict text, so the grant gets the ID that every encoding of it has
// now. The signature is unchanged (it does not cover sig). Raw that
// Parse accepts comes back as its canonical form; anything else is an
// error wrapping ErrMalformed.
func Repair(raw []byte) ([]byte, error) {
	if g, err := Parse(raw); err == nil {
		return g.Canonical(), nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, malformed("repair: not a JSON object")
	}
	var sig string
	if json.Unmarshal(m["sig"], &sig) != nil {
		return nil, malformed("repair: sig is not a string")
	}
	b, err := key.B64.DecodeString(sig) // what earlier versions verified
	if err != nil || len(b) != SigSize {
		return nil, malformed("repair: sig does not decode to a signature")
	}
	m["sig"], _ = json.Marshal(key.B64.EncodeToString(b))
	fixed, err := canonicalOf(m)
	if err != nil {
		return nil, err
	}
	g, err := Parse(fixed)
	if err != nil {
		return nil, err
	}
	return g.Canonical(), nil
}
