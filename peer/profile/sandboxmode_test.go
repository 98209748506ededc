//go:build unix

package profile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Where bubblewrap is missing, "bwrap" refuses to run exec at all, and
// "auto" runs it unsandboxed and says so.
func TestSandboxMissing(t *testing.T) {
	e := newEnv(t)
	e.r.Sandbox = SandboxBwrap
	e.r.Bwrap = "/nonexistent/bwrap"
	st := e.r.SandboxStatus()
	if st.Mode != SandboxBwrap || st.Sandbox != SandboxBwrap || st.Available || !strings.Contains(st.Reason, "not found") || st.Unsandboxed() {
		t.Fatalf("status %+v", st)
	}
	_, m := e.must(MimeExec, map[string]any{"cmd": "echo ran > marker"}, false)
	if !strings.HasPrefix(str(m, "error"), ErrNoSandbox) || m["exit"] != -1.0 {
		t.Errorf("strict bwrap without bwrap: %v", m)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "marker")); err == nil {
		t.Fatal("the command ran unsandboxed")
	}
	assertEmpty(t, e.tmp)

	if err := e.r.SetSandbox(""); err != nil {
		t.Fatal(err)
	}
	st = e.r.SandboxStatus()
	if st.Mode != SandboxAuto || st.Sandbox != SandboxNone || !st.Unsandboxed() || st.Reason == "" {
		t.Fatalf("auto status %+v", st)
	}
	if _, m := e.must(MimeExec, map[string]any{"cmd": "echo ran"}, false); str(m, "stdout") != "ran\n" {
		t.Errorf("auto without bwrap: %v", m)
	}
	if err := e.r.SetSandbox("chroot"); err == nil {
		t.Error("SetSandbox(chroot) accepted")
	}
	if err := e.r.SetSandbox(SandboxNone); err != nil || e.r.SandboxStatus().Sandbox != SandboxNone {
		t.Errorf("none: %v %+v", err, e.r.SandboxStatus())
	}
}
