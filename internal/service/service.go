// Package service writes, enables and removes the systemd user unit that
// runs the headless peer (`awp run`) in the background, as syncthing ships
// its own: the packages install a generic one
// (/usr/lib/systemd/user/awp.service), and `awp service install` writes
// the person's own, with their flags, where it takes precedence
// ($XDG_CONFIG_HOME/systemd/user/awp.service).
//
// # Basics
//
// Unit renders the unit file. Install writes it atomically and, when a
// systemd user manager runs, reloads it and enables and starts the unit
// (`systemctl --user enable --now`); without one it only writes the file
// and the Result says how to enable it. Uninstall stops, disables and
// removes it.
//
// It owns that one unit file; it must not touch the node or its data
// directory (cmd/awp decides the flags).
package service

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/awp-tray/awp-tray/internal/atomicfile"
	"github.com/awp-tray/awp-tray/internal/cmdline"
)

// UnitName is the unit's file name.
const UnitName = "awp.service"

// Unit is what the unit runs.
type Unit struct {
	// Exec is the absolute path of awp (or, for a package, the path it is
	// installed at).
	Exec string
	// Args follow "run": the flags of `awp run`.
	Args []string
	// WorkingDirectory is where it runs: an absolute path, or "%h" for
	// the home directory (a package's unit).
	WorkingDirectory string
	// Version is written in the header comment; may be empty.
	Version string
	// Packaged: the unit a package installs (its header says how to
	// enable it), not one `awp service install` wrote.
	Packaged bool
}

// documentation is the unit's Documentation= link.
const documentation = "https://github.com/awp-tray/awp-tray/blob/main/docs/cli.md#awp-service"

// String renders the unit file.
func (u Unit) String() string {
	var b strings.Builder
	version := ""
	if u.Version != "" {
		version = " (awp " + u.Version + ")"
	}
	if u.Packaged {
		b.WriteString("# The headless AWP peer" + version + ", with awp run's defaults. Start it at login with\n" +
			"# `systemctl --user enable --now awp`; `awp service install [flags]` writes your own\n" +
			"# in ~/.config/systemd/user, which takes the place of this one.\n")
	} else {
		b.WriteString("# The headless AWP peer. Written by `awp service install`" + version + ";\n" +
			"# `awp service uninstall` stops and removes it.\n")
	}
	b.WriteString("[Unit]\n")
	b.WriteString("Description=AWP peer (awp run)\n")
	b.WriteString("Documentation=" + documentation + "\n")
	// Give up after 4 failed starts in a minute (a locked keyring at boot,
	// a port taken) rather than spin.
	b.WriteString("StartLimitIntervalSec=60\nStartLimitBurst=4\n\n")
	b.WriteString("[Service]\n")
	b.WriteString("Type=exec\n")
	b.WriteString("ExecStart=" + ExecLine(u.Exec, append([]string{"run"}, u.Args...)) + "\n")
	if u.WorkingDirectory != "" {
		b.WriteString("WorkingDirectory=" + u.WorkingDirectory + "\n")
	}
	b.WriteString("Restart=on-failure\nRestartSec=5\n")
	// awp run closes the node on SIGTERM: every acknowledged line is on
	// disk already, closing waits for the commit loop.
	b.WriteString("TimeoutStopSec=30\n")
	// No sandboxing options: the peer runs commands for agents that hold
	// a grant, and those would inherit them (MemoryDenyWriteExecute, for
	// one, breaks every JIT). The peer's own exec sandbox applies.
	b.WriteString("\n[Install]\nWantedBy=default.target\n")
	return b.String()
}

// ExecLine quotes a command line for ExecStart=: arguments with spaces,
// quotes or backslashes in double quotes with \ and " escaped; % doubled
// (specifiers) and $ doubled (variables) everywhere, so every argument
// reaches awp as it was given.
func ExecLine(prog string, args []string) string { return execStartQuoting.Join(prog, args) }

