package main

import "github.com/awp-tray/awp-tray/peer/profile"

// runSandbox is `awp sandbox [auto|bwrap|none]`: without an argument it
// prints how exec runs; with one it sets the mode (stored for the next
// start, where `awp run --exec-sandbox` is not given).
func runSandbox(e *env, args []string) error {
	fs := newFlags("sandbox")
	asJSON := fs.Bool("json", false, `print {"mode","sandbox","network","available","reason"?}`)
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("unexpected argument %q", pos[1])
	}
	if len(pos) == 1 {
		if err := profile.CheckSandboxMode(pos[0]); err != nil || pos[0] == "" {
			return usagef("mode %q: want auto, bwrap or none", pos[0])
		}
	}
	c, err := e.client(fs)
	if err != nil {
		return err
	}
	var st profile.SandboxStatus
	if len(pos) == 1 {
		st, err = c.SetExecSandbox(e.ctx, pos[0])
	} else {
		st, err = c.ExecSandbox(e.ctx)
	}
	if err != nil {
		return e.wrap("sandbox", err)
	}
	return e.answer(*asJSON, st, describeSandbox(st))
}

// describeSandbox says in one line how exec runs.
func describeSandbox(st profile.SandboxStatus) string {
	switch {
	case st.Sandbox == profile.SandboxNone && st.Mode == profile.SandboxNone:
		return "none: exec runs unsandboxed as you (turned off)"
	case st.Sandbox == profile.SandboxNone:
		return "none: exec runs unsandboxed as you (" + st.Mode + ": " + st.Reason + ")"
	case !st.Available:
		return "bwrap, unavailable: exec requests fail (" + st.Reason + ")"
	}
	net := "network on"
	if !st.Network {
		net = "no network"
	}
	return "bwrap (" + st.Mode + "): exec sees the workspace read-write and the system read-only; home and the data directory are hidden; " + net
}
