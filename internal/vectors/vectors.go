// Package vectors finds the shared AWP test vectors for tests.
package vectors

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir finds the shared AWP test vectors: $AWP_VECTORS, else
// ../shared/awp/vectors beside the repository root, searched upward from the
// working directory. Tests fail (not skip) when they are missing.
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
		c := filepath.Join(dir, "..", "shared", "awp", "vectors")
		if st, err := os.Stat(filepath.Join(c, "keys.json")); err == nil && !st.IsDir() {
			return c
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("shared/awp/vectors not found: set AWP_VECTORS or check out shared/ beside the repository")
		}
		dir = parent
	}
}
