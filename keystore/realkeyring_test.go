//go:build linux

package keystore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/awp-tray/awp-tray/internal/procstat"
)

// realInnerEnv tells TestRealKeyringInner that TestRealKeyring started it
// inside a private session bus with an unlocked gnome-keyring.
const realInnerEnv = "AWP_KEYSTORE_REAL_KEYRING_INNER"

// realMarker is printed by the inner test when every check passed.
const realMarker = "REAL-KEYRING-OK"

// TestRealKeyring runs TestRealKeyringInner against a real Secret Service:
// a fresh gnome-keyring, unlocked with a throwaway password, on a private
// session bus (dbus-run-session), with HOME and the XDG directories in a
// temporary directory, so the user's own keyring is never touched.
func TestRealKeyring(t *testing.T) {
	for _, tool := range []string{"dbus-run-session", "gnome-keyring-daemon"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (Debian: apt-get install dbus gnome-keyring libsecret-tools)", tool)
		}
	}
	tmp := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), realInnerEnv + "=1"}
	for _, v := range []string{"HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR", "TMPDIR"} {
		d := filepath.Join(tmp, strings.ToLower(v))
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		env = append(env, v+"="+d)
	}
	// The shell unlocks (and so starts) gnome-keyring with the password on
	// stdin, takes the variables it prints, and runs the inner test.
	script := `set -e
eval "$(printf pw | gnome-keyring-daemon --unlock --components=secrets)"
exec "$0" -test.run='^TestRealKeyringInner$' -test.v -test.count=1`
	// A safety net against a hang, not an assertion about time.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "dbus-run-session", "--", "sh", "-c", script, os.Args[0])
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	home := filepath.Join(tmp, "home")
	t.Cleanup(func() { killDaemons(t, home) })
	err := cmd.Run()
	t.Logf("inner test output:\n%s", out.String())
	killDaemons(t, home)
	if err != nil {
		t.Fatalf("inner test: %v", err)
	}
	if !strings.Contains(out.String(), "--- PASS: TestRealKeyringInner") || !strings.Contains(out.String(), realMarker) {
		t.Fatalf("inner test did not pass (no %q marker)", realMarker)
	}
}

