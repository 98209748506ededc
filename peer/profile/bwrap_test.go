//go:build linux

package profile

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// bwrapEnv is a test workspace whose exec runs under bubblewrap, with the
// node's data directory both beside the workspace (base/data) and inside
// it (ws/.awp), a home directory and a runtime directory holding secrets.
// Without a working bwrap the test is skipped: `make test` installs it
// (scripts/deps.sh).
type bwrapEnv struct {
	*env
	data, inData, home, run string
}

func newBwrapEnv(t *testing.T) *bwrapEnv {
	t.Helper()
	if _, err := (&Runner{}).bwrapPath(); err != nil {
		t.Skipf("%v (scripts/deps.sh test installs bubblewrap)", err)
	}
	if err := probeBwrap(mustBwrap(t)); err != nil {
		t.Skipf("bubblewrap cannot make namespaces here: %v", err)
	}
	e := newEnv(t)
	// The data and home directories live outside /tmp (which the sandbox
	// replaces as a whole), as they do for a person.
	outTmp := func(pattern string) string {
		d, err := os.MkdirTemp("/var/tmp", pattern)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		return d
	}
	b := &bwrapEnv{env: e, data: outTmp("awp-test-data-*"), inData: filepath.Join(e.ws, ".awp"),
		home: outTmp("awp-test-home-*"), run: filepath.Join(e.base, "run")}
	for _, d := range []string{b.data, b.inData, b.home, b.run} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	e.file(filepath.Join(b.data, "identity.key"), dataSecret)
	e.file(filepath.Join(b.inData, "identity.key"), dataSecret)
	e.file(filepath.Join(b.home, "secret"), dataSecret)
	e.file(filepath.Join(b.run, "secret"), dataSecret)
	t.Setenv("XDG_RUNTIME_DIR", b.run)
	e.r.Sandbox = SandboxBwrap
	e.r.Hidden = []string{b.data, b.inData}
	e.r.HomeDir = b.home
	return b
}

