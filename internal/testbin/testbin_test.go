package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuild builds one tiny command twice, with cgo and without, into one
// directory, and runs both: each says how it was built. Remove removes the
// directory.
func TestBuild(t *testing.T) {
	s := &Set{Pattern: "testbin-test-", Bins: []Binary{
		{Name: "with", Pkg: "./testdata/cgostate", Cgo: true},
		{Name: "without", Pkg: "./testdata/cgostate"},
	}}
	defer s.Remove()
	with, without := s.Path(t, "with"), s.Path(t, "without")
	if filepath.Dir(with) != filepath.Dir(without) || filepath.Base(with) != "with" || filepath.Base(without) != "without" {
		t.Errorf("paths %s and %s: want with and without in one directory", with, without)
	}
	if !strings.HasPrefix(filepath.Base(filepath.Dir(with)), "testbin-test-") {
		t.Errorf("directory %s: want the pattern testbin-test-", filepath.Dir(with))
	}
	for bin, want := range map[string]string{with: "cgo", without: "no cgo"} {
		out, err := exec.Command(bin).Output()
		if err != nil {
			t.Fatalf("%s: %v", bin, err)
		}
		if got := strings.TrimSpace(string(out)); got != want {
			t.Errorf("%s says %q, want %q", bin, got, want)
		}
	}
	if again := s.Path(t, "with"); again != with {
		t.Errorf("second Path = %s, want %s", again, with)
	}
	if _, err := s.Lookup("other"); err == nil || !strings.Contains(err.Error(), `no binary named "other"`) {
		t.Errorf("Lookup of a name not in the set: %v", err)
	}
	s.Remove()
	if _, err := os.Stat(filepath.Dir(with)); !os.IsNotExist(err) {
		t.Errorf("after Remove, the directory: %v", err)
	}
}

// TestBuildFails: a build that fails says which binary, how it was built
// and what the compiler said, to every caller; nothing after it is built.
func TestBuildFails(t *testing.T) {
	s := &Set{Bins: []Binary{
		{Name: "broken", Pkg: "./testdata/broken"},
		{Name: "after", Pkg: "./testdata/cgostate"},
	}}
	defer s.Remove()
	_, err := s.Lookup("after")
	if err == nil {
		t.Fatal("a set with a broken command built")
	}
	for _, want := range []string{"go build broken (./testdata/broken, CGO_ENABLED=0): exit status 1", `cannot use "not a number"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if _, again := s.Lookup("broken"); again == nil || again.Error() != err.Error() {
		t.Errorf("second Lookup: %v, want the first one's error", again)
	}
	if _, err := os.Stat(filepath.Join(s.dir, "after")); !os.IsNotExist(err) {
		t.Errorf("the binary after the broken one: %v, want not built", err)
	}
}

// TestEnvOverride: a binary that its variable names is used as it is,
// and not built (the package here would not compile); a variable that
// names no file is an error that names the variable.
func TestEnvOverride(t *testing.T) {
	prebuilt := filepath.Join(t.TempDir(), "prebuilt")
	if err := os.WriteFile(prebuilt, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TESTBIN_TEST_BIN", prebuilt)
	s := &Set{Bins: []Binary{{Name: "bin", Pkg: "./testdata/broken", Env: "TESTBIN_TEST_BIN"}}}
	defer s.Remove()
	if got := s.Path(t, "bin"); got != prebuilt {
		t.Errorf("Path = %s, want $TESTBIN_TEST_BIN's %s", got, prebuilt)
	}
	if s.dir != "" {
		t.Errorf("made %s with nothing to build", s.dir)
	}

	missing := filepath.Join(t.TempDir(), "missing")
	t.Setenv("TESTBIN_TEST_BIN", missing)
	s = &Set{Bins: []Binary{{Name: "bin", Pkg: "./testdata/cgostate", Env: "TESTBIN_TEST_BIN"}}}
	defer s.Remove()
	_, err := s.Lookup("bin")
	if err == nil || !strings.Contains(err.Error(), "$TESTBIN_TEST_BIN names no binary") || !strings.Contains(err.Error(), missing) {
		t.Errorf("Lookup with $TESTBIN_TEST_BIN naming nothing: %v", err)
	}
}
