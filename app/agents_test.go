package app

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/awp-tray/awp-tray/keystore"
	"github.com/awp-tray/awp-tray/peer/key"
)

// goldenSpec is an agent's configuration with every field set.
var goldenSpec = agentSpec{
	name: "claude-code@box", dataDir: "/home/me/.config/awp/agents/claude-code", program: "/usr/local/bin/awp",
	dial: []string{"tcp://127.0.0.1:7100"}, tray: meKey.String(), mirror: true, harness: "claude-code",
}

func TestAgentLines(t *testing.T) {
	s := goldenSpec
	want := []string{"mcp", "--run", "--keyring", "file", "--data", s.dataDir, "--name", s.name, "--harness", "claude-code",
		"--dial", "tcp://127.0.0.1:7100", "--trust", meKey.String(), "--mirror-to", meKey.String()}
	if got := s.args(); !slices.Equal(got, want) {
		t.Fatalf("args = %q", got)
	}

	s.format = "claude"
	k := meKey.String()
	wantClaude := "claude mcp add --scope user --transport stdio awp -- /usr/local/bin/awp \\\n" +
		"    mcp --run \\\n    --keyring file \\\n    --data /home/me/.config/awp/agents/claude-code \\\n" +
		"    --name claude-code@box \\\n    --harness claude-code \\\n    --dial tcp://127.0.0.1:7100 \\\n" +
		"    --trust " + k + " \\\n    --mirror-to " + k
	if got := s.lines(); got != wantClaude {
		t.Errorf("claude lines:\n%s\nwant:\n%s", got, wantClaude)
	}

	s.format = "codex"
	wantTOML := "[mcp_servers.awp]\ncommand = \"/usr/local/bin/awp\"\nargs = [\n" +
		"  \"mcp\", \"--run\",\n  \"--keyring\", \"file\",\n  \"--data\", \"/home/me/.config/awp/agents/claude-code\",\n" +
		"  \"--name\", \"claude-code@box\",\n  \"--harness\", \"claude-code\",\n  \"--dial\", \"tcp://127.0.0.1:7100\",\n" +
		"  \"--trust\", \"" + k + "\",\n  \"--mirror-to\", \"" + k + "\",\n" +
		"]\n# awp_wait and awp_request wait up to 600 s\ntool_timeout_sec = 660\n"
	if got := s.lines(); got != wantTOML {
		t.Errorf("codex lines:\n%s\nwant:\n%s", got, wantTOML)
	}

	s.format = "json"
	var doc struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(s.lines()), &doc); err != nil {
		t.Fatal(err)
	}
	if srv := doc.MCPServers["awp"]; srv.Command != s.program || !slices.Equal(srv.Args, want) {
		t.Errorf("mcp.json = %+v", doc)
	}

	// Without mirroring, and without a running tray, the flags go.
	s.mirror = false
	if slices.Contains(s.args(), "--mirror-to") {
		t.Error("--mirror-to without mirror")
	}
	s.tray, s.dial = "", nil
	if a := strings.Join(s.args(), " "); strings.Contains(a, "--trust") || strings.Contains(a, "--dial") {
		t.Errorf("args without a tray = %s", a)
	}
}

// TestAgentLineShell: a shell reads the Claude Code line back into the
// same words, however odd the name and directory.
func TestAgentLineShell(t *testing.T) {
	s := goldenSpec
	s.format = "claude"
	s.name = `Bob's "agent" $HOME; rm -rf ~`
	s.dataDir = "/home/me/my agents/it's here"
	line := s.lines()
	out, err := exec.Command("/bin/sh", "-c", "claude() { printf '%s\\n' \"$@\"; }; "+line).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := append([]string{"mcp", "add", "--scope", "user", "--transport", "stdio", "awp", "--", s.program}, s.args()...)
	if got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"); !slices.Equal(got, want) {
		t.Fatalf("the shell read %q, want %q", got, want)
	}
}