// execStartQuoting is ExecStart='s quoting.
var execStartQuoting = cmdline.Quoting{
	Always:   strings.NewReplacer("%", "%%", "$", "$$"),
	Reserved: " \t\n\"'\\;",
	Inside:   strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`),
}

// Dir returns the user's unit directory: $XDG_CONFIG_HOME/systemd/user,
// by default ~/.config/systemd/user. getenv is os.Getenv outside tests.
func Dir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "systemd", "user"), nil
	}
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("service: %w", err)
		}
		home = h
	}
	return filepath.Join(home, ".config", "systemd", "user"), nil
}

// Systemctl runs `systemctl --user`.
type Systemctl struct {
	// Path is systemctl's path; "" looks it up in $PATH.
	Path string
	// Timeout bounds each call; 0 means 30 s (enabling starts the unit,
	// and starting waits for it to exec).
	Timeout time.Duration
}

// callTimeout is Systemctl's default bound per call.
const callTimeout = 30 * time.Second

func (s Systemctl) path() (string, error) {
	if s.Path != "" {
		return s.Path, nil
	}
	return exec.LookPath("systemctl")
}

// run runs systemctl --user args… and returns its combined output.
func (s Systemctl) run(ctx context.Context, args ...string) (string, error) {
	p, err := s.path()
	if err != nil {
		return "", err
	}
	t := s.Timeout
	if t <= 0 {
		t = callTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, t)
	defer cancel()
	out, err := exec.CommandContext(ctx, p, append([]string{"--user"}, args...)...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// Running reports whether a systemd user manager answers, and if not,
// why: no systemctl, or `systemctl --user is-system-running` says
// "offline" or cannot connect.
func (s Systemctl) Running(ctx context.Context) (bool, string) {
	if _, err := s.path(); err != nil {
		return false, "systemctl is not installed"
	}
	// is-system-running exits non-zero for "degraded" too: the state it
	// prints is what counts.
	out, _ := s.run(ctx, "is-system-running")
	state := out
	if i := strings.LastIndexByte(out, '\n'); i >= 0 {
		state = out[i+1:]
	}
	switch state {
	case "running", "degraded", "starting", "initializing", "maintenance":
		return true, ""
	case "":
		return false, "systemctl --user said nothing"
	}
	return false, "systemctl --user: " + firstLine(out)
}

// Active reports whether the unit runs now (`systemctl --user is-active`).
func (s Systemctl) Active(ctx context.Context) bool {
	out, err := s.run(ctx, "is-active", UnitName)
	return err == nil && out == "active"
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Result says what Install or Uninstall did.
type Result struct {
	Path    string // the unit file
	Changed bool   // the file was written (or removed); false: it was already so
	Managed bool   // a user manager ran and was told
	Why     string // when not Managed: why not
	Output  string // what systemctl said, if anything
}

// Install writes u into dir (creating it) as UnitName and, when sc finds
// a running user manager, reloads it and enables and starts the unit.
// Writing is atomic: a temporary file renamed into place.
func Install(ctx context.Context, dir string, u Unit, sc Systemctl) (Result, error) {
	if !filepath.IsAbs(u.Exec) {
		return Result{}, fmt.Errorf("service: program path %q is not absolute", u.Exec)
	}
	r := Result{Path: filepath.Join(dir, UnitName)}
	text := []byte(u.String())
	old, err := os.ReadFile(r.Path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return r, fmt.Errorf("service: %w", err)
	}
	if !bytes.Equal(old, text) {
		if err := writeAtomic(r.Path, text); err != nil {
			return r, err
		}
		r.Changed = true
	}
	running, why := sc.Running(ctx)
	if !running {
		r.Why = why
		return r, nil
	}
	r.Managed = true
	if out, err := sc.run(ctx, "daemon-reload"); err != nil {
		return r, fmt.Errorf("service: systemctl --user daemon-reload: %v: %s", err, out)
	}
	verb := []string{"enable", "--now", UnitName}
	if r.Changed && len(old) > 0 {
		// A changed unit that was running runs the old flags until restarted.
		if out, err := sc.run(ctx, "enable", UnitName); err != nil {
			return r, fmt.Errorf("service: systemctl --user enable: %v: %s", err, out)
		}
		verb = []string{"restart", UnitName}
	}
	out, err := sc.run(ctx, verb...)
	r.Output = out
	if err != nil {
		return r, fmt.Errorf("service: systemctl --user %s: %v: %s", strings.Join(verb, " "), err, out)
	}
	return r, nil
}

// Uninstall stops and disables the unit (when a user manager runs) and
// removes its file from dir. A missing file is not an error.
func Uninstall(ctx context.Context, dir string, sc Systemctl) (Result, error) {
	r := Result{Path: filepath.Join(dir, UnitName)}
	_, statErr := os.Stat(r.Path)
	running, why := sc.Running(ctx)
	r.Managed, r.Why = running, why
	if running && statErr == nil {
		out, err := sc.run(ctx, "disable", "--now", UnitName)
		r.Output = out
		if err != nil {
			return r, fmt.Errorf("service: systemctl --user disable --now: %v: %s", err, out)
		}
	}
	err := os.Remove(r.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return r, nil
	case err != nil:
		return r, fmt.Errorf("service: %w", err)
	}
	r.Changed = true
	if running {
		if out, err := sc.run(ctx, "daemon-reload"); err != nil {
			return r, fmt.Errorf("service: systemctl --user daemon-reload: %v: %s", err, out)
		}
	}
	return r, nil
}

// writeAtomic writes b to path through a temporary file in its directory.
func writeAtomic(path string, b []byte) error {
	if err := atomicfile.WriteFile(filepath.Dir(path), filepath.Base(path), b, 0o644); err != nil {
		return fmt.Errorf("service: %w", err)
	}
	return nil
}
