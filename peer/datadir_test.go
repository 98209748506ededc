package peer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer/grant"
	"github.com/awp-tray/awp-tray/peer/profile"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// rawRequest sends one profile request as a msg from the raw peer and
// returns the data of the result part that answers it.
func (p *rawPeer) rawRequest(th, mime string, data map[string]any) map[string]any {
	p.t.Helper()
	b, err := json.Marshal(data)
	if err != nil {
		p.t.Fatal(err)
	}
	part, err := wire.DataPart(mime, b)
	if err != nil {
		p.t.Fatal(err)
	}
	id := p.ids.New()
	p.line(p.obj(wire.TypeMsg, map[string]any{"id": id, "th": th, "parts": []json.RawMessage{part}}))
	for {
		switch f := p.read().(type) {
		case *wire.Msg:
			if f.Re != id {
				continue
			}
			p.line(p.obj(wire.TypeAck, map[string]any{"th": f.Th, "of": f.ID}))
			for _, pt := range f.DecodeParts() {
				if pt.K == wire.PartData && pt.Mime == profile.ResultMime(mime) {
					var m map[string]any
					if err := json.Unmarshal(pt.Data, &m); err != nil {
						p.t.Fatal(err)
					}
					return m
				}
			}
			p.t.Fatalf("answer to %s has no result part: %s", id, f.Raw())
		case *wire.Err:
			if f.Re == id {
				p.t.Fatalf("request %s: err %s %s", data, f.Code, f.Msg)
			}
		}
	}
}