func mustBwrap(t *testing.T) string {
	p, err := (&Runner{}).bwrapPath()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (b *bwrapEnv) sh(cmd string, extra map[string]any) map[string]any {
	b.t.Helper()
	req := map[string]any{"cmd": cmd, "timeout": 60}
	for k, v := range extra {
		req[k] = v
	}
	_, m := b.must(MimeExec, req, false)
	return m
}

func TestBwrapConfines(t *testing.T) {
	b := newBwrapEnv(t)
	if st := b.r.SandboxStatus(); st.Sandbox != SandboxBwrap || !st.Available || st.Unsandboxed() {
		t.Fatalf("status %+v", st)
	}
	marker := filepath.Join(os.TempDir(), "awp-bwrap-marker-"+rand.Text())
	b.file(marker, "host /tmp")
	t.Cleanup(func() { os.Remove(marker) })
	before := b.snapshot()

	// Secrets: the data directory beside and inside the workspace, the
	// home directory, the runtime directory, the host's /tmp.
	for _, p := range []string{
		filepath.Join(b.data, "identity.key"), ".awp/identity.key", filepath.Join(b.inData, "identity.key"),
		filepath.Join(b.home, "secret"), filepath.Join(b.run, "secret"), marker,
		filepath.Join(b.outside, "secret.txt"),
	} {
		m := b.sh("cat "+p, nil)
		if m["exit"] == 0.0 || strings.Contains(str(m, "stdout"), dataSecret) || strings.Contains(str(m, "stdout"), secret) {
			t.Errorf("cat %s: %v", p, m)
		}
	}
	if m := b.sh("ls -A .awp "+b.home+" "+b.data, nil); m["exit"] != 0.0 || strings.TrimSpace(str(m, "stdout")) != strings.Join([]string{".awp:", "", b.data + ":", "", b.home + ":"}, "\n") {
		t.Errorf("hidden directories list %v", m)
	}
	// Writing outside the workspace fails (the system is read-only, /tmp
	// is the sandbox's own) and leaves nothing on the host.
	for _, p := range []string{filepath.Join(b.outside, "new"), filepath.Join(b.outside, "f.txt"), "/etc/awp-bwrap-test",
		filepath.Join(b.data, "new"), filepath.Join(b.home, "new")} {
		m := b.sh("echo PWNED > "+p, nil)
		if m["exit"] == 0.0 {
			if _, err := os.Stat(p); err == nil {
				t.Errorf("write %s reached the host: %v", p, m)
			}
		}
	}
	if m := b.sh("echo t > /tmp/x && cat /tmp/x", nil); str(m, "stdout") != "t\n" {
		t.Errorf("sandbox /tmp: %v", m)
	}
	if after := b.snapshot(); after != before {
		t.Errorf("outside changed:\n%s\n---\n%s", before, after)
	}
	if _, err := os.Stat("/etc/awp-bwrap-test"); err == nil {
		t.Error("/etc/awp-bwrap-test was created")
	}
	// The node's processes are not visible (own PID namespace).
	if m := b.sh(fmt.Sprintf("test -e /proc/%d", os.Getpid()), nil); m["exit"] != 1.0 {
		t.Errorf("the node's pid is visible: %v", m)
	}

	// Work in the workspace goes on as usual: a Makefile, go, files.
	b.file(filepath.Join(b.ws, "Makefile"), "test:\n\tgo version\n\tsh -c 'echo made > out && cat out'\n")
	m := b.sh("make test", nil)
	if m["exit"] != 0.0 || !strings.Contains(str(m, "stdout"), "go version go") || !strings.Contains(str(m, "stdout"), "made\n") {
		t.Fatalf("make test: %v", m)
	}
	if c, err := os.ReadFile(filepath.Join(b.ws, "out")); err != nil || string(c) != "made\n" {
		t.Errorf("out on the host: %q %v", c, err)
	}
	if m := b.sh("pwd -P", map[string]any{"cwd": "sub"}); str(m, "stdout") != filepath.Join(b.ws, "sub")+"\n" {
		t.Errorf("cwd: %v", m)
	}
}

func TestBwrapNetwork(t *testing.T) {
	b := newBwrapEnv(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			io.Copy(io.Discard, c)
			c.Close()
		}
	}()
	port := l.Addr().(*net.TCPAddr).Port
	dial := fmt.Sprintf("bash -c 'echo hi > /dev/tcp/127.0.0.1/%d'", port)
	if m := b.sh(dial, nil); m["exit"] != 0.0 {
		t.Errorf("network on by default: %v", m)
	}
	if m := b.sh(dial, map[string]any{"network": false}); m["exit"] == 0.0 {
		t.Errorf(`"network": false still reached the host: %v`, m)
	}
	b.r.NoNetwork = true
	if m := b.sh(dial, nil); m["exit"] == 0.0 {
		t.Errorf("NoNetwork still reached the host: %v", m)
	}
	if m := b.sh(dial, map[string]any{"network": true}); m["exit"] == 0.0 {
		t.Errorf(`"network": true widened NoNetwork: %v`, m)
	}
	// Unsandboxed, a request that asks for no network is refused, not
	// run with network.
	b.r.NoNetwork = false
	if err := b.r.SetSandbox(SandboxNone); err != nil {
		t.Fatal(err)
	}
	if m := b.sh("echo ran", map[string]any{"network": false}); str(m, "stdout") != "" || !strings.Contains(str(m, "error"), "needs the exec sandbox") {
		t.Errorf("unsandboxed network:false: %v", m)
	}
}

// procsWith lists the pids whose command line contains s.
func procsWith(s string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(string(b), s) && !gone(atoi(e.Name())) {
			out = append(out, e.Name())
		}
	}
	return out
}

func atoi(s string) int {
	n := 0
	fmt.Sscan(s, &n)
	return n
}

