package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/awp-tray/awp-tray/internal/service"
)

// awpEnv runs awp with an environment of its own.
func awpEnv(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = runMain(context.Background(), args, &o, &e, func(k string) string { return env[k] })
	return code, o.String(), e.String()
}

// serviceEnv is a temporary config home and data directory, with PATH
// holding only a fake systemctl (state "" for none).
func serviceEnv(t *testing.T, state string) (env map[string]string, unit, log string) {
	t.Helper()
	cfg, data := t.TempDir(), t.TempDir()
	bin := t.TempDir()
	log = filepath.Join(bin, "calls")
	if state != "" {
		script := "#!/bin/sh\necho \"$*\" >> " + log + "\ncase \"$2\" in\n" +
			"is-system-running) echo " + state + ";;\nis-active) echo inactive; exit 3;;\nesac\n"
		if err := os.WriteFile(filepath.Join(bin, "systemctl"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	return map[string]string{"XDG_CONFIG_HOME": cfg, "AWP_DATA": data}, filepath.Join(cfg, "systemd", "user", service.UnitName), log
}

func TestServiceInstallWithoutManager(t *testing.T) {
	env, unit, _ := serviceEnv(t, "")
	ws := t.TempDir()
	code, out, errs := awpEnv(t, env, "service", "install", "--workspace", ws, "--listen", "tcp://127.0.0.1:7001",
		"--listen", "unix:///tmp/a b.sock", "--name", "build box", "--warm-buffers=false", "--approval-timeout", "2m", "--approve", "ask")
	if code != exitOK || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if !strings.Contains(out, "wrote "+unit+"\nno systemd user manager runs here (systemctl is not installed)") ||
		!strings.Contains(out, "systemctl --user enable --now awp.service") {
		t.Errorf("stdout:\n%s", out)
	}
	b, err := os.ReadFile(unit)
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	exe, _ = filepath.EvalSymlinks(exe)
	// The flags as given, the data directory and workspace absolute, in
	// the unit's quoting.
	want := "ExecStart=" + exe + " run --data " + env["AWP_DATA"] + " --workspace " + ws +
		" --approval-timeout 2m --approve ask --listen tcp://127.0.0.1:7001 --listen \"unix:///tmp/a b.sock\" --name \"build box\" --warm-buffers=false\n"
	if !strings.Contains(string(b), want) || !strings.Contains(string(b), "WorkingDirectory="+ws+"\n") {
		t.Errorf("unit:\n%s\nwant the line\n%s", b, want)
	}
	if sa, err := exec.LookPath("/usr/bin/systemd-analyze"); err == nil {
		cmd := exec.Command(sa, "--user", "verify", unit)
		cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+t.TempDir())
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Errorf("systemd-analyze verify: %v\n%s", err, out)
		}
	}
	// print shows the same unit; uninstall removes it.
	if code, out, _ := awpEnv(t, env, "service", "print", "--workspace", ws, "--listen", "tcp://127.0.0.1:7001",
		"--listen", "unix:///tmp/a b.sock", "--name", "build box", "--warm-buffers=false", "--approval-timeout", "2m", "--approve", "ask"); code != exitOK || out != string(b) {
		t.Errorf("print: exit %d\n%s", code, out)
	}
	if code, out, errs := awpEnv(t, env, "service", "uninstall"); code != exitOK || !strings.Contains(out, "removed "+unit) {
		t.Errorf("uninstall: exit %d %q %q", code, out, errs)
	}
	if _, err := os.Stat(unit); !os.IsNotExist(err) {
		t.Error("unit still there")
	}
	if code, out, _ := awpEnv(t, env, "service", "uninstall"); code != exitOK || !strings.Contains(out, "nothing to remove") {
		t.Errorf("second uninstall: exit %d %q", code, out)
	}
}

func TestServiceInstallWithManager(t *testing.T) {
	env, unit, log := serviceEnv(t, "running")
	code, out, errs := awpEnv(t, env, "service", "install", "--workspace", t.TempDir())
	if code != exitOK || errs != "" || !strings.Contains(out, "enabled and started awp.service") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	b, _ := os.ReadFile(log)
	if got := strings.TrimSpace(string(b)); got != "--user is-system-running\n--user daemon-reload\n--user enable --now awp.service" {
		t.Errorf("systemctl calls:\n%s", got)
	}
	if _, err := os.Stat(unit); err != nil {
		t.Fatal(err)
	}
	os.Remove(log)
	if code, out, _ := awpEnv(t, env, "service", "uninstall"); code != exitOK || !strings.Contains(out, "stopped, disabled and removed") {
		t.Errorf("uninstall: exit %d %q", code, out)
	}
	b, _ = os.ReadFile(log)
	if !strings.Contains(string(b), "--user disable --now awp.service") {
		t.Errorf("uninstall calls:\n%s", b)
	}
}

// With the identity in DATA/identity.key and no --keyring, the unit runs
// with --keyring file (keyring mode would refuse that identity).
func TestServiceKeyFile(t *testing.T) {
	env, unit, _ := serviceEnv(t, "")
	if err := os.WriteFile(filepath.Join(env["AWP_DATA"], "identity.key"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := awpEnv(t, env, "service", "install"); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if b, _ := os.ReadFile(unit); !strings.Contains(string(b), " --keyring file\n") {
		t.Errorf("unit:\n%s", b)
	}
	// An explicit --keyring wins.
	if code, _, errs := awpEnv(t, env, "service", "install", "--keyring", "keyring"); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if b, _ := os.ReadFile(unit); !strings.Contains(string(b), " --keyring keyring\n") || strings.Contains(string(b), "--keyring file") {
		t.Errorf("unit:\n%s", b)
	}
}

// A peer already answering on the data directory (the tray app, say) and
// not started by the unit: installing would start a second one that
// fails; install refuses and writes nothing.
func TestServiceRefusesRunningPeer(t *testing.T) {
	env, unit, _ := serviceEnv(t, "running")
	l, err := net.Listen("unix", filepath.Join(env["AWP_DATA"], "awp.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	code, _, errs := awpEnv(t, env, "service", "install")
	if code != exitFail || !strings.Contains(errs, "a peer already runs on "+env["AWP_DATA"]) {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(unit); !os.IsNotExist(err) {
		t.Error("unit written anyway")
	}
}

func TestServiceUsage(t *testing.T) {
	env, _, _ := serviceEnv(t, "")
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"service"}, "missing install, uninstall or print"},
		{[]string{"service", "start"}, `unknown action "start"`},
		{[]string{"service", "install", "extra"}, `unexpected argument "extra"`},
		{[]string{"service", "uninstall", "--name", "x"}, "uninstall takes no run flags (--name)"},
		{[]string{"service", "install", "--accept", "everyone"}, `--accept "everyone"`},
	} {
		code, _, errs := awpEnv(t, env, tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want usage error with %q", tc.args, code, errs, tc.msg)
		}
	}
}
