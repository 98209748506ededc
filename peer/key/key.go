// Package key holds AWP's Ed25519 key types and their text forms.
//
// A PublicKey is written "ed25519:" followed by the 32-byte key in unpadded
// base64url (43 characters). A PrivateKey's bytes are unexported so they do
// not end up in logs or JSON by accident.
//
// It owns the key types and their one text form each; a private key's bytes
// must never reach text or JSON.
package key

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// Prefix is the text prefix of every AWP public key.
const Prefix = "ed25519:"

// TextLen is the length of a key's text after Prefix: 32 bytes in
// unpadded base64url.
const TextLen = 43

// ErrBadKey is returned when a key's text form is not "ed25519:" and 43
// characters of unpadded base64url encoding 32 bytes.
var ErrBadKey = errors.New("key: malformed ed25519 key")

// B64 is the unpadded base64url encoding used for keys, signatures and nonces.
var B64 = base64.RawURLEncoding

// PublicKey is an Ed25519 public key. The zero value is "no key".
type PublicKey struct {
	k [32]byte
}

// ParsePublic parses the "ed25519:…" text form.
func ParsePublic(s string) (PublicKey, error) {
	var p PublicKey
	if !strings.HasPrefix(s, Prefix) || len(s) != len(Prefix)+TextLen {
		return p, fmt.Errorf("%w: %q", ErrBadKey, trunc(s))
	}
	var text [TextLen]byte
	copy(text[:], s[len(Prefix):])
	n, err := B64.Decode(p.k[:], text[:])
	if err != nil || n != 32 {
		return PublicKey{}, fmt.Errorf("%w: %q", ErrBadKey, trunc(s))
	}
	// Reject non-canonical encodings (trailing bits set) so a key has exactly one text form.
	var again [TextLen]byte
	B64.Encode(again[:], p.k[:])
	if again != text {
		return PublicKey{}, fmt.Errorf("%w: %q (non-canonical)", ErrBadKey, trunc(s))
	}
	// 32 zero bytes is the zero PublicKey, which stands for "no key":
	// accepted, the text would vanish into an absent key (IsZero) instead
	// of being refused where it was typed or sent.
	if p.IsZero() {
		return PublicKey{}, fmt.Errorf("%w: %q (all zero: no key)", ErrBadKey, trunc(s))
	}
	return p, nil
}

// MustParsePublic is ParsePublic for tests and constants; it panics on error.
func MustParsePublic(s string) PublicKey {
	p, err := ParsePublic(s)
	if err != nil {
		panic(err)
	}
	return p
}

// PublicFromBytes wraps 32 raw bytes.
func PublicFromBytes(b []byte) (PublicKey, error) {
	var p PublicKey
	if len(b) != 32 {
		return p, ErrBadKey
	}
	copy(p.k[:], b)
	return p, nil
}