func waitGone(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := procsWith(marker)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes still running: %v", left)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A timeout kills everything the command started, even what left its
// process group (setsid): the PID namespace ends with it.
func TestBwrapTimeoutKillsAll(t *testing.T) {
	b := newBwrapEnv(t)
	n := time.Now().UnixNano() % 1000000
	a, c := fmt.Sprintf("1000.%d1", n), fmt.Sprintf("1000.%d2", n)
	m := b.sh(fmt.Sprintf("setsid sleep %s & sleep %s & echo started; echo warn >&2; sleep 1000", a, c), map[string]any{"timeout": 1})
	if m["exit"] != -1.0 || str(m, "error") != ErrTimeout || str(m, "stdout") != "started\n" || str(m, "stderr") != "warn\n" {
		t.Fatalf("result %v", m)
	}
	waitGone(t, "sleep\x00"+a)
	waitGone(t, "sleep\x00"+c)

	// After a normal exit the sandbox ends, and what ran in the
	// background with it.
	d := fmt.Sprintf("1000.%d3", n)
	m = b.sh(fmt.Sprintf("sleep %s & echo bg", d), nil)
	if m["exit"] != 0.0 || str(m, "stdout") != "bg\n" {
		t.Fatalf("result %v", m)
	}
	waitGone(t, "sleep\x00"+d)
	assertEmpty(t, b.tmp)
}

// Output rules hold under the sandbox: 64 KiB inline, the rest as blobs,
// invalid UTF-8 as U+FFFD inline and exact in the blob.
func TestBwrapBigOutput(t *testing.T) {
	b := newBwrapEnv(t)
	// The test binary is the helper; /tmp is the sandbox's own, so it runs
	// from a copy in the workspace.
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b.ws, "helper"), self, 0o755); err != nil {
		t.Fatal(err)
	}
	req := map[string]any{"cmd": []string{"./helper", "-test.run=^$"}, "env": map[string]string{"AWP_PROFILE_HELPER": "bigout"}}
	res, m := b.must(MimeExec, req, true)
	if m["exit"] != 3.0 || str(m, "error") != "" || m["stdout_truncated"] != true || m["stderr_truncated"] != true {
		t.Fatalf("result %v %v", m["exit"], m["error"])
	}
	var want strings.Builder
	for i := 0; want.Len() < bigSize; i++ {
		want.WriteString(bigLine(i))
	}
	if out := str(m, "stdout"); len(out) != InlineMax || out != want.String()[:InlineMax] {
		t.Errorf("inline stdout: %d bytes", len(out))
	}
	if se := str(m, "stderr"); len(se) > InlineMax || !utf8.ValidString(se) || !strings.Contains(se, "\uFFFD") {
		t.Errorf("inline stderr: %d bytes, valid %v", len(se), utf8.ValidString(se))
	}
	if len(res.Attachments) != 2 {
		t.Fatalf("attachments %+v", res.Attachments)
	}
	for _, a := range res.Attachments {
		sum := sha256.Sum256([]byte(want.String()))
		if a.Name == "stderr" {
			sum = sha256.Sum256(bigErr())
		}
		if a.Sha256 != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: sha %s", a.Name, a.Sha256)
		}
	}
	res.Remove()
	assertEmpty(t, b.tmp)
}

// A command the sandbox cannot start fails with an error, not a bare
// exit status.
func TestBwrapStartFailures(t *testing.T) {
	b := newBwrapEnv(t)
	for _, tc := range []struct {
		cmd []string
		err string
	}{
		{[]string{"awp-no-such-command"}, "executable file not found"},
		{[]string{"/nonexistent/awp-cmd"}, "sandbox: execvp /nonexistent/awp-cmd: No such file or directory"},
		{[]string{filepath.Join(b.home, "secret")}, "sandbox: execvp"},
	} {
		_, m := b.must(MimeExec, map[string]any{"cmd": tc.cmd}, false)
		if m["exit"] != -1.0 || !strings.Contains(str(m, "error"), tc.err) {
			t.Errorf("%v: %v, want error %q", tc.cmd, m, tc.err)
		}
	}
	// A command's own exit 1 is an exit status, not a sandbox failure.
	if m := b.sh("echo 'bwrap: not me' >&2; exit 1", nil); m["exit"] != 1.0 || str(m, "error") != "" {
		t.Errorf("exit 1: %v", m)
	}
}
