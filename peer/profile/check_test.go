package profile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CheckPath says a path is refused exactly when the runner refuses it,
// for reads, appends and replacing writes, through every kind of link the
// test workspace holds.
func TestCheckPathAgreesWithRunner(t *testing.T) {
	e := newEnv(t)
	paths := []string{
		"inside.txt", "sub/f.txt", "new.txt", "nodir/new.txt", ".", "sub/../inside.txt",
		"../outside/f.txt", filepath.Join(e.outside, "f.txt"), filepath.Join(e.ws, "inside.txt"), "/etc/passwd",
		"sub/../../ws/inside.txt", "toroot/etc/passwd", "toout", "toout/f.txt", "toout_abs/f.txt", "sub/up/outside/f.txt",
		"okln/f.txt", "okln_abs/f.txt", "dangling", "loop1", "loop1/x", "selfloop", "in\x00side.txt",
	}
	why := map[string]string{ErrOutside: WhyOutside, ErrLoop: WhyLoop, ErrNUL: WhyNUL}
	for _, p := range paths {
		got := CheckPath(e.ws, "", p)
		for _, req := range []struct {
			mime string
			data map[string]any
		}{
			{MimeRead, map[string]any{"path": p}},
			{MimeWrite, map[string]any{"path": p, "content": "x", "append": true}},
			{MimeWrite, map[string]any{"path": p, "content": "x"}},
		} {
			_, m, err := e.do(peerA, req.mime, req.data, false)
			if err != nil {
				t.Fatalf("%q %s: %v", p, req.mime, err)
			}
			if want := why[str(m, "error")]; got != want {
				t.Errorf("CheckPath(%q) = %q; the runner answers %s %v with %q", p, got, req.mime, req.data, str(m, "error"))
			}
		}
	}
}

// The data directory is refused however the path reaches it: spelled
// directly, through "..", an absolute path, a link to it, a link as the
// last component, or a directory that a write with mkdir would create.
func TestCheckPathDataDir(t *testing.T) {
	e := newEnv(t)
	data := filepath.Join(e.ws, ".awp")
	if err := os.MkdirAll(filepath.Join(data, "blobs"), 0o700); err != nil {
		t.Fatal(err)
	}
	e.file(filepath.Join(data, "identity.key"), "KEY")
	for name, target := range map[string]string{"alias": ".awp", "keylink": ".awp/identity.key", "sub/deep": "../.awp/blobs"} {
		if err := os.Symlink(target, filepath.Join(e.ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	// The root named through a link: the rule follows real locations.
	wsLink := filepath.Join(e.base, "wslink")
	if err := os.Symlink(e.ws, wsLink); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{".awp/identity.key", WhyDataDir},
		{".awp", WhyDataDir},
		{"./.awp/../.awp/blobs/x", WhyDataDir},
		{filepath.Join(e.ws, ".awp", "identity.key"), WhyDataDir},
		{"alias/identity.key", WhyDataDir},
		{"keylink", WhyDataDir},
		{"sub/deep/new", WhyDataDir},
		{"nodir/../.awp/new", WhyDataDir},
		{strings.Repeat("./", 100_000) + ".awp/identity.key", WhyDataDir},
		{".", ""},
		{"inside.txt", ""},
		{".awpx", ""},
		{"sub/f.txt", ""},
		{"../outside/f.txt", WhyOutside},
	} {
		for _, root := range []string{e.ws, wsLink} {
			name := tc.path
			if len(name) > 60 {
				name = name[:20] + "…" + name[len(name)-30:]
			}
			if got := CheckPath(root, data, tc.path); got != tc.want {
				t.Errorf("CheckPath(%s, %q) = %q, want %q", root, name, got, tc.want)
			}
		}
	}
	// A data directory outside the workspace is reached by no path in it.
	if got := CheckPath(e.ws, e.outside, ".awp/identity.key"); got != "" {
		t.Errorf("data directory outside the workspace: %q", got)
	}
	// A loop of links: as the runner says.
	if got := CheckPath(e.ws, data, "loop1"); got != WhyLoop {
		t.Errorf("loop: %q", got)
	}
	// No root: no verdict on the path.
	if got := CheckPath(filepath.Join(e.base, "missing"), data, "x"); got != "" {
		t.Errorf("missing root: %q", got)
	}
}

// DecodeWrite gives the bytes the runner would write, and fails where it
// fails.
func TestDecodeWrite(t *testing.T) {
	req, b, err := DecodeWrite([]byte(`{"path":"a","content":"aGk=","encoding":"base64","append":true}`))
	if err != nil || string(b) != "hi" || !req.Append || req.Path != "a" {
		t.Errorf("base64: %+v %q %v", req, b, err)
	}
	for _, bad := range []string{`{"path":"a","content":"aGk","encoding":"base64"}`, `{"content":"x"}`, `{"path":"a","path":"b","content":"x"}`} {
		if _, _, err := DecodeWrite([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
