// Package vectors finds the AWP test vectors for tests: the repository's own
// copy in testdata/vectors (docs/protocol/vectors.md says where they come
// from and what each file pins).
//
// It owns finding the vectors for tests; it must never skip a test when
// they are missing, and never look outside the repository unless
// AWP_VECTORS says so.
package vectors

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the directory holding the test vectors: $AWP_VECTORS, else
// testdata/vectors at the repository root, found by walking up from the
// working directory to the directory holding go.mod. Tests fail (not skip)
// when they are missing.
func Dir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("AWP_VECTORS"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			c := filepath.Join(dir, "testdata", "vectors")
			if _, err := os.Stat(filepath.Join(c, "keys.json")); err != nil {
				t.Fatalf("test vectors not found: %v", err)
			}
			return c
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("test vectors not found: no go.mod above the working directory (or set AWP_VECTORS)")
		}
		dir = parent
	}
}

// Read decodes the vector file name (say "keys.json") in Dir into v; the
// test fails if it cannot.
func Read(t testing.TB, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Dir(t), name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// Key is one key of keys.json: the Ed25519 seed and the public key it makes.
type Key struct {
	SeedHex string `json:"seed_hex"`
	Key     string `json:"key"`
}

// Keys returns the keys of keys.json by name.
func Keys(t testing.TB) map[string]Key {
	t.Helper()
	return ReadEntries[Key](t, "keys.json")
}

// ReadEntries decodes each entry of the vector file name, a JSON object,
// into a T, by name, leaving out the "note" that documents the file.
func ReadEntries[T any](t testing.TB, name string) map[string]T {
	t.Helper()
	var raw map[string]json.RawMessage
	Read(t, name, &raw)
	out := make(map[string]T, len(raw))
	for k, r := range raw {
		if k == "note" {
			continue
		}
		var v T
		if err := json.Unmarshal(r, &v); err != nil {
			t.Fatalf("%s %s: %v", name, k, err)
		}
		out[k] = v
	}
	return out
}
