//go:build unix

package profile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostile lists paths that must not reach outside the workspace, with the
// result error each must give.
func hostile(e *env) []struct{ path, want string } {
	return []struct{ path, want string }{
		{"..", ErrOutside},
		{"../outside/secret.txt", ErrOutside},
		{"../x", ErrOutside},
		{"a/../../x", ErrOutside},
		{"sub/../../outside/secret.txt", ErrOutside},
		{"sub/../..", ErrOutside},
		{"./../outside/f.txt", ErrOutside},
		{"/etc/passwd", ErrOutside},
		{"/etc/awp-profile-test-must-not-exist", ErrOutside},
		{"/", ErrOutside},
		{filepath.Join(e.outside, "secret.txt"), ErrOutside},
		{e.ws + "/../outside/secret.txt", ErrOutside},
		{e.ws + "x/secret.txt", ErrOutside}, // shares a prefix with the root, not a parent
		{"toroot", ErrOutside},
		{"toroot" + e.outside + "/secret.txt", ErrOutside},
		{"toout", ErrOutside},
		{"toout/secret.txt", ErrOutside},
		{"toout/dir/f.txt", ErrOutside},
		{"toout_abs/secret.txt", ErrOutside},
		{"toout/../outside/f.txt", ErrOutside},
		{"sub/up/outside/secret.txt", ErrOutside},
		{"sub/up", ErrOutside},
		{"dangling", ErrOutside},
		{"dangling/new.txt", ErrOutside},
		{"okln/../../outside/f.txt", ErrOutside},
		{"loop1", ErrLoop},
		{"loop1/x", ErrLoop},
		{"selfloop/x", ErrLoop},
		{"sub\x00/../../outside/secret.txt", ErrNUL},
		{"inside.txt\x00", ErrNUL},
	}
}

func TestEscapeRead(t *testing.T) {
	e := newEnv(t)
	before := e.snapshot()
	for _, h := range hostile(e) {
		_, m := e.must(MimeRead, map[string]any{"path": h.path}, true)
		if got := str(m, "error"); got != h.want {
			t.Errorf("read %q: error %q, want %q (%v)", h.path, got, h.want, m)
		}
		if strings.Contains(str(m, "content"), secret) || m["entries"] != nil || len(m) != 2 {
			t.Errorf("read %q returned more than an error: %v", h.path, m)
		}
	}
	if after := e.snapshot(); after != before {
		t.Errorf("outside changed:\n%s\n---\n%s", before, after)
	}
}

func TestEscapeWrite(t *testing.T) {
	e := newEnv(t)
	before := e.snapshot()
	for _, h := range hostile(e) {
		for _, mode := range []map[string]any{{}, {"append": true}, {"mkdir": true}, {"append": true, "mkdir": true}} {
			req := map[string]any{"path": h.path, "content": "PWNED"}
			for k, v := range mode {
				req[k] = v
			}
			_, m := e.must(MimeWrite, req, true)
			want := h.want
			if got := str(m, "error"); got != want {
				t.Errorf("write %q %v: error %q, want %q", h.path, mode, got, want)
			}
			if m["written"] != 0.0 {
				t.Errorf("write %q %v: written %v", h.path, mode, m["written"])
			}
		}
	}
	if after := e.snapshot(); after != before {
		t.Errorf("outside changed:\n%s\n---\n%s", before, after)
	}
	if _, err := os.Lstat("/etc/awp-profile-test-must-not-exist"); err == nil {
		t.Error("/etc/awp-profile-test-must-not-exist was created")
	}
	// Nothing was left in the workspace either (no temp files, no dirs).
	ents, _ := os.ReadDir(e.ws)
	for _, d := range ents {
		if strings.Contains(d.Name(), "awp-tmp") || d.Name() == "a" {
			t.Errorf("left in workspace: %q", d.Name())
		}
	}
}

func TestEscapeExecCwd(t *testing.T) {
	e := newEnv(t)
	before := e.snapshot()
	for _, h := range hostile(e) {
		_, m := e.must(MimeExec, map[string]any{"cmd": "echo x > pwned; pwd -P", "cwd": h.path}, true)
		if got := str(m, "error"); got != h.want {
			t.Errorf("exec cwd %q: error %q, want %q (%v)", h.path, got, h.want, m)
		}
		if m["exit"] != -1.0 || str(m, "stdout") != "" {
			t.Errorf("exec cwd %q ran: %v", h.path, m)
		}
	}
	if after := e.snapshot(); after != before {
		t.Errorf("outside changed:\n%s\n---\n%s", before, after)
	}
	if _, err := os.Lstat("/pwned"); err == nil {
		t.Error("/pwned was created")
	}
}

// TestInsidePaths: the allowed forms resolve inside the root.
func TestInsidePaths(t *testing.T) {
	e := newEnv(t)
	for _, p := range []string{"sub/f.txt", "./sub/f.txt", "sub//f.txt", "okln/f.txt",
		"sub/../sub/f.txt", filepath.Join(e.ws, "sub/f.txt"), filepath.Join(e.ws, "okln/f.txt")} {
		_, m := e.must(MimeRead, map[string]any{"path": p}, false)
		if str(m, "content") != "inside sub" || str(m, "error") != "" {
			t.Errorf("read %q: %v", p, m)
		}
	}
	for _, cwd := range []string{"", ".", "sub", "okln", e.ws, e.ws + "/sub", "sub/.."} {
		_, m := e.must(MimeExec, map[string]any{"cmd": []string{"pwd", "-P"}, "cwd": cwd}, false)
		want := e.ws
		if strings.Contains(cwd, "sub") && !strings.HasSuffix(cwd, "..") || cwd == "okln" {
			want = filepath.Join(e.ws, "sub")
		}
		if str(m, "stdout") != want+"\n" || m["exit"] != 0.0 {
			t.Errorf("exec cwd %q: %v, want pwd %s", cwd, m, want)
		}
	}
	// A symlink with an absolute target is refused even when it points
	// inside: os.Root never follows absolute links.
	_, m := e.must(MimeRead, map[string]any{"path": "okln_abs/f.txt"}, false)
	if str(m, "error") != ErrOutside {
		t.Errorf("absolute inside link: %v", m)
	}
	// A newline is a legal file name character: read, write and cwd work.
	name := "new\nline"
	_, m = e.must(MimeWrite, map[string]any{"path": name + "/f.txt", "content": "nl", "mkdir": true}, false)
	if str(m, "error") != "" || m["written"] != 2.0 {
		t.Fatalf("write newline name: %v", m)
	}
	if b, err := os.ReadFile(filepath.Join(e.ws, name, "f.txt")); err != nil || string(b) != "nl" {
		t.Errorf("newline file: %q %v", b, err)
	}
	_, m = e.must(MimeRead, map[string]any{"path": name + "/f.txt"}, false)
	if str(m, "content") != "nl" {
		t.Errorf("read newline name: %v", m)
	}
	_, m = e.must(MimeExec, map[string]any{"cmd": []string{"cat", "f.txt"}, "cwd": name}, false)
	if str(m, "stdout") != "nl" {
		t.Errorf("exec in newline dir: %v", m)
	}
}