func trunc(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// String returns the "ed25519:…" form, or "" for the zero key.
func (p PublicKey) String() string {
	if p.IsZero() {
		return ""
	}
	var b [len(Prefix) + TextLen]byte
	copy(b[:], Prefix)
	B64.Encode(b[len(Prefix):], p.k[:])
	return string(b[:])
}

// Short returns a short human form: the first 8 characters after the prefix.
func (p PublicKey) Short() string {
	s := p.String()
	if s == "" {
		return "(none)"
	}
	return ShortText(s)
}

// ShortLen is how many characters of a key's text after the prefix its
// short form keeps: the part people compare, the same in the tray, in
// notifications, in `awp` and in the MCP tools' answers.
const ShortLen = 8

// ShortText is Short for a key's text as a line or an event carries it:
// the first ShortLen characters after "ed25519:". A text that is not a
// key's ("", a name) comes back as it is.
func ShortText(s string) string {
	if strings.HasPrefix(s, Prefix) && len(s) >= len(Prefix)+ShortLen {
		return s[len(Prefix) : len(Prefix)+ShortLen]
	}
	return s
}

// IsZero reports whether p is the zero key.
func (p PublicKey) IsZero() bool { return p.k == [32]byte{} }

// Raw returns the 32 key bytes.
func (p PublicKey) Raw() [32]byte { return p.k }

// Ed25519 returns the key as a crypto/ed25519 public key (a fresh copy).
func (p PublicKey) Ed25519() ed25519.PublicKey {
	b := make([]byte, 32)
	copy(b, p.k[:])
	return b
}

// Verify reports whether sig is p's valid signature of msg.
func (p PublicKey) Verify(msg, sig []byte) bool {
	if p.IsZero() || len(sig) != ed25519.SignatureSize {
		return false
	}
	return ed25519.Verify(p.k[:], msg, sig)
}

// VerifyText verifies a signature in its unpadded base64url text form.
func (p PublicKey) VerifyText(msg []byte, sig string) bool {
	b, err := B64.DecodeString(sig)
	if err != nil {
		return false
	}
	return p.Verify(msg, b)
}

// ErrNotStrict is returned by DecodeStrict for a text that is not the one
// unpadded base64url form of its bytes.
var ErrNotStrict = errors.New("key: not strict unpadded base64url")

// DecodeStrict decodes the unpadded base64url text of a key, signature or
// nonce strictly (docs/protocol/grants.md): padding, line breaks, characters outside
// the alphabet and unused low bits that are not zero are refused, so the
// same bytes have exactly one text. (encoding/base64 skips CR and LF even
// in Strict mode; they are refused here.)
func DecodeStrict(s string) ([]byte, error) {
	if strings.ContainsAny(s, "\r\n=") {
		return nil, ErrNotStrict
	}
	b, err := strictB64.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotStrict, err)
	}
	return b, nil
}

var strictB64 = B64.Strict()

// MarshalText implements encoding.TextMarshaler: the "ed25519:…" form, or
// "" for the zero key, so a key in JSON is the same string it always was.
func (p PublicKey) MarshalText() ([]byte, error) { return p.AppendText(nil) }

// AppendText implements encoding.TextAppender: it appends MarshalText's
// text to b without allocating a string.
func (p PublicKey) AppendText(b []byte) ([]byte, error) {
	if p.IsZero() {
		return b, nil
	}
	b = append(b, Prefix...)
	return B64.AppendEncode(b, p.k[:]), nil
}

// UnmarshalText implements encoding.TextUnmarshaler. It is MarshalText's
// inverse: "" is the zero key (a JSON field that holds no key), anything
// else must be a well-formed key (ErrBadKey).
func (p *PublicKey) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*p = PublicKey{}
		return nil
	}
	k, err := ParsePublic(string(b))
	if err != nil {
		return err
	}
	*p = k
	return nil
}

// PrivateKey is an Ed25519 private key. Its bytes are unexported; use Seed
// to persist it.
type PrivateKey struct {
	k ed25519.PrivateKey
}

// NewPrivate generates a fresh key from crypto/rand.
func NewPrivate() (PrivateKey, error) {
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return PrivateKey{}, fmt.Errorf("key: generate: %w", err)
	}
	return PrivateKey{k: k}, nil
}

// FromSeed builds a key from its 32-byte RFC 8032 seed.
func FromSeed(seed []byte) (PrivateKey, error) {
	if len(seed) != ed25519.SeedSize {
		return PrivateKey{}, fmt.Errorf("key: seed is %d bytes, want 32", len(seed))
	}
	return PrivateKey{k: ed25519.NewKeyFromSeed(seed)}, nil
}

// IsZero reports whether k holds no key.
func (k PrivateKey) IsZero() bool { return len(k.k) == 0 }

// Seed returns a copy of the 32-byte seed.
func (k PrivateKey) Seed() []byte {
	return append([]byte(nil), k.k.Seed()...)
}

// Public returns the public half.
func (k PrivateKey) Public() PublicKey {
	var p PublicKey
	copy(p.k[:], k.k[32:])
	return p
}

// Sign signs msg.
func (k PrivateKey) Sign(msg []byte) []byte { return ed25519.Sign(k.k, msg) }

// SignText signs msg and returns the unpadded base64url signature.
func (k PrivateKey) SignText(msg []byte) string { return B64.EncodeToString(k.Sign(msg)) }

// String never prints the secret.
func (k PrivateKey) String() string { return "PrivateKey(" + k.Public().Short() + "…)" }
