package peer

import (
	"os"
	"path/filepath"

	"github.com/awp-tray/awp-tray/peer/presence"
	"github.com/awp-tray/awp-tray/peer/profile"
	"github.com/awp-tray/awp-tray/peer/store"
)

// DefaultPresence is what a node publishes until its person chooses
// otherwise: peers (name, harness, model, host and the peers it has up;
// no threads). Full presence tells every node within 8 hops whom this one
// talks with and about what, so it is the person's choice to make
// (Settings, `awp presence detail full`, `awp run --presence full`).
const DefaultPresence = presence.DetailPeers

// SandboxUnavailable is ApprovalRequest.Sandbox when the node requires the
// exec sandbox (mode bwrap) and it cannot run here: an allowed exec fails.
const SandboxUnavailable = "unavailable"

// Meta names of the person's stored choices. Each is written only when
// the person chooses (SetPresenceDetail, SetExecSandbox); a data
// directory that never chose has none, and gets the defaults.
const (
	metaPresence    = "presence_detail"
	metaExecSandbox = "exec_sandbox"
)

// chosen picks the setting in force: the Config's value for this run,
// else the stored choice when it is valid, else the default.
func chosen(cfg string, stored []byte, def string, valid func(string) bool) string {
	switch {
	case cfg != "":
		return cfg
	case len(stored) > 0 && valid(string(stored)):
		return string(stored)
	}
	return def
}

func validDetail(d string) bool {
	return d == presence.DetailFull || d == presence.DetailPeers || d == presence.DetailNone
}

func validSandbox(m string) bool { return m != "" && profile.CheckSandboxMode(m) == nil }

// storeChoice keeps a setting the person chose for the next start
// (through the commit loop, as every write of a started node).
func (n *Node) storeChoice(name, v string) error {
	return n.commit.run(func(tx *store.Tx) error { return tx.PutMeta(name, []byte(v)) })
}

// ExecSandbox says how exec requests run on this node: under bubblewrap
// or unsandboxed as the node's user, and why (docs/profile.md "Exec
// sandbox"). The approval prompt says "runs unsandboxed as you" from it.
func (n *Node) ExecSandbox() profile.SandboxStatus { return n.runner().SandboxStatus() }

// SetExecSandbox changes how exec runs from the next request on ("auto",
// "bwrap" or "none") and stores the choice for the next start.
func (n *Node) SetExecSandbox(mode string) error {
	if err := profile.CheckSandboxMode(mode); err != nil {
		return err
	}
	if mode == "" {
		mode = profile.SandboxAuto
	}
	if err := n.storeChoice(metaExecSandbox, mode); err != nil {
		return err
	}
	return n.runner().SetSandbox(mode)
}

// logWorkspace says at start what requests can reach: a warning when the
// workspace is / or the home directory (a grant then reaches every file
// of the person), a note when the data directory is inside it, and how
// exec runs.
func (n *Node) logWorkspace() {
	ws := n.cfg.Workspace
	for _, w := range workspaceWarnings(ws, n.cfg.DataDir) {
		n.log.Warn(w, "workspace", ws)
	}
	st := n.ExecSandbox()
	switch {
	case st.Sandbox == profile.SandboxBwrap && !st.Available:
		n.log.Error("exec sandbox unavailable: exec requests will fail", "why", st.Reason)
	case st.Sandbox == profile.SandboxBwrap:
		n.log.Info("exec runs in a sandbox (bubblewrap): the workspace read-write, the system read-only, home and the data directory hidden", "network", st.Network)
	default:
		n.log.Warn("exec runs unsandboxed as you", "why", st.Reason)
	}
}

// workspaceWarnings are the start warnings for workspace ws.
func workspaceWarnings(ws, dataDir string) []string {
	real := func(p string) string {
		if a, err := filepath.Abs(p); err == nil {
			p = a
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	rws := real(ws)
	var out []string
	home, _ := os.UserHomeDir()
	switch {
	case rws == "/":
		out = append(out, "the workspace is /: a grant for fs or exec reaches every file you can; start with --workspace DIR (a project directory)")
	case home != "" && rws == real(home):
		out = append(out, "the workspace is your home directory: a grant for fs or exec reaches all your files; start with --workspace DIR (a project directory)")
	}
	if rd := real(dataDir); rd == rws || len(rd) > len(rws) && rd[:len(rws)] == rws && (rws == "/" || rd[len(rws)] == filepath.Separator) {
		out = append(out, "the data directory is inside the workspace: requests cannot reach it (not by any path, listing or exec)")
	}
	return out
}
