//go:build unix

package profile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const dataSecret = "IDENTITY-SECRET"

// hiddenEnv is a workspace that contains the node's data directory
// (ws/.config/awp, as when the workspace is the home directory), with
// links into it from elsewhere in the workspace.
func hiddenEnv(t *testing.T) (*env, string) {
	t.Helper()
	e := newEnv(t)
	data := filepath.Join(e.ws, ".config", "awp")
	for _, d := range []string{filepath.Join(data, "blobs", "ab"), filepath.Join(e.ws, ".config", "other")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	e.file(filepath.Join(data, "identity.key"), dataSecret)
	e.file(filepath.Join(data, "awp.db"), dataSecret)
	e.file(filepath.Join(data, "blobs", "ab", "cdef"), dataSecret)
	e.file(filepath.Join(e.ws, ".config", "other", "ok.txt"), "ok")
	links := map[string]string{
		"dl":      ".config/awp",              // a link to the data directory
		"dl2":     "sub/../.config/awp",       // by a detour
		"kl":      ".config/awp/identity.key", // a link to a file in it
		"sub/dl3": "../.config/awp",
		"cfg":     ".config",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(e.ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	// A hard link elsewhere in the workspace to the identity file.
	if err := os.Link(filepath.Join(data, "identity.key"), filepath.Join(e.ws, "sub", "hl")); err != nil {
		t.Fatal(err)
	}
	e.r.Hidden = []string{data}
	return e, data
}

// hiddenPaths are spellings of paths into the data directory.
func hiddenPaths(e *env, data string) []string {
	return []string{
		".config/awp",
		".config/awp/",
		".config/awp/.",
		".config/awp/identity.key",
		".config/awp/awp.db",
		".config/awp/blobs",
		".config/awp/blobs/ab/cdef",
		"./.config//awp/./identity.key",
		".config/awp/../awp/identity.key",
		".config/other/../awp/identity.key",
		"sub/../.config/awp/identity.key",
		data,
		data + "/identity.key",
		data + "/blobs/../identity.key",
		e.ws + "/./.config/awp/identity.key",
		"dl",
		"dl/",
		"dl/identity.key",
		"dl/blobs/ab/cdef",
		"dl2/identity.key",
		"kl",
		"sub/dl3/identity.key",
		"cfg/awp/identity.key",
		"cfg/awp",
		"sub/hl",
	}
}

func TestHiddenRead(t *testing.T) {
	e, data := hiddenEnv(t)
	for _, p := range hiddenPaths(e, data) {
		_, m := e.must(MimeRead, map[string]any{"path": p}, true)
		if got := str(m, "error"); got != ErrOutside {
			t.Errorf("read %q: error %q, want %q (%v)", p, got, ErrOutside, m)
		}
		if strings.Contains(str(m, "content"), dataSecret) || m["entries"] != nil {
			t.Errorf("read %q returned more than an error: %v", p, m)
		}
	}
	// What is not in the data directory stays readable.
	for _, p := range []string{".config/other/ok.txt", "cfg/other/ok.txt", "sub/f.txt"} {
		_, m := e.must(MimeRead, map[string]any{"path": p}, false)
		if str(m, "error") != "" {
			t.Errorf("read %q: %v", p, m)
		}
	}
}

func TestHiddenListing(t *testing.T) {
	e, _ := hiddenEnv(t)
	names := func(p string) []string {
		_, m := e.must(MimeRead, map[string]any{"path": p}, false)
		if m["dir"] != true {
			t.Fatalf("list %q: %v", p, m)
		}
		var out []string
		for _, x := range m["entries"].([]any) {
			out = append(out, x.(map[string]any)["name"].(string))
		}
		return out
	}
	if got := strings.Join(names(".config"), ","); got != "other" {
		t.Errorf(".config lists %q, want other (awp left out)", got)
	}
	if got := strings.Join(names("cfg"), ","); got != "other" {
		t.Errorf("cfg lists %q, want other", got)
	}
	// The links to it (dl, dl2, kl) and the hard link (sub/hl) are left
	// out too; everything else is listed.
	root := strings.Join(names("."), ",")
	if root != ".config,cfg,dangling,inside.txt,loop1,loop2,okln,okln_abs,selfloop,sub,toout,toout_abs,toroot" {
		t.Errorf("root lists %q", root)
	}
	if got := strings.Join(names("sub"), ","); got != "f.txt,up" {
		t.Errorf("sub lists %q, want f.txt,up (dl3 and hl left out)", got)
	}
}

func TestHiddenWrite(t *testing.T) {
	e, data := hiddenEnv(t)
	before := tree(t, data)
	paths := append(hiddenPaths(e, data), ".config/awp/new.txt", ".config/awp/newdir/x.txt",
		"dl/new.txt", "dl/newdir/x.txt", "cfg/awp/newdir/deeper/x.txt", ".config/awp/blobs/ab/new")
	for _, p := range paths {
		for _, mode := range []map[string]any{{}, {"append": true}, {"mkdir": true}, {"append": true, "mkdir": true}} {
			req := map[string]any{"path": p, "content": "PWNED"}
			for k, v := range mode {
				req[k] = v
			}
			_, m := e.must(MimeWrite, req, true)
			if got := str(m, "error"); got != ErrOutside {
				t.Errorf("write %q %v: error %q, want %q", p, mode, got, ErrOutside)
			}
		}
	}
	if after := tree(t, data); after != before {
		t.Errorf("data directory changed:\n%s\n---\n%s", before, after)
	}
	// A write beside it still works, mkdir included.
	_, m := e.must(MimeWrite, map[string]any{"path": ".config/new/x.txt", "content": "ok", "mkdir": true}, false)
	if str(m, "error") != "" {
		t.Errorf("write beside: %v", m)
	}
}

func TestHiddenExecCwd(t *testing.T) {
	e, data := hiddenEnv(t)
	e.r.Sandbox = SandboxNone // the cwd check, whatever runs the command
	for _, p := range append(hiddenPaths(e, data), ".config/awp/blobs/ab") {
		if strings.HasSuffix(p, "identity.key") || strings.HasSuffix(p, "awp.db") || strings.HasSuffix(p, "cdef") || p == "kl" || p == "sub/hl" {
			continue // files: "not a directory" either way
		}
		_, m := e.must(MimeExec, map[string]any{"cmd": "pwd -P; cat identity.key", "cwd": p}, false)
		if got := str(m, "error"); got != ErrOutside || m["exit"] != -1.0 || str(m, "stdout") != "" {
			t.Errorf("exec cwd %q: %v, want %q and nothing run", p, m, ErrOutside)
		}
	}
}

// A workspace inside the data directory reaches nothing.
func TestHiddenWorkspaceInsideData(t *testing.T) {
	e, data := hiddenEnv(t)
	e.r.Root = filepath.Join(data, "blobs")
	for _, p := range []string{".", "ab", "ab/cdef"} {
		_, m := e.must(MimeRead, map[string]any{"path": p}, false)
		if str(m, "error") != ErrOutside {
			t.Errorf("read %q: %v", p, m)
		}
	}
	_, m := e.must(MimeWrite, map[string]any{"path": "x", "content": "x"}, false)
	if str(m, "error") != ErrOutside {
		t.Errorf("write: %v", m)
	}
}

// tree lists every name under dir with its content, for before/after.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		b.WriteString(p + " " + info.Mode().String())
		if info.Mode().IsRegular() {
			c, _ := os.ReadFile(p)
			b.WriteString(" " + string(c))
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The approval prompt's CheckPath marks exactly the paths the runner keeps
// out of the data directory, hard links and links to it included.
func TestCheckPathHidden(t *testing.T) {
	e, data := hiddenEnv(t)
	for _, p := range append(hiddenPaths(e, data), ".config/awp/new/x", "dl/new/deeper/x") {
		if got := CheckPath(e.ws, data, p); got != WhyDataDir {
			t.Errorf("CheckPath(%q) = %q, want %q", p, got, WhyDataDir)
		}
	}
	for _, p := range []string{".config/other/ok.txt", "cfg/other", "sub/f.txt", "new/x"} {
		if got := CheckPath(e.ws, data, p); got != "" {
			t.Errorf("CheckPath(%q) = %q, want none", p, got)
		}
	}
}
