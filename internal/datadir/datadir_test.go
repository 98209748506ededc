package datadir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// The flag wins over $AWP_DATA, which wins over the config directory.
func TestResolveOrder(t *testing.T) {
	vars := env(map[string]string{Env: "/srv/awp-data"})
	if d, err := Resolve("/flag/dir", vars); err != nil || d != "/flag/dir" {
		t.Errorf("Resolve(--data) = %q, %v; want /flag/dir", d, err)
	}
	if d, err := Resolve("", vars); err != nil || d != "/srv/awp-data" {
		t.Errorf("Resolve($AWP_DATA) = %q, %v; want /srv/awp-data", d, err)
	}
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("HOME", cfg)
	t.Setenv("AppData", cfg)
	base, err := os.UserConfigDir()
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(base, "awp")
	if d, err := Resolve("", env(nil)); err != nil || d != want {
		t.Errorf("Resolve() = %q, %v; want %s", d, err, want)
	}
}

// A relative directory comes back absolute, from the working directory.
func TestResolveRelative(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	d, err := Resolve("rel/dir", env(nil))
	if want := filepath.Join(wd, "rel", "dir"); err != nil || d != want {
		t.Errorf("Resolve(rel/dir) = %q, %v; want %s", d, err, want)
	}
	d, err = Resolve("", env(map[string]string{Env: "from-env"}))
	if want := filepath.Join(wd, "from-env"); err != nil || d != want {
		t.Errorf("Resolve($AWP_DATA=from-env) = %q, %v; want %s", d, err, want)
	}
}

// Without a flag, $AWP_DATA or a config directory the error says what to
// give.
func TestResolveNoConfigDir(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("HOME", "")
	t.Setenv("AppData", "")
	t.Setenv("home", "")
	_, err := Resolve("", env(nil))
	if err == nil || !strings.Contains(err.Error(), "give --data or set AWP_DATA") {
		t.Fatalf("Resolve with no config dir: %v, want an error naming --data and AWP_DATA", err)
	}
}