// killDaemons makes sure no gnome-keyring-daemon started for this test
// outlives it: the inner test stops the one it used, and a daemon normally
// exits with its bus, but one that was still starting when the bus went away
// stays. They are found by their HOME, which is this test's own temporary
// directory, so no other gnome-keyring is touched.
func killDaemons(t *testing.T, home string) {
	for _, pid := range daemonsWithHome(home) {
		if err := syscall.Kill(pid, syscall.SIGKILL); err == nil {
			t.Logf("killed gnome-keyring-daemon %d", pid)
		}
	}
	// SIGKILL is delivered asynchronously: wait (bounded, as a safety net)
	// until none is left running.
	for i := 0; i < 500; i++ {
		if len(daemonsWithHome(home)) == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("gnome-keyring-daemon still running with HOME=%s: %v", home, daemonsWithHome(home))
}

// daemonsWithHome lists the running (not zombie) gnome-keyring-daemon
// processes whose environment has HOME=home.
func daemonsWithHome(home string) []int {
	var pids []int
	for _, pid := range procstat.Pids() {
		comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if err != nil || !strings.HasPrefix(string(comm), "gnome-keyring") {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// The state follows the parenthesized command name.
		if k := bytes.LastIndexByte(stat, ')'); k < 0 || k+2 >= len(stat) || stat[k+2] == 'Z' || stat[k+2] == 'X' {
			continue
		}
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil {
			continue
		}
		for _, v := range bytes.Split(env, []byte{0}) {
			if string(v) == "HOME="+home {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

func TestRealKeyringInner(t *testing.T) {
	if os.Getenv(realInnerEnv) != "1" {
		t.Skip("run by TestRealKeyring inside dbus-run-session")
	}
	if _, err := exec.LookPath("secret-tool"); err != nil {
		t.Fatal("secret-tool is not installed (Debian: apt-get install libsecret-tools)")
	}
	stopDaemonAtEnd(t)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data")

	s1, err := Open(Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	k, created, err := s1.LoadOrCreate(ctx)
	if err != nil || !created {
		t.Fatalf("LoadOrCreate: created %v, %v", created, err)
	}
	k2, created, err := mustOpen(t, dir).LoadOrCreate(ctx)
	if err != nil || created || k2.Public() != k.Public() {
		t.Fatalf("second LoadOrCreate: created %v, %v; want the same key", created, err)
	}

	// The entry, seen by another client: service awp, username the data
	// directory, the pinned text form.
	if got := secretTool(t, "lookup", "service", "awp", "username", dir); got != FormatSecret(k) {
		t.Fatalf("secret-tool lookup does not give the secret form (%d bytes)", len(got))
	}
	if got := secretTool(t, "search", "service", "awp"); !strings.Contains(got, "attribute.username = "+dir) {
		t.Fatalf("secret-tool search service awp does not list the entry:\n%s", got)
	}

	// A garbage entry put there by someone else is reported and kept.
	bad := filepath.Join(t.TempDir(), "bad")
	secretToolStore(t, "hunter2", "service", "awp", "username", bad)
	if _, _, err := mustOpen(t, bad).LoadOrCreate(ctx); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("LoadOrCreate over a garbage entry: %v, want ErrCorrupt", err)
	}
	if got := secretTool(t, "lookup", "service", "awp", "username", bad); got != "hunter2" {
		t.Fatal("the garbage entry was overwritten")
	}

	// Out to the key file and back.
	file, err := Open(Options{DataDir: dir, Mode: ModeFile})
	if err != nil {
		t.Fatal(err)
	}
	if err := MoveTo(ctx, s1, file); err != nil {
		t.Fatal(err)
	}
	if _, err := s1.Load(ctx); !errors.Is(err, ErrNotFound) {
		t.Fatalf("keyring after the move out: %v, want ErrNotFound", err)
	}
	if err := MoveTo(ctx, file, s1); err != nil {
		t.Fatal(err)
	}
	if got, err := s1.Load(ctx); err != nil || got.Public() != k.Public() {
		t.Fatalf("keyring after the move back: %v", err)
	}

	// Delete it; then it is gone for us and for secret-tool.
	if err := s1.remove(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s1.Load(ctx); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Load after delete: %v, want ErrNotFound", err)
	}
	if got := secretTool(t, "search", "service", "awp"); strings.Contains(got, "attribute.username = "+dir+"\n") {
		t.Fatalf("the entry is still there:\n%s", got)
	}
	if !t.Failed() {
		fmt.Println(realMarker)
	}
}

func mustOpen(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// secretTool runs secret-tool and returns its stdout.
func secretTool(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command("secret-tool", args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil && args[0] != "search" {
		t.Fatalf("secret-tool %s: %v: %s", strings.Join(args, " "), err, errb.String())
	}
	// search prints the attributes on stderr with some libsecret versions.
	return out.String() + errb.String()
}

func secretToolStore(t *testing.T, secret string, attrs ...string) {
	t.Helper()
	cmd := exec.Command("secret-tool", append([]string{"store", "--label=test"}, attrs...)...)
	cmd.Stdin = strings.NewReader(secret)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("secret-tool store: %v: %s", err, out)
	}
}

// stopDaemonAtEnd waits until gnome-keyring-daemon owns the Secret Service
// name on this bus (it daemonizes before it has taken it), and stops it when
// the test ends.
func stopDaemonAtEnd(t *testing.T) {
	conn, err := dbus.SessionBusPrivateNoAutoStartup()
	if err != nil {
		t.Fatalf("connecting to the test bus: %v", err)
	}
	defer conn.Close()
	if err = conn.Auth(nil); err == nil {
		err = conn.Hello()
	}
	if err == nil {
		err = conn.AddMatchSignal(dbus.WithMatchInterface("org.freedesktop.DBus"),
			dbus.WithMatchMember("NameOwnerChanged"), dbus.WithMatchArg(0, secretsName))
	}
	if err != nil {
		t.Fatalf("connecting to the test bus: %v", err)
	}
	changed := make(chan *dbus.Signal, 16)
	conn.Signal(changed)
	// A safety net against a daemon that never comes up, not a timing check.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		var owned bool
		if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, secretsName).Store(&owned); err != nil {
			t.Fatalf("NameHasOwner: %v", err)
		}
		if owned {
			break
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("gnome-keyring-daemon did not take %s on the test bus", secretsName)
		}
	}
	var pid uint32
	if err := conn.BusObject().Call("org.freedesktop.DBus.GetConnectionUnixProcessID", 0, secretsName).Store(&pid); err != nil {
		t.Fatalf("finding the Secret Service on the test bus: %v", err)
	}
	t.Logf("gnome-keyring-daemon pid %d", pid)
	t.Cleanup(func() { _ = syscall.Kill(int(pid), syscall.SIGTERM) })
}
