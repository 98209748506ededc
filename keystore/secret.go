package keystore

import (
	"fmt"
	"strings"

	"github.com/awp-tray/awp-tray/peer/key"
)

// SecretPrefix starts the text form of a stored identity.
const SecretPrefix = "ed25519-seed:"

// maxSecretLen bounds what ParseSecret and the key file reader look at.
const maxSecretLen = 4096

// FormatSecret returns the text under which k is stored, in the keyring and
// (plus a newline) in the key file: SecretPrefix followed by k's 32-byte
// RFC 8032 seed in unpadded base64url, 56 characters in all. It returns ""
// for the zero key.
func FormatSecret(k key.PrivateKey) string {
	if k.IsZero() {
		return ""
	}
	return SecretPrefix + key.B64.EncodeToString(k.Seed())
}

// ParseSecret parses the text FormatSecret writes. White space around it
// (such as the key file's newline) is ignored; anything else that is not
// exactly that form is an error wrapping ErrCorrupt. The error never quotes
// the input, which may be a secret.
func ParseSecret(s string) (key.PrivateKey, error) {
	k, why := parseSecret(s)
	if why != "" {
		return key.PrivateKey{}, fmt.Errorf("keystore: identity text %s: %w", why, ErrCorrupt)
	}
	return k, nil
}

// parseSecret is ParseSecret returning, on failure, why in a few words.
func parseSecret(s string) (key.PrivateKey, string) {
	if len(s) > maxSecretLen {
		return key.PrivateKey{}, fmt.Sprintf("is %d bytes, far more than an identity", len(s))
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return key.PrivateKey{}, "is empty"
	}
	body, ok := strings.CutPrefix(s, SecretPrefix)
	if !ok {
		return key.PrivateKey{}, fmt.Sprintf("does not start with %q", SecretPrefix)
	}
	if len(body) != 43 {
		return key.PrivateKey{}, fmt.Sprintf("has a seed of %d characters, want 43", len(body))
	}
	seed, err := key.B64.DecodeString(body)
	if err != nil || len(seed) != 32 {
		return key.PrivateKey{}, "has a seed that is not unpadded base64url"
	}
	// One identity, one text form: reject encodings with trailing bits set.
	if key.B64.EncodeToString(seed) != body {
		return key.PrivateKey{}, "has a seed that is not canonical base64url"
	}
	k, err := key.FromSeed(seed)
	if err != nil {
		return key.PrivateKey{}, err.Error()
	}
	return k, ""
}
