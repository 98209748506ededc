package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/awp-tray/awp-tray/keystore"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/localapi/localapitest"
)

// awp runs the program as a function with an empty environment.
func awp(t *testing.T, ctx context.Context, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = runMain(ctx, args, &o, &e, func(string) string { return "" })
	return code, o.String(), e.String()
}

func newKey(t *testing.T) string {
	t.Helper()
	k, err := key.NewPrivate()
	if err != nil {
		t.Fatal(err)
	}
	return k.Public().String()
}

func TestUsageErrors(t *testing.T) {
	// A running peer (knowing no one), so that a KEY that is no key is
	// looked up, and refused as bad usage.
	_, dir := serveFake(t)
	k := newKey(t)
	cases := []struct {
		args    []string
		cmd     string // the usage line to expect: "usage: awp " + cmd
		message string // part of the first line
	}{
		{[]string{"send", "--text", "x"}, "send", "--to is required"},
		{[]string{"send", "--to", "ed25519:nope", "--text", "x"}, "send", "--to: key: malformed"},
		{[]string{"send", "--to", "ed25519:" + strings.Repeat("A", 43), "--text", "x"}, "send", "(all zero: no key)"},
		{[]string{"send", "--to", k}, "send", "nothing to send"},
		{[]string{"send", "--to", k, "--bogus"}, "send", "flag provided but not defined: -bogus"},
		{[]string{"send", "--to", k, "--text", "x", "extra"}, "send", `unexpected argument "extra"`},
		{[]string{"send", "--to", k, "--th", "THR_X", "--text", "x"}, "send", "--th"},
		{[]string{"send", "--to", k, "--data-json", "{nope", "--mime", "a/b"}, "send", "not JSON"},
		{[]string{"send", "--to", k, "--lang", "go", "--text", "x"}, "send", "--lang needs --code-file"},
		{[]string{"state", "working"}, "state", "--th is required"},
		{[]string{"state", "--th", "thr_abc"}, "state", "missing STATE"},
		{[]string{"state", "--th", "thr_abc", "thr_abc", "working"}, "state", `unexpected argument "working"`},
		{[]string{"state", "bad id", "working"}, "state", "TH"},
		{[]string{"show", "--json"}, "show", "missing TH"},
		{[]string{"show", "--json", "abc"}, "show", "TH"},
		{[]string{"show", "--from", "x", "--json", "thr_a"}, "show", "--from"},
		{[]string{"threads", "--json", "extra"}, "threads", "unexpected argument"},
		{[]string{"threads", "--jason"}, "threads", "flag provided but not defined"},
		{[]string{"peers", "-json=maybe"}, "peers", "invalid boolean"},
		{[]string{"connect"}, "connect", "missing ADDR"},
		{[]string{"connect", "nonsense://x"}, "connect", `ADDR: transport: malformed address: "nonsense://x"`},
		{[]string{"run", "--dial", "bogus"}, "run", `--dial: transport: malformed address: "bogus"`},
		{[]string{"trust", "bob"}, "trust", "KEY"},
		{[]string{"untrust"}, "untrust", "missing KEY"},
		{[]string{"blob"}, "blob", "want `awp blob get`"},
		{[]string{"blob", "get", "--from", "bob", "blob_1"}, "blob get", "--from"},
		{[]string{"blob", "get", "--from", k}, "blob get", "missing REF"},
		{[]string{"run", "--accept", "maybe"}, "run", "--accept"},
		{[]string{"run", "--presence", "loud"}, "run", "--presence"},
		{[]string{"run", "--trust", "bob"}, "run", "--trust"},
		{[]string{"run", "--mirror-to", "bob"}, "run", "--mirror-to"},
		{[]string{"run", "extra"}, "run", "unexpected argument"},
		{[]string{"id", "--keyring", "vault"}, "id", "--keyring"},
		{[]string{"watch", "--json", "x"}, "watch", "unexpected argument"},
		{[]string{"decide", "ap1", "maybe"}, "decide", "want allow or deny"},
		{[]string{"help", "nope"}, "help", "unknown command"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			args := append([]string{c.args[0], "--data", dir}, c.args[1:]...)
			if c.args[0] == "blob" && len(c.args) > 1 {
				args = append([]string{"blob", c.args[1], "--data", dir}, c.args[2:]...)
			}
			code, out, errs := awp(t, context.Background(), args...)
			if code != exitUsage {
				t.Fatalf("exit %d, want 2; stderr %q", code, errs)
			}
			if out != "" {
				t.Errorf("stdout = %q, want nothing", out)
			}
			lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
			if len(lines) != 2 {
				t.Fatalf("stderr = %q, want a reason and a usage line", errs)
			}
			if !strings.HasPrefix(lines[0], "awp "+c.cmd+": ") || !strings.Contains(lines[0], c.message) {
				t.Errorf("reason = %q, want %q about %q", lines[0], "awp "+c.cmd, c.message)
			}
			if !strings.HasPrefix(lines[1], "usage: awp "+c.cmd) {
				t.Errorf("usage line = %q", lines[1])
			}
		})
	}
}

