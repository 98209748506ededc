package main

import (
	"io"
	"os"
	"strings"
	"testing"
)

// captured runs run(args) with stdout and stderr read into strings.
func captured(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	read := func(f **os.File) func() string {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		old := *f
		*f = w
		done := make(chan string)
		go func() { b, _ := io.ReadAll(r); done <- string(b) }()
		return func() string { *f = old; w.Close(); return <-done }
	}
	out, errs := read(&os.Stdout), read(&os.Stderr)
	code = run(args)
	return code, out(), errs()
}

// awp-tray's flags read like awp's: -h lists every flag and exits 0 (it
// printed Go's default usage and exited 2), --version prints the version,
// and bad usage names the fault and the synopsis, exit 2. None of them
// opens a display or starts a peer.
func TestFlags(t *testing.T) {
	code, out, errs := captured(t, "-h")
	if code != 0 || errs != "" || !strings.HasPrefix(out, usageLine) {
		t.Fatalf("-h: exit %d, stderr %q, stdout %q", code, errs, out)
	}
	for _, f := range []string{"--data DIR", "--keyring keyring|file", "--listen ADDR", "--verbose", "--version"} {
		if !strings.Contains(out, "\n  "+f+" ") {
			t.Errorf("-h lacks %q:\n%s", f, out)
		}
	}
	if code, out, _ := captured(t, "--version"); code != 0 || !strings.HasPrefix(out, "awp-tray ") {
		t.Errorf("--version: exit %d, %q", code, out)
	}
	for _, args := range [][]string{{"--bogus"}, {"extra"}} {
		code, out, errs := captured(t, args...)
		if code != 2 || out != "" || !strings.HasPrefix(errs, "awp-tray: ") || !strings.Contains(errs, usageLine) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}
