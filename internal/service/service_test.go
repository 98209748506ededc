package service

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeSystemctl writes a systemctl that logs its arguments, one call per
// line, and answers is-system-running with state and is-active with
// active; it returns its path and the log's.
func fakeSystemctl(t *testing.T, state, active string) (path, log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "calls")
	path = filepath.Join(dir, "systemctl")
	script := "#!/bin/sh\necho \"$*\" >> " + log + "\ncase \"$2\" in\n" +
		"is-system-running) echo " + state + "; [ " + state + " = running ];;\n" +
		"is-active) echo " + active + "; [ " + active + " = active ];;\nesac\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, log
}

func calls(t *testing.T, log string) []string {
	t.Helper()
	b, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func TestUnitText(t *testing.T) {
	u := Unit{Exec: "/opt/awp/awp", Args: []string{"--data", "/home/me/my data", "--name", `50% "$HOME"`, "--listen", "tcp://127.0.0.1:7001"}, WorkingDirectory: "/home/me/src", Version: "0.1.0"}
	got := u.String()
	for _, want := range []string{
		"\n[Unit]\nDescription=AWP peer (awp run)\n",
		"\n[Service]\nType=exec\n",
		"\nExecStart=/opt/awp/awp run --data \"/home/me/my data\" --name \"50%% \\\"$$HOME\\\"\" --listen tcp://127.0.0.1:7001\n",
		"\nWorkingDirectory=/home/me/src\n",
		"\nRestart=on-failure\n",
		"\n[Install]\nWantedBy=default.target\n",
		"(awp 0.1.0)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("unit lacks %q:\n%s", want, got)
		}
	}
}

// TestUnitVerifies runs systemd-analyze verify on units with awkward
// arguments; it fails on bad quoting, an unknown setting or a program
// that is not there.
func TestUnitVerifies(t *testing.T) {
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed (apt-get install systemd)")
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, "my bin", "awp")
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, u := range []Unit{
		{Exec: exe, Args: []string{"--data", "/tmp/a b", "--name", `it's "50%" $x \ ;`}, WorkingDirectory: dir},
		{Exec: exe, WorkingDirectory: "%h"}, // a package's unit
	} {
		path := filepath.Join(dir, "u"+string(rune('0'+i)), UnitName)
		if err := writeAtomic(path, []byte(u.String())); err != nil {
			t.Fatal(err)
		}
		verify(t, sa, path)
	}
	// The check bites: the same unit with an unbalanced quote fails.
	bad := filepath.Join(dir, "bad", UnitName)
	text := strings.Replace(Unit{Exec: exe, Args: []string{"a b"}}.String(), `"a b"`, `"a b`, 1)
	if err := writeAtomic(bad, []byte(text)); err != nil {
		t.Fatal(err)
	}
	if out, err := verifyRun(t, sa, bad); err == nil && out == "" {
		t.Error("systemd-analyze verify accepts an unbalanced quote")
	}
}

func verifyRun(t *testing.T, sa, path string) (string, error) {
	rt := t.TempDir()
	cmd := exec.Command(sa, "--user", "verify", path)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+rt)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func verify(t *testing.T, sa, path string) {
	t.Helper()
	out, err := verifyRun(t, sa, path)
	if err != nil || out != "" {
		b, _ := os.ReadFile(path)
		t.Errorf("systemd-analyze --user verify: %v\n%s\nunit:\n%s", err, out, b)
	}
}

func TestDir(t *testing.T) {
	env := map[string]string{"XDG_CONFIG_HOME": "/cfg", "HOME": "/home/me"}
	get := func(k string) string { return env[k] }
	if d, _ := Dir(get); d != "/cfg/systemd/user" {
		t.Errorf("Dir = %q", d)
	}
	env["XDG_CONFIG_HOME"] = "relative" // ignored, as the XDG spec says
	if d, _ := Dir(get); d != "/home/me/.config/systemd/user" {
		t.Errorf("Dir = %q", d)
	}
}