func TestAgentsWindow(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(t.TempDir(), "config"))
	f := newFakeNode()
	a, _ := newTestApp(t, f)

	// The Settings button opens the window.
	before := len(a.fa.Driver().AllWindows())
	test.Tap(a.agentsButton())
	if n := len(a.fa.Driver().AllWindows()); n != before+1 {
		t.Fatalf("%d windows after the button, want %d", n, before+1)
	}

	win := newAgentsWindow(a, "/usr/local/bin/awp")
	win.refresh()
	a.Wait()
	if len(win.panels) != 3 || win.tabs.Items[0].Text != "Claude Code" || win.tabs.Items[1].Text != "Codex" {
		t.Fatalf("tabs = %d", len(win.panels))
	}
	cfg, _ := os.UserConfigDir()
	claude := win.panels[0]
	if claude.dir.Text != filepath.Join(cfg, "awp", "agents", "claude-code") || !strings.HasPrefix(claude.name.Text, "claude-code@") {
		t.Fatalf("defaults: name %q, dir %q", claude.name.Text, claude.dir.Text)
	}
	for _, want := range []string{"claude mcp add", " --dial tcp://127.0.0.1:7100 ", " --trust " + meKey.String(), " --mirror-to " + meKey.String(), " --harness claude-code "} {
		if !strings.Contains(claude.lines.Text, want) {
			t.Errorf("Claude Code lines lack %q:\n%s", want, claude.lines.Text)
		}
	}
	if codex := win.panels[1].lines.Text; !strings.Contains(codex, "[mcp_servers.awp]") || !strings.Contains(codex, `"--harness", "codex"`) {
		t.Errorf("Codex lines:\n%s", codex)
	}
	if !strings.Contains(win.panels[2].lines.Text, `"mcpServers"`) {
		t.Errorf("mcp.json lines:\n%s", win.panels[2].lines.Text)
	}

	// Edits show at once; mirroring can be left out.
	dir := filepath.Join(t.TempDir(), "agents", "mine")
	claude.dir.SetText(dir)
	claude.name.SetText("reviewer")
	test.Tap(claude.mirror)
	if l := claude.lines.Text; !strings.Contains(l, "--data "+dir+" ") || !strings.Contains(l, "--name reviewer ") || strings.Contains(l, "--mirror-to") {
		t.Fatalf("edited lines:\n%s", l)
	}
	test.Tap(claude.copy)
	if got := a.fa.Clipboard().Content(); got != claude.lines.Text {
		t.Errorf("clipboard = %q", got)
	}

	// Trust: the agent's identity is made where `awp mcp --run --keyring
	// file --data DIR` looks for it, and its key is trusted here.
	a.Wait()
	if !strings.HasPrefix(claude.key.Text, "none yet") || claude.trust.Disabled() {
		t.Fatalf("before: key %q", claude.key.Text)
	}
	test.Tap(claude.trust)
	a.Wait()
	fi, err := os.Stat(filepath.Join(dir, keystore.FileName))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("identity file: %v %v", fi, err)
	}
	st, err := keystore.Open(keystore.Options{DataDir: dir, Mode: keystore.ModeFile})
	if err != nil {
		t.Fatal(err)
	}
	k, err := st.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	agentKey := k.Public().String()
	f.with(func() {
		if !f.trusted[key.MustParsePublic(agentKey)] {
			t.Errorf("trusted = %v, want %s", f.trusted, agentKey)
		}
	})
	if claude.key.Text != agentKey || !claude.trust.Disabled() || !strings.Contains(claude.note.Text, "Created") {
		t.Errorf("after: key %q, trust disabled %v, note %q", claude.key.Text, claude.trust.Disabled(), claude.note.Text)
	}
	// A second time the same identity is kept.
	if k2, created, err := agentIdentity(context.Background(), dir); err != nil || created || k2.String() != agentKey {
		t.Errorf("agentIdentity again = %v, %v, %v", k2, created, err)
	}

	// A relative directory is refused before anything is made.
	claude.dir.SetText("agents/rel")
	test.Tap(claude.trust)
	a.Wait()
	if _, err := os.Stat("agents"); !os.IsNotExist(err) || !strings.Contains(claude.note.Text, "absolute") {
		t.Errorf("relative dir: %v, note %q", err, claude.note.Text)
	}
}

func TestAgentsWindowWithoutNode(t *testing.T) {
	a, _ := newTestApp(t, nil)
	win := newAgentsWindow(a, "awp")
	win.refresh()
	a.Wait()
	p := win.panels[0]
	if strings.Contains(p.lines.Text, "--trust") || !strings.Contains(p.note.Text, "not running") {
		t.Fatalf("lines %q, note %q", p.lines.Text, p.note.Text)
	}
	test.Tap(p.trust)
	if !strings.Contains(p.note.Text, "not running") {
		t.Errorf("trust without a node: note %q", p.note.Text)
	}
}

// TestGoldenAgents is the window as people see it, light and dark.
func TestGoldenAgents(t *testing.T) {
	a, _ := newTestApp(t, newFakeNode())
	win := newAgentsWindow(a, goldenSpec.program)
	for _, p := range win.panels {
		p.name.SetText(p.kind.slug + "@box")
		p.dir.SetText("/home/me/.config/awp/agents/" + p.kind.slug)
	}
	win.refresh()
	a.Wait()
	win.w.Resize(fyne.NewSize(820, 600))
	for _, v := range themes {
		t.Run(v.name, func(t *testing.T) {
			test.ApplyTheme(t, v.th)
			win.tabs.SelectIndex(0)
			capture(t, win.w, "agents", v.name)
			win.tabs.SelectIndex(1)
			capture(t, win.w, "agents_codex", v.name)
		})
	}
}
