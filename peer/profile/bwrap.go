package profile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Exec sandbox modes (Runner.Sandbox, SetSandbox).
const (
	// SandboxAuto runs exec under bubblewrap when it works here, and
	// unsandboxed (logged, and said in the approval prompt) when it does
	// not. The default.
	SandboxAuto = "auto"
	// SandboxBwrap runs exec under bubblewrap or not at all: where it
	// cannot be used, an exec request fails with ErrNoSandbox.
	SandboxBwrap = "bwrap"
	// SandboxNone runs exec as the node's own user, unconfined.
	SandboxNone = "none"
)

// ErrNoSandbox starts the result error of an exec that SandboxBwrap
// refused to run because bubblewrap cannot be used here.
const ErrNoSandbox = "exec sandbox unavailable"

// probeTimeout bounds the one trial run of bubblewrap that decides whether
// it works here (it takes a few milliseconds; a hung one must not hang
// the node's start).
const probeTimeout = 10 * time.Second

// SandboxStatus says how exec runs (docs/profile.md "Exec sandbox").
type SandboxStatus struct {
	Mode      string `json:"mode"`             // what was asked: auto, bwrap or none
	Sandbox   string `json:"sandbox"`          // what exec runs under: "bwrap", or "none" (as the node's user)
	Network   bool   `json:"network"`          // a sandboxed exec has network
	Available bool   `json:"available"`        // bubblewrap works here
	Reason    string `json:"reason,omitempty"` // why it does not
}

// Unsandboxed says whether an exec runs unconfined, as the node's user.
func (s SandboxStatus) Unsandboxed() bool { return s.Sandbox == SandboxNone }

// CheckSandboxMode returns an error unless m is a sandbox mode ("" is
// SandboxAuto).
func CheckSandboxMode(m string) error {
	switch m {
	case "", SandboxAuto, SandboxBwrap, SandboxNone:
		return nil
	}
	return fmt.Errorf("exec sandbox %q: want auto, bwrap or none", m)
}

// SetSandbox changes the sandbox mode for the exec requests that start
// from now on (the tray's Settings switch); "" is SandboxAuto.
func (r *Runner) SetSandbox(mode string) error {
	if err := CheckSandboxMode(mode); err != nil {
		return err
	}
	if mode == "" {
		mode = SandboxAuto
	}
	r.mode.Store(&mode)
	return nil
}

func (r *Runner) sandboxMode() string {
	if m := r.mode.Load(); m != nil {
		return *m
	}
	if r.Sandbox == "" {
		return SandboxAuto
	}
	return r.Sandbox
}

// SandboxStatus says how an exec would run now. It may run bubblewrap
// once (cached for the process) to learn whether it works here.
func (r *Runner) SandboxStatus() SandboxStatus {
	st := SandboxStatus{Mode: r.sandboxMode(), Network: !r.NoNetwork}
	path, err := r.bwrapPath()
	if err == nil {
		err = probeBwrap(path)
	}
	st.Available = err == nil
	if err != nil {
		st.Reason = err.Error()
	}
	switch {
	case st.Mode == SandboxNone:
		st.Sandbox = SandboxNone
		st.Reason = "turned off"
	case st.Available || st.Mode == SandboxBwrap:
		st.Sandbox = SandboxBwrap
	default:
		st.Sandbox = SandboxNone
	}
	return st
}

func (r *Runner) bwrapPath() (string, error) {
	if !bwrapSupported {
		return "", errors.New("bubblewrap runs on Linux only")
	}
	name := r.Bwrap
	if name == "" {
		name = "bwrap"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", errors.New("bwrap not found (install bubblewrap)")
	}
	return p, nil
}

// probes caches, per bwrap path, whether a trial sandbox starts.
var probes sync.Map // string → *probe

type probe struct {
	once sync.Once
	err  error
}

// probeBwrap runs bwrap once with the namespaces exec uses (network
// included) and the command true. It fails where bubblewrap is installed
// but may not create namespaces (many containers).
func probeBwrap(path string) error {
	v, _ := probes.LoadOrStore(path, &probe{})
	p := v.(*probe)
	p.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
		defer cancel()
		args := append(bwrapNamespaces(true), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--", "true")
		out, err := exec.CommandContext(ctx, path, args...).CombinedOutput()
		if err != nil {
			msg := strings.TrimSpace(string(out))
			if msg == "" {
				msg = err.Error()
			}
			p.err = fmt.Errorf("bwrap cannot make a sandbox here: %s", truncate(msg, 200))
		}
	})
	return p.err
}

// bwrapNamespaces are the options every sandbox gets: its own PID, IPC,
// UTS and (when it can) cgroup namespaces, no capabilities, a session of
// its own (no TIOCSTI into the node's terminal), and death with the node;
// noNet adds a network namespace with only loopback.
func bwrapNamespaces(noNet bool) []string {
	a := []string{"--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
		"--unshare-cgroup-try", "--cap-drop", "ALL"}
	if noNet {
		a = append(a, "--unshare-net")
	}
	return a
}

// statusExitCode says whether bwrap's --json-status-fd output reports the
// command's exit: it does only when the command started.
func statusExitCode(f *os.File) bool {
	b := make([]byte, 4096)
	n, _ := f.ReadAt(b, 0)
	return strings.Contains(string(b[:n]), `"exit-code"`)
}

// under says whether the path p is dir or inside it (both clean and
// absolute).
func under(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}