func TestInstallWithManager(t *testing.T) {
	sc, log := fakeSystemctl(t, "running", "inactive")
	dir := filepath.Join(t.TempDir(), "systemd", "user")
	u := Unit{Exec: "/usr/bin/awp", Args: []string{"--data", "/d"}}
	r, err := Install(context.Background(), dir, u, Systemctl{Path: sc})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Changed || !r.Managed || r.Path != filepath.Join(dir, UnitName) {
		t.Errorf("result %+v", r)
	}
	if b, _ := os.ReadFile(r.Path); string(b) != u.String() {
		t.Errorf("file:\n%s", b)
	}
	if st, _ := os.Stat(r.Path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
	want := []string{"--user is-system-running", "--user daemon-reload", "--user enable --now awp.service"}
	if got := calls(t, log); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("calls %q, want %q", got, want)
	}
	// The same again: nothing written, enabled and started as before.
	os.Remove(log)
	if r, err = Install(context.Background(), dir, u, Systemctl{Path: sc}); err != nil || r.Changed {
		t.Fatalf("again: %+v %v", r, err)
	}
	if got := calls(t, log); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("again: calls %q", got)
	}
	// New flags: written, and the running unit restarted to take them.
	os.Remove(log)
	u.Args = append(u.Args, "--name", "box")
	if r, err = Install(context.Background(), dir, u, Systemctl{Path: sc}); err != nil || !r.Changed {
		t.Fatalf("changed: %+v %v", r, err)
	}
	want = []string{"--user is-system-running", "--user daemon-reload", "--user enable awp.service", "--user restart awp.service"}
	if got := calls(t, log); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("changed: calls %q, want %q", got, want)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("unit dir holds %d files, want 1 (no temporary files left)", len(ents))
	}

	os.Remove(log)
	r, err = Uninstall(context.Background(), dir, Systemctl{Path: sc})
	if err != nil || !r.Changed || !r.Managed {
		t.Fatalf("uninstall: %+v %v", r, err)
	}
	if _, err := os.Stat(r.Path); !os.IsNotExist(err) {
		t.Error("unit file still there")
	}
	want = []string{"--user is-system-running", "--user disable --now awp.service", "--user daemon-reload"}
	if got := calls(t, log); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("uninstall: calls %q, want %q", got, want)
	}
	// Uninstalling what is not there says so and calls nothing but the probe.
	os.Remove(log)
	if r, err = Uninstall(context.Background(), dir, Systemctl{Path: sc}); err != nil || r.Changed {
		t.Errorf("second uninstall: %+v %v", r, err)
	}
	if got := calls(t, log); len(got) != 1 {
		t.Errorf("second uninstall: calls %q", got)
	}
}

func TestInstallWithoutManager(t *testing.T) {
	for _, tc := range []struct {
		name string
		sc   func(t *testing.T) Systemctl
		why  string
	}{
		{"no systemctl", func(t *testing.T) Systemctl { return Systemctl{Path: ""} }, "systemctl is not installed"},
		{"offline", func(t *testing.T) Systemctl {
			p, _ := fakeSystemctl(t, "offline", "inactive")
			return Systemctl{Path: p}
		}, "systemctl --user: offline"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "no systemctl" {
				t.Setenv("PATH", t.TempDir())
			}
			dir := filepath.Join(t.TempDir(), "systemd", "user")
			r, err := Install(context.Background(), dir, Unit{Exec: "/usr/bin/awp"}, tc.sc(t))
			if err != nil {
				t.Fatal(err)
			}
			if !r.Changed || r.Managed || r.Why != tc.why {
				t.Errorf("result %+v, want why %q", r, tc.why)
			}
			if _, err := os.Stat(r.Path); err != nil {
				t.Errorf("unit not written: %v", err)
			}
			if r, err = Uninstall(context.Background(), dir, tc.sc(t)); err != nil || !r.Changed {
				t.Errorf("uninstall: %+v %v", r, err)
			}
		})
	}
}

func TestInstallRejectsRelativeExec(t *testing.T) {
	if _, err := Install(context.Background(), t.TempDir(), Unit{Exec: "awp"}, Systemctl{}); err == nil {
		t.Error("relative Exec accepted")
	}
}
