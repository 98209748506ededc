package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/awp-tray/awp-tray/peer/localapi/localapitest"
	"github.com/awp-tray/awp-tray/peer/profile"
)

// `awp run` warns on stderr when the workspace is / (or home), defaults
// to presence peers, and `awp sandbox` shows and sets how exec runs, a
// choice the next start keeps.
func TestRunWorkspaceWarningAndSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs a peer")
	}
	dir := localapitest.ShortTempDir(t)
	p := startPeer(t, "root-ws", dir, "--workspace", "/")
	p.mu.Lock()
	logs := p.log.String()
	p.mu.Unlock()
	if !strings.Contains(logs, "level=WARN msg=\"the workspace is /") {
		t.Fatalf("no warning for workspace /:\n%s", logs)
	}
	if got := strings.TrimSpace(cli(t, "presence", "--data", dir, "detail")); got != "peers" {
		t.Fatalf("presence detail %q, want peers", got)
	}
	st := decodeJSON[profile.SandboxStatus](t, cli(t, "sandbox", "--data", dir, "--json"))
	if st.Mode != profile.SandboxAuto || (st.Available != (st.Sandbox == profile.SandboxBwrap)) {
		t.Fatalf("sandbox status %+v", st)
	}
	if !st.Available && !strings.Contains(logs, "exec runs unsandboxed as you") {
		t.Errorf("bwrap unavailable and not logged:\n%s", logs)
	}
	if out := cli(t, "sandbox", "--data", dir, "none"); !strings.HasPrefix(out, "none: exec runs unsandboxed as you") {
		t.Fatalf("sandbox none printed %q", out)
	}
	if _, code, _ := cliCode(t, "sandbox", "--data", dir, "chroot"); code != 2 {
		t.Fatalf("sandbox chroot: exit %d, want 2", code)
	}
	cli(t, "presence", "--data", dir, "detail", "full")
	p.stop(t)
	startPeer(t, "root-ws", dir, "--workspace", t.TempDir())
	if st := decodeJSON[profile.SandboxStatus](t, cli(t, "sandbox", "--data", dir, "--json")); st.Mode != profile.SandboxNone {
		t.Fatalf("after restart: %+v, want the stored none", st)
	}
	if got := strings.TrimSpace(cli(t, "presence", "--data", dir, "detail")); got != "full" {
		t.Fatalf("after restart presence %q, want the stored full", got)
	}
}

// `awp run --exec-sandbox bwrap` where bubblewrap cannot be found does not
// start: it would refuse every exec.
func TestRunExecSandboxBwrapMissing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	cmd := exec.Command(awpBinary(t), "run", "--keyring", "file", "--data", localapitest.ShortTempDir(t), "--exec-sandbox", "bwrap")
	cmd.Env = append(os.Environ(), "AWP_DATA=", "AWP_KEYRING=", "PATH=/nonexistent")
	var e bytes.Buffer
	cmd.Stderr = &e
	err := cmd.Run()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1 || !strings.Contains(e.String(), "--exec-sandbox bwrap: bwrap not found") {
		t.Fatalf("exit %v, stderr %q", err, e.String())
	}
}
