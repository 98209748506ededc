// Package testbin builds this module's commands for tests that run them as
// processes of their own (awp's end-to-end tests, the tray's smoke tests):
// a Set builds its binaries at most once per test binary, all into one
// temporary directory that the test package's TestMain removes with
// Remove, and a binary may be taken prebuilt from an environment variable
// instead.
//
// It owns building and finding the binaries, nothing else: it does not
// start, wait for or stop processes, which each test package does its own
// way. It must not import Fyne, nor anything that does: cmd/awp's tests
// import it and build with CGO_ENABLED=0.
package testbin

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// A Binary is one command a Set builds.
type Binary struct {
	// Name is the binary's file name in the Set's directory, and what
	// Path and Lookup know it by.
	Name string
	// Pkg is the package `go build` builds, as the go command takes it:
	// a directory relative to the test's working directory (the test
	// package's own directory), such as "." or "../../cmd/awp", or an
	// import path.
	Pkg string
	// Env, when set, names an environment variable that may name a
	// prebuilt binary to use instead; when it is set, Pkg is not built.
	Env string
	// Cgo builds with CGO_ENABLED=1 (Fyne needs cgo); without it the
	// build has CGO_ENABLED=0, as awp ships.
	Cgo bool
}

// A Set is the binaries a test package runs. Declare it as a package
// variable, call Path (or Lookup) where a test needs a binary, and Remove
// in TestMain after m.Run. A Set must not be copied after first use.
type Set struct {
	// Pattern is the os.MkdirTemp pattern of the directory the binaries
	// are built into ("" for a default).
	Pattern string
	// Bins are built in order; the first failure stops the build.
	Bins []Binary

	once  sync.Once
	dir   string            // made by build, if anything had to be built; Remove removes it
	paths map[string]string // Binary.Name → the binary
	err   error             // the build's, for every later caller too
}

// Lookup builds the set's binaries, the first time it or Path is called,
// and returns where the binary named name is. A failed build's error is
// returned by every call; it names the binary and holds the go command's
// output.
func (s *Set) Lookup(name string) (string, error) {
	s.once.Do(s.build)
	if s.err != nil {
		return "", s.err
	}
	p, ok := s.paths[name]
	if !ok {
		return "", fmt.Errorf("testbin: no binary named %q in the set", name)
	}
	return p, nil
}

// Path is Lookup that fails the test when the binary is not there.
func (s *Set) Path(tb testing.TB, name string) string {
	tb.Helper()
	p, err := s.Lookup(name)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// Remove removes the directory the binaries were built into, if any. Call
// it from TestMain once the tests have run: awp alone is some 35 MB.
func (s *Set) Remove() {
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

// build builds every binary that no environment variable names.
func (s *Set) build() {
	s.paths = make(map[string]string, len(s.Bins))
	for _, b := range s.Bins {
		if b.Env != "" {
			if p := os.Getenv(b.Env); p != "" {
				if _, err := os.Stat(p); err != nil {
					s.err = fmt.Errorf("testbin: $%s names no binary: %w", b.Env, err)
					return
				}
				s.paths[b.Name] = p
				continue
			}
		}
		if s.dir == "" {
			pattern := s.Pattern
			if pattern == "" {
				pattern = "testbin-"
			}
			dir, err := os.MkdirTemp("", pattern)
			if err != nil {
				s.err = fmt.Errorf("testbin: %w", err)
				return
			}
			s.dir = dir
		}
		p := filepath.Join(s.dir, b.Name)
		if err := goBuild(p, b); err != nil {
			s.err = err
			return
		}
		s.paths[b.Name] = p
	}
}

// goBuild builds b into out.
func goBuild(out string, b Binary) error {
	if b.Name == "" || b.Pkg == "" {
		return errors.New("testbin: a Binary needs a Name and a Pkg")
	}
	cgo := "CGO_ENABLED=0"
	if b.Cgo {
		cgo = "CGO_ENABLED=1"
	}
	cmd := exec.Command("go", "build", "-o", out, b.Pkg)
	cmd.Env = append(os.Environ(), cgo)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("testbin: go build %s (%s, %s): %v\n%s", b.Name, b.Pkg, cgo, err, msg)
	}
	return nil
}