// A --data before the command names the data directory as one after it
// does; one after the command wins; a --data with no directory is bad usage.
func TestLeadingData(t *testing.T) {
	ctx := context.Background()
	first, second := t.TempDir(), t.TempDir()
	for _, args := range [][]string{
		{"--data", first, "id", "--keyring", "file"},
		{"-data=" + first, "id", "--keyring", "file"},
	} {
		code, out, errs := awp(t, ctx, args...)
		if code != exitOK || !strings.HasPrefix(out, "ed25519:") {
			t.Fatalf("awp %q: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(first, keystore.FileName)); err != nil {
		t.Fatalf("awp --data DIR id made no identity in DIR: %v", err)
	}
	code, _, errs := awp(t, ctx, "--data", first, "threads", "--data", second)
	if code != exitFail || !strings.Contains(errs, "no peer is running for "+second) {
		t.Errorf("a --data after the command: exit %d, stderr %q; want it to win", code, errs)
	}
	for _, args := range [][]string{{"--data"}, {"--data="}, {"--data", ""}} {
		code, out, errs := awp(t, ctx, args...)
		if code != exitUsage || out != "" || !strings.Contains(errs, "--data needs a directory") {
			t.Errorf("awp %q: exit %d, stdout %q, stderr %q; want bad usage", args, code, out, errs)
		}
	}
}

func TestTopLevelUsage(t *testing.T) {
	code, out, errs := awp(t, context.Background())
	if code != exitUsage || out != "" || !strings.HasPrefix(errs, "usage: awp COMMAND") {
		t.Fatalf("no args: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, _, errs = awp(t, context.Background(), "frobnicate")
	if code != exitUsage || !strings.HasPrefix(errs, `awp: unknown command "frobnicate"`) {
		t.Fatalf("unknown command: exit %d, stderr %q", code, errs)
	}
	var ob, eb bytes.Buffer
	code = run([]string{"help"}, &ob, &eb) // run is main without os.Exit
	out = ob.String()
	if code != exitOK || eb.Len() != 0 {
		t.Fatalf("help: exit %d, stderr %q", code, eb.String())
	}
	for _, name := range []string{"id", "run", "connect", "send", "state", "threads", "show", "peers",
		"trust", "untrust", "blobs", "blob", "watch"} {
		if !strings.Contains(out, "\n  "+name+" ") {
			t.Errorf("help does not list %q:\n%s", name, out)
		}
	}
	code, out, errs = awp(t, context.Background(), "send", "-h")
	if code != exitOK || !strings.HasPrefix(out, "usage: awp send ") || errs != "" {
		t.Fatalf("send -h: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestNotRunning(t *testing.T) {
	dir := localapitest.ShortTempDir(t)
	want := "no peer is running for " + dir + " (start one with `awp run`)\n"
	for _, args := range [][]string{
		{"threads", "--data", dir, "--json"},
		{"send", "--data", dir, "--to", newKey(t), "--text", "hi"},
		{"watch", "--data", dir, "--json"},
		{"blob", "get", "--data", dir, "--from", newKey(t), "blob_1"},
	} {
		code, out, errs := awp(t, context.Background(), args...)
		if code != exitFail || out != "" {
			t.Errorf("%v: exit %d, stdout %q; want 1 and nothing", args, code, out)
		}
		if !strings.HasSuffix(errs, ": "+want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: stderr %q, want one line ending %q", args, errs, want)
		}
	}
}

func TestDataDirDefault(t *testing.T) {
	e := &env{getenv: func(k string) string {
		if k == "AWP_DATA" {
			return "/srv/awp-data"
		}
		return ""
	}}
	if d, err := e.dataDir(""); err != nil || d != "/srv/awp-data" {
		t.Fatalf("dataDir with AWP_DATA = %q, %v", d, err)
	}
	if d, err := e.dataDir("/flag/dir"); err != nil || d != "/flag/dir" {
		t.Fatalf("dataDir with --data = %q, %v", d, err)
	}
	e.getenv = func(string) string { return "" }
	d, err := e.dataDir("")
	if err == nil && !strings.HasSuffix(d, "/awp") {
		t.Fatalf("default data dir = %q, want the user config dir's awp/", d)
	}
}

func TestInterspersedFlags(t *testing.T) {
	fs := newFlags("state")
	th := fs.String("th", "", "")
	note := fs.String("note", "", "")
	pos, err := fs.parse([]string{"--th", "thr_a", "working", "--note", "tests", "--", "--x"})
	if err != nil {
		t.Fatal(err)
	}
	if *th != "thr_a" || *note != "tests" || strings.Join(pos, " ") != "working --x" {
		t.Fatalf("th %q note %q pos %q", *th, *note, pos)
	}
}
