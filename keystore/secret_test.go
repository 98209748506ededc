package keystore

import (
	"errors"
	"strings"
	"testing"

	"github.com/awp-tray/awp-tray/peer/key"
)

// testKey returns the key whose seed is the bytes 0, 1, …, 31.
func testKey(t testing.TB) key.PrivateKey {
	t.Helper()
	seed := make([]byte, 32)
	for i := range seed {
		seed[i] = byte(i)
	}
	k, err := key.FromSeed(seed)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// The stored text form is a compatibility promise: changing it loses every
// user's identity. This pins it.
func TestSecretFormPinned(t *testing.T) {
	k := testKey(t)
	const want = "ed25519-seed:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
	if got := FormatSecret(k); got != want {
		t.Fatalf("FormatSecret = %q, want %q", got, want)
	}
	back, err := ParseSecret(want)
	if err != nil {
		t.Fatal(err)
	}
	if back.Public() != k.Public() {
		t.Fatalf("ParseSecret: public %s, want %s", back.Public(), k.Public())
	}
	// The key file form: the same text and a newline.
	if back, err := ParseSecret(want + "\n"); err != nil || back.Public() != k.Public() {
		t.Fatalf("ParseSecret with newline: %v, %v", back, err)
	}
	if FormatSecret(key.PrivateKey{}) != "" {
		t.Fatal("FormatSecret of the zero key is not empty")
	}
}

func TestParseSecretRejects(t *testing.T) {
	good := FormatSecret(testKey(t))
	body := strings.TrimPrefix(good, SecretPrefix)
	for name, s := range map[string]string{
		"empty":         "",
		"blank":         " \n",
		"no prefix":     body,
		"public prefix": "ed25519:" + body,
		"short":         good[:len(good)-1],
		"long":          good + "A",
		"padded":        good[:len(good)-1] + "=",
		"std alphabet":  SecretPrefix + "+" + body[1:],
		"non-canonical": good[:len(good)-1] + "f", // 'f' sets trailing bits that '8' does not
		"inner space":   SecretPrefix + body[:20] + " " + body[21:],
		"huge":          strings.Repeat("A", 10000),
		"binary":        "\x00\xff\xfe" + good,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseSecret(s)
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("ParseSecret(%q) = %v, want ErrCorrupt", s, err)
			}
			if len(s) > 8 && strings.Contains(err.Error(), s) {
				t.Fatalf("error quotes the secret: %v", err)
			}
		})
	}
}

func FuzzParseSecret(f *testing.F) {
	f.Add(FormatSecret(testKey(f)))
	f.Add("ed25519-seed:")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseSecret(s)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error does not wrap ErrCorrupt: %v", err)
			}
			return
		}
		// Accepted input has exactly one form.
		if got := FormatSecret(k); got != strings.TrimSpace(s) {
			t.Fatalf("ParseSecret(%q) then FormatSecret = %q", s, got)
		}
	})
}
