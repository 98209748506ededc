// Package vectors finds the AWP test vectors for tests: the repository's own
// copy in testdata/vectors (docs/protocol/vectors.md says where they come
// from and what each file pins).
//
// It owns finding the vectors for tests; it must never skip a test when
// they are missing, and never look outside the repository unless
// AWP_VECTORS says so.
package vectors

import (
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