// The node's data directory is never reachable by a request, even when
// the workspace holds it (the workspace is the home directory, the data
// directory ~/.config/awp): a hostile peer with fs and exec grants asks
// for identity.key and awp.db by every spelling it can think of.
func TestDataDirUnreachable(t *testing.T) {
	ws := t.TempDir()
	data := filepath.Join(ws, ".config", "awp")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	exe := newTestNode(t, "exe", func(c *Config) { c.Workspace, c.DataDir, c.Approver = ws, data, DenyAll{} })
	// As `--keyring file` keeps it.
	const secret = "SEED-OF-THE-NODE"
	if err := os.WriteFile(filepath.Join(data, "identity.key"), []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"dl": ".config/awp", "kl": ".config/awp/identity.key"} {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(data, "identity.key"), filepath.Join(ws, "hl")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "README"), []byte("ok"), 0o644); err != nil {
		t.Fatal(err)
	}

	p := dialRaw(t, exe)
	p.handshake()
	g, err := grant.Sign(exe.cfg.Key, p.priv.Public(), []string{"exec", "fs:read", "fs:write"}, time.Now().Add(time.Hour), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	with := func(m map[string]any) map[string]any { m["grant"] = json.RawMessage(g.Raw); return m }
	th := "thr_hostile1"

	// The grant works: the workspace itself is readable.
	if m := p.rawRequest(th, profile.MimeRead, with(map[string]any{"path": "README"})); m["content"] != "ok" {
		t.Fatalf("README: %v", m)
	}
	paths := []string{
		".config/awp/identity.key", ".config/awp/awp.db", ".config/awp", ".config/awp/",
		"./.config//awp/./identity.key", ".config/awp/../awp/awp.db", data + "/identity.key", data,
		"dl/identity.key", "dl", "kl", "hl", ".config/awp/no-such-file", ".config/awp/blobs/x/y",
	}
	for _, path := range paths {
		m := p.rawRequest(th, profile.MimeRead, with(map[string]any{"path": path}))
		if m["error"] != profile.ErrOutside || m["content"] != nil || m["entries"] != nil {
			t.Errorf("fs:read %q: %v, want %q", path, m, profile.ErrOutside)
		}
		m = p.rawRequest(th, profile.MimeWrite, with(map[string]any{"path": path, "content": "PWNED", "mkdir": true}))
		if m["error"] != profile.ErrOutside {
			t.Errorf("fs:write %q: %v, want %q", path, m, profile.ErrOutside)
		}
		m = p.rawRequest(th, profile.MimeExec, with(map[string]any{"cmd": "cat identity.key awp.db", "cwd": path}))
		if path != "kl" && path != "hl" && !strings.HasSuffix(path, "identity.key") && !strings.HasSuffix(path, "awp.db") &&
			(m["error"] != profile.ErrOutside || m["stdout"] != "") {
			t.Errorf("exec cwd %q: %v, want %q", path, m, profile.ErrOutside)
		}
		if strings.Contains(m["stdout"].(string), secret) {
			t.Fatalf("exec cwd %q printed the secret", path)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(data, "identity.key")); string(b) != secret {
		t.Fatalf("identity.key changed: %q", b)
	}
	// A listing leaves it out, and the links to it.
	for _, dir := range []string{".", ".config"} {
		m := p.rawRequest(th, profile.MimeRead, with(map[string]any{"path": dir}))
		es, _ := m["entries"].([]any)
		for _, e := range es {
			switch e.(map[string]any)["name"] {
			case "awp", "dl", "kl", "hl":
				t.Errorf("listing of %s shows %v", dir, e)
			}
		}
		if len(es) == 0 && dir == "." {
			t.Errorf("listing of .: %v", m)
		}
	}
	// Under the exec sandbox (where bubblewrap works) the command itself
	// cannot read it either.
	if st := exe.ExecSandbox(); st.Sandbox == profile.SandboxBwrap && st.Available {
		m := p.rawRequest(th, profile.MimeExec, with(map[string]any{"cmd": "cat .config/awp/identity.key " + data + "/identity.key"}))
		if m["exit"] == 0.0 || strings.Contains(m["stdout"].(string), secret) {
			t.Errorf("sandboxed cat: %v", m)
		}
	} else {
		t.Logf("exec sandbox: %+v (not exercised here)", st)
	}
	checkNodeServes(t, exe)
}

// The presence default is peers: a node that never chose publishes no
// threads; the person's choice of full is stored and kept at the next
// start, and a Config value wins for its run only.
func TestPresenceDefaultPeers(t *testing.T) {
	n := newTestNode(t, "n")
	if d := n.PresenceDetail(); d != "peers" {
		t.Fatalf("default detail %q", d)
	}
	other := newTestNode(t, "other")
	connect(t, other, n)
	sendText(t, n, other.Key(), "", "a thread with a subject")
	// The other peer's record is stored after the handshake, not with it.
	testsync.Eventually(t, "the other peer in the peer list", func() bool { return len(n.buildDoc("peers").Peers) > 0 })
	doc := n.buildDoc(n.PresenceDetail())
	if len(doc.Threads) != 0 || len(doc.Peers) == 0 {
		t.Fatalf("peers detail published threads %v (peers %v)", doc.Threads, doc.Peers)
	}
	if err := n.SetPresenceDetail("full"); err != nil {
		t.Fatal(err)
	}
	n.restart()
	if d := n.PresenceDetail(); d != "full" {
		t.Fatalf("after restart: %q, want the stored full", d)
	}
	if doc := n.buildDoc(n.PresenceDetail()); len(doc.Threads) != 1 {
		t.Fatalf("full published %d threads", len(doc.Threads))
	}
	n.cfg.Presence = "none"
	n.restart()
	if d := n.PresenceDetail(); d != "none" {
		t.Fatalf("Config none: %q", d)
	}
	n.cfg.Presence = ""
	n.restart()
	if d := n.PresenceDetail(); d != "full" {
		t.Fatalf("the stored choice was lost to a Config value: %q", d)
	}
}

// The exec sandbox choice is stored like the presence detail, and the
// approval prompt learns from it whether exec runs unsandboxed.
func TestExecSandboxSetting(t *testing.T) {
	ws := t.TempDir()
	n := newTestNode(t, "n", func(c *Config) { c.Workspace, c.ApprovalTimeout = ws, time.Minute })
	if st := n.ExecSandbox(); st.Mode != profile.SandboxAuto {
		t.Fatalf("default %+v", st)
	}
	if err := n.SetExecSandbox("chroot"); err == nil {
		t.Fatal("bad mode accepted")
	}
	if err := n.SetExecSandbox(profile.SandboxNone); err != nil {
		t.Fatal(err)
	}
	n.restart()
	if st := n.ExecSandbox(); st.Mode != profile.SandboxNone || st.Sandbox != profile.SandboxNone || !st.Unsandboxed() {
		t.Fatalf("after restart %+v", st)
	}
	req := newTestNode(t, "req")
	connect(t, req, n)
	done := make(chan error, 1)
	go func() { _, err := request(t, req, n, execData(t, "echo hi", nil)); done <- err }()
	testsync.Eventually(t, "the request pending", func() bool { return len(n.Pending()) == 1 })
	if p := n.Pending()[0]; p.Sandbox != profile.SandboxNone {
		t.Errorf("approval request sandbox %q, want none", p.Sandbox)
	}
	_ = n.Decide(n.Pending()[0].ID, Decision{Allow: false})
	wantForbidden(t, <-done)
	n.cfg.ExecSandbox = profile.SandboxBwrap
	n.restart()
	if st := n.ExecSandbox(); st.Mode != profile.SandboxBwrap || st.Sandbox != profile.SandboxBwrap {
		t.Fatalf("Config bwrap: %+v", st)
	}
}

func TestWorkspaceWarnings(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory")
	}
	data := t.TempDir()
	for _, tc := range []struct {
		ws, data string
		want     []string
	}{
		{"/", data, []string{"the workspace is /", "the data directory is inside the workspace"}},
		{home, filepath.Join(home, ".config", "awp"), []string{"the workspace is your home directory", "the data directory is inside"}},
		{filepath.Dir(data), data, []string{"the data directory is inside"}},
		{t.TempDir(), data, nil},
	} {
		got := workspaceWarnings(tc.ws, tc.data)
		if len(got) != len(tc.want) {
			t.Errorf("%s, %s: %q, want %q", tc.ws, tc.data, got, tc.want)
			continue
		}
		for i := range got {
			if !strings.HasPrefix(got[i], tc.want[i]) {
				t.Errorf("%s, %s: %q, want %q", tc.ws, tc.data, got[i], tc.want[i])
			}
		}
	}
}
