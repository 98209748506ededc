//go:build unix

package profile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

func TestExecBasics(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name   string
		req    map[string]any
		exit   float64
		stdout string
		stderr string
		errSub string
	}{
		{name: "argv", req: map[string]any{"cmd": []string{"echo", "a b", "$HOME"}}, stdout: "a b $HOME\n"},
		{name: "string via sh", req: map[string]any{"cmd": "echo $((1+2)); echo err >&2; exit 7"}, exit: 7, stdout: "3\n", stderr: "err\n"},
		{name: "cwd", req: map[string]any{"cmd": []string{"cat", "f.txt"}, "cwd": "sub"}, stdout: "inside sub"},
		{name: "stdin", req: map[string]any{"cmd": []string{"sh", "-c", "cat; echo; cat"}, "stdin": "hello\nworld"}, stdout: "hello\nworld\n"},
		{name: "no stdin is empty", req: map[string]any{"cmd": []string{"cat"}}, stdout: ""},
		{name: "env added to base", req: map[string]any{"cmd": "echo $BASE $X", "env": map[string]string{"X": "y z"}}, stdout: "1 y z\n"},
		{name: "env overrides base", req: map[string]any{"cmd": "echo $BASE", "env": map[string]string{"BASE": "2"}}, stdout: "2\n"},
		{name: "base env only", req: map[string]any{"cmd": "echo ${HOME-unset}"}, stdout: "unset\n"},
		{name: "not found", req: map[string]any{"cmd": []string{"/nonexistent/awp-cmd"}}, exit: -1, errSub: "no such file"},
		{name: "not in PATH", req: map[string]any{"cmd": []string{"awp-no-such-command"}}, exit: -1, errSub: "not found"},
		{name: "signal", req: map[string]any{"cmd": "kill -TERM $$"}, exit: -1, errSub: "signal: terminated"},
		{name: "relative argv0 runs in cwd", req: map[string]any{"cmd": []string{"./run.sh"}, "cwd": "sub"}, stdout: "ran\n"},
		{name: "grant fields ignored", req: map[string]any{"cmd": []string{"true"}, "grant": map[string]any{"x": 1}, "grants": []any{}}},
	}
	if err := os.WriteFile(filepath.Join(e.ws, "sub", "run.sh"), []byte("#!/bin/sh\necho ran\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, m := e.must(MimeExec, tc.req, true)
			if m["exit"] != tc.exit || str(m, "stdout") != tc.stdout || str(m, "stderr") != tc.stderr {
				t.Errorf("got %v", m)
			}
			if !strings.Contains(str(m, "error"), tc.errSub) || (tc.errSub == "" && str(m, "error") != "") {
				t.Errorf("error %q, want %q", str(m, "error"), tc.errSub)
			}
			if m["stdout_truncated"] != false || m["stderr_truncated"] != false || len(res.Attachments) != 0 {
				t.Errorf("truncated/attachments: %v %v", m, res.Attachments)
			}
			if _, ok := m["duration_ms"].(float64); !ok {
				t.Errorf("duration_ms missing: %v", m)
			}
		})
	}
	assertEmpty(t, e.tmp)
}

