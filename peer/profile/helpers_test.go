package profile

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/key/keytest"
)

// TestMain lets the test binary serve as an exec helper process.
func TestMain(m *testing.M) {
	switch os.Getenv("AWP_PROFILE_HELPER") {
	case "":
		os.Exit(m.Run())
	case "bigout":
		bigOut(os.Stdout, os.Stderr)
		os.Exit(3)
	}
	os.Exit(99)
}

const bigSize = 10 << 20

// bigLine is the 16-byte line bigOut repeats on stdout.
func bigLine(i int) string { return fmt.Sprintf("line %010d\n", i) }

// bigOut writes bigSize bytes of numbered ASCII lines to stdout and 100 KiB
// of bytes that are partly invalid UTF-8 to stderr, in small writes.
func bigOut(stdout, stderr *os.File) {
	var buf bytes.Buffer
	for i := 0; i < bigSize/16; i++ {
		buf.WriteString(bigLine(i))
		if buf.Len() >= 64<<10 {
			stdout.Write(buf.Bytes())
			buf.Reset()
		}
	}
	stdout.Write(buf.Bytes())
	stderr.Write(bigErr())
}

func bigErr() []byte {
	b := make([]byte, 100<<10)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

var (
	peerA = keytest.SeededPublic(1)
	peerB = keytest.SeededPublic(2)
)

// env is a test workspace: base/ws is the root, base/outside holds files
// that must never be read, written or run in.
type env struct {
	t       testing.TB
	base    string
	ws      string // real path of the root
	outside string
	tmp     string // Runner.TempDir
	r       *Runner
}

const secret = "SECRET-OUTSIDE"

func newEnv(t testing.TB) *env {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, base: base, ws: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside"), tmp: filepath.Join(base, "tmp")}
	for _, d := range []string{e.ws, e.outside, e.tmp, filepath.Join(e.ws, "sub"), filepath.Join(e.outside, "dir")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e.file(filepath.Join(e.outside, "secret.txt"), secret)
	e.file(filepath.Join(e.outside, "f.txt"), secret)
	e.file(filepath.Join(e.outside, "dir", "f.txt"), secret)
	e.file(filepath.Join(e.ws, "inside.txt"), "inside")
	e.file(filepath.Join(e.ws, "sub", "f.txt"), "inside sub")
	links := map[string]string{
		"toroot":    "/",
		"toout":     "../outside",
		"toout_abs": e.outside,
		"sub/up":    "../..",
		"loop1":     "loop2",
		"loop2":     "loop1",
		"selfloop":  "selfloop",
		"okln":      "sub",
		"okln_abs":  filepath.Join(e.ws, "sub"),
		"dangling":  filepath.Join(e.outside, "nonexistent"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(e.ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	e.r = &Runner{Root: e.ws, TempDir: e.tmp, BaseEnv: []string{"PATH=" + os.Getenv("PATH"), "BASE=1"}, Sandbox: SandboxNone}
	return e
}

func (e *env) file(p, content string) {
	e.t.Helper()
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// snapshot records every name under base except ws and tmp (which the
// tests change), with type, size, mode and content.
func (e *env) snapshot() string {
	e.t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(e.base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == e.ws || p == e.tmp {
			return filepath.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v %d", p, info.Mode(), info.Size())
		if info.Mode().IsRegular() {
			c, _ := os.ReadFile(p)
			fmt.Fprintf(&b, " %q", c)
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return b.String()
}

// do runs one request and decodes its data into a map.
func (e *env) do(from key.PublicKey, mime string, data any, blobs bool) (Result, map[string]any, error) {
	e.t.Helper()
	raw, err := json.Marshal(data)
	if err != nil {
		e.t.Fatal(err)
	}
	res, err := e.r.Handle(context.Background(), from, mime, raw, blobs)
	if err != nil {
		return res, nil, err
	}
	if res.Mime != ResultMime(mime) {
		e.t.Fatalf("result mime %q for %q", res.Mime, mime)
	}
	var m map[string]any
	if err := json.Unmarshal(res.Data, &m); err != nil {
		e.t.Fatalf("result data %s: %v", res.Data, err)
	}
	e.t.Cleanup(res.Remove)
	return res, m, nil
}

func (e *env) must(mime string, data any, blobs bool) (Result, map[string]any) {
	e.t.Helper()
	res, m, err := e.do(peerA, mime, data, blobs)
	if err != nil {
		e.t.Fatalf("Handle(%s, %v): %v", mime, data, err)
	}
	return res, m
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func (r *Runner) runningFor(k key.PublicKey) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.running[k]
}

func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ents {
		t.Errorf("left in %s: %s", dir, d.Name())
	}
}
