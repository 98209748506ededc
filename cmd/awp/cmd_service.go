package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/awp-tray/awp-tray/internal/flaghelp"
	"github.com/awp-tray/awp-tray/internal/service"
	"github.com/awp-tray/awp-tray/keystore"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/localapi"
)

// probeRunning bounds the dial that asks whether a peer already answers
// on the data directory's socket: a live one accepts at once.
const probeRunning = time.Second

func runService(e *env, args []string) error {
	fs := newFlags("service")
	var o runOptions
	o.flags(fs)
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if err := nArgs(pos, 1, "install, uninstall or print"); err != nil {
		return err
	}
	action := pos[0]
	switch action {
	case "install", "print":
		if err := o.check(); err != nil {
			return err
		}
	case "uninstall":
		if n := visited(fs.FlagSet); n != "" && n != "data" {
			return usagef("uninstall takes no run flags (--%s)", n)
		}
	default:
		return usagef("unknown action %q: want install, uninstall or print", action)
	}
	if runtime.GOOS != "linux" {
		return fmt.Errorf("systemd user units are for Linux; on %s run `awp run` from your own service manager (docs/cli.md, awp service)", runtime.GOOS)
	}
	dir, err := service.Dir(e.getenv)
	if err != nil {
		return err
	}
	if action == "uninstall" {
		r, err := service.Uninstall(e.ctx, dir, service.Systemctl{})
		if err != nil {
			return err
		}
		switch {
		case !r.Changed:
			fmt.Fprintf(e.stdout, "no unit at %s: nothing to remove\n", r.Path)
		case r.Managed:
			fmt.Fprintf(e.stdout, "stopped, disabled and removed %s\n", r.Path)
		default:
			fmt.Fprintf(e.stdout, "removed %s (%s: nothing was running it)\n", r.Path, r.Why)
		}
		return nil
	}

	u, err := e.serviceUnit(fs, &o)
	if err != nil {
		return err
	}
	if action == "print" {
		fmt.Fprint(e.stdout, u.String())
		return nil
	}
	sc := service.Systemctl{}
	data, _ := e.dataDir(fs.data)
	if answers(localapi.SocketPath(data)) && !sc.Active(e.ctx) {
		return fmt.Errorf("a peer already runs on %s (the tray app, or `awp run`): stop it first, or give the service its own --data", data)
	}
	r, err := service.Install(e.ctx, dir, u, sc)
	if err != nil {
		return err
	}
	what := "wrote"
	if !r.Changed {
		what = "kept"
	}
	if !r.Managed {
		fmt.Fprintf(e.stdout, "%s %s\nno systemd user manager runs here (%s). Where one runs, enable and start it with:\n"+
			"  systemctl --user daemon-reload && systemctl --user enable --now %s\n"+
			"and to keep it running while you are logged out: loginctl enable-linger\n", what, r.Path, r.Why, service.UnitName)
		return nil
	}
	fmt.Fprintf(e.stdout, "%s %s; enabled and started %s (systemctl --user status %s)\n", what, r.Path, service.UnitName, service.UnitName)
	return nil
}

// serviceUnit is the unit for the flags given: awp's own path, "run" and
// the flags as they were set, with the data directory and the workspace
// made absolute (the unit runs elsewhere and later), and, when no
// --keyring was given and the identity is in DATA/identity.key, --keyring
// file (a service started at boot cannot unlock the OS keyring, and
// keyring mode would refuse the key file's identity).
func (e *env) serviceUnit(fs *flagSet, o *runOptions) (service.Unit, error) {
	exe, err := os.Executable()
	if err != nil {
		return service.Unit{}, fmt.Errorf("where is awp: %w", err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return service.Unit{}, fmt.Errorf("where is awp: %w", err)
	}
	data, err := e.dataDir(fs.data)
	if err != nil {
		return service.Unit{}, err
	}
	ws := o.workspace
	if ws == "" {
		if ws, err = os.Getwd(); err != nil {
			return service.Unit{}, fmt.Errorf("workspace: %w", err)
		}
	}
	if ws, err = filepath.Abs(ws); err != nil {
		return service.Unit{}, fmt.Errorf("workspace: %w", err)
	}
	args := []string{"--data", data, "--workspace", ws}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) {
		set[f.Name] = true
		switch f.Name {
		case "data", "workspace":
			return
		}
		if l, ok := f.Value.(*stringList); ok {
			for _, v := range *l {
				args = append(args, "--"+f.Name, v)
			}
			return
		}
		if flaghelp.IsBool(f) {
			args = append(args, "--"+f.Name+"="+f.Value.String())
			return
		}
		args = append(args, "--"+f.Name, f.Value.String())
	})
	if !set["keyring"] && e.getenv("AWP_KEYRING") == "" {
		if _, err := os.Stat(filepath.Join(data, keystore.FileName)); err == nil {
			args = append(args, "--keyring", "file")
		}
	} else if !set["keyring"] {
		// The unit does not see this shell's environment.
		args = append(args, "--keyring", e.getenv("AWP_KEYRING"))
	}
	return service.Unit{Exec: exe, Args: args, WorkingDirectory: ws, Version: peer.Version}, nil
}

// visited returns the name of a flag that was set other than --data, or
// "data", or "".
func visited(fs *flag.FlagSet) string {
	name := ""
	fs.Visit(func(f *flag.Flag) {
		if name == "" || name == "data" {
			name = f.Name
		}
	})
	return name
}

// answers reports whether a peer accepts on the control socket at path
// (`awp service install` and `awp compact` ask before they act).
func answers(path string) bool {
	c, err := net.DialTimeout("unix", path, probeRunning)
	if err != nil {
		return false
	}
	c.Close()
	return true
}