// TestExecTimeoutKillsGroup: a command that starts a background sleep and
// then waits is killed on timeout with its grandchild.
func TestExecTimeoutKillsGroup(t *testing.T) {
	e := newEnv(t)
	res, m := e.must(MimeExec, map[string]any{
		"cmd":     "sleep 1000 & echo $! > pid; echo started; echo warn >&2; sleep 1000",
		"timeout": 1,
	}, true)
	if m["exit"] != -1.0 || str(m, "error") != ErrTimeout || str(m, "stdout") != "started\n" || str(m, "stderr") != "warn\n" {
		t.Fatalf("result %v", m)
	}
	if len(res.Attachments) != 0 {
		t.Errorf("attachments %v", res.Attachments)
	}
	b, err := os.ReadFile(filepath.Join(e.ws, "pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	// SIGKILL was sent to the group before Handle returned; the kernel
	// finishes the kill asynchronously, so wait for it (a zombie counts as
	// gone: the test's PID 1 may not reap orphans).
	deadline := time.Now().Add(10 * time.Second)
	for !gone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %d still running after the timeout", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return runtime.GOOS == "linux" // no /proc entry: gone
	}
	// Field 3, after "(comm)", is the state.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && len(s) > i+2 && (s[i+2] == 'Z' || s[i+2] == 'X')
}

// TestExecBigOutput: 10 MiB of stdout arrives whole as an attachment, the
// inline part is cut at 65,536 bytes, and the output was never held in
// memory.
func TestExecBigOutput(t *testing.T) {
	e := newEnv(t)
	req := map[string]any{
		"cmd": []string{os.Args[0], "-test.run=^$"},
		"env": map[string]string{"AWP_PROFILE_HELPER": "bigout"},
	}
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	res, m := e.must(MimeExec, req, true)
	runtime.ReadMemStats(&ms1)
	alloc := ms1.TotalAlloc - ms0.TotalAlloc
	t.Logf("Handle allocated %d bytes", alloc)
	if alloc > 4<<20 {
		t.Errorf("Handle allocated %d bytes for 10 MiB of output", alloc)
	}
	if m["exit"] != 3.0 || str(m, "error") != "" || m["stdout_truncated"] != true || m["stderr_truncated"] != true {
		t.Fatalf("result %v", m["exit"])
	}

	// Inline stdout: exactly the first 65,536 bytes (ASCII).
	var want strings.Builder
	for i := 0; want.Len() < bigSize; i++ {
		want.WriteString(bigLine(i))
	}
	if out := str(m, "stdout"); len(out) != InlineMax || out != want.String()[:InlineMax] {
		t.Errorf("inline stdout: %d bytes", len(out))
	}
	// Inline stderr: valid UTF-8, at most 65,536 bytes, invalid bytes as U+FFFD.
	se := str(m, "stderr")
	if len(se) > InlineMax || len(se) < InlineMax-3 || !utf8.ValidString(se) || !strings.Contains(se, "\uFFFD") {
		t.Errorf("inline stderr: %d bytes, valid %v", len(se), utf8.ValidString(se))
	}
	if !strings.HasPrefix(se, string(bigErr()[:128])) {
		t.Error("inline stderr does not start with the ASCII bytes as they are")
	}

	if len(res.Attachments) != 2 {
		t.Fatalf("attachments %+v", res.Attachments)
	}
	sum := sha256.Sum256([]byte(want.String()))
	errSum := sha256.Sum256(bigErr())
	for _, a := range res.Attachments {
		wantSize, wantSum := int64(bigSize), hex.EncodeToString(sum[:])
		if a.Name == "stderr" {
			wantSize, wantSum = int64(len(bigErr())), hex.EncodeToString(errSum[:])
		} else if a.Name != "stdout" {
			t.Errorf("attachment name %q", a.Name)
		}
		st, err := os.Stat(a.Path)
		if err != nil || st.Size() != wantSize || a.Size != wantSize || a.Sha256 != wantSum {
			t.Errorf("%s: size %d/%v sha %s, want %d %s", a.Name, a.Size, err, a.Sha256, wantSize, wantSum)
		}
		if filepath.Dir(a.Path) != e.tmp {
			t.Errorf("attachment outside TempDir: %s", a.Path)
		}
		f, _ := os.Open(a.Path)
		got, _, _ := hashFile(f)
		f.Close()
		if got != wantSum {
			t.Errorf("%s: file sha %s", a.Name, got)
		}
	}
	res.Remove()
	assertEmpty(t, e.tmp)

	// Without blob support: truncated inline, no attachments, no files left.
	res, m = e.must(MimeExec, req, false)
	if m["stdout_truncated"] != true || len(res.Attachments) != 0 || len(str(m, "stdout")) != InlineMax {
		t.Errorf("no blobs: %v attachments %d", m["stdout_truncated"], len(res.Attachments))
	}
	assertEmpty(t, e.tmp)
}
