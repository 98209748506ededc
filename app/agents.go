package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/awp-tray/awp-tray/keystore"
	"github.com/awp-tray/awp-tray/peer/key"
)

// Settings → "Connect a coding agent…" (issue 19): the exact lines that
// give a coding agent its own AWP peer, for Claude Code, Codex and any MCP
// client (mcp.json). The agent's harness starts `awp mcp --run` with them:
// a peer with its own identity (a file in its data directory) that dials
// this tray, trusts it, and mirrors its threads here (docs/protocol/mirror.md) so the
// person sees what the agent says to others. The window can also create
// that identity now and trust it on this tray, so the agent is known
// before it first connects.

// agentKind is one harness the window writes configuration for.
type agentKind struct {
	tab     string // the tab's title
	format  string // "claude", "codex" or "json"
	harness string // --harness (published in presence); "" none
	slug    string // default name prefix and data directory name
	where   string // what to do with the lines
}

var agentKinds = []agentKind{
	{"Claude Code", "claude", "claude-code", "claude-code", "Run this once in a terminal:"},
	{"Codex", "codex", "codex", "codex", "Add this to ~/.codex/config.toml:"},
	{"Other (mcp.json)", "json", "", "agent", "Add this to your MCP client's mcp.json (the mcpServers key):"},
}

// agentSpec is one agent's `awp mcp --run` configuration.
type agentSpec struct {
	format  string
	name    string
	dataDir string
	program string   // the awp program
	dial    []string // this tray's listen addresses
	tray    string   // this tray's key; "" unknown
	mirror  bool     // mirror the agent's threads to this tray
	harness string
}

// args are the arguments of the awp program.
func (s agentSpec) args() []string {
	a := []string{"mcp", "--run", "--keyring", "file", "--data", s.dataDir, "--name", s.name}
	if s.harness != "" {
		a = append(a, "--harness", s.harness)
	}
	for _, d := range s.dial {
		a = append(a, "--dial", d)
	}
	if s.tray != "" {
		a = append(a, "--trust", s.tray)
		if s.mirror {
			a = append(a, "--mirror-to", s.tray)
		}
	}
	return a
}

// agentToolTimeout is the tool timeout the Codex lines set: awp_wait and
// awp_request wait up to 600 s (Codex's default is 60 s).
const agentToolTimeout = 660

// lines are the exact lines for the spec's harness, one flag of awp to a
// line so a person can read what the agent will run.
func (s agentSpec) lines() string {
	groups := argGroups(s.args())
	var b strings.Builder
	switch s.format {
	case "claude":
		for i, w := range []string{"claude", "mcp", "add", "--scope", "user", "--transport", "stdio", "awp", "--", s.program} {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(shellQuote(w))
		}
		for _, g := range groups {
			b.WriteString(" \\\n   ")
			for _, w := range g {
				b.WriteString(" " + shellQuote(w))
			}
		}
		return b.String()
	case "codex":
		b.WriteString("[mcp_servers.awp]\n")
		fmt.Fprintf(&b, "command = %s\nargs = [\n", jsonText(s.program))
		for _, g := range groups {
			for i, w := range g {
				sep := " "
				if i == 0 {
					sep = "  "
				}
				b.WriteString(sep + jsonText(w) + ",")
			}
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "]\n# awp_wait and awp_request wait up to 600 s\ntool_timeout_sec = %d\n", agentToolTimeout)
		return b.String()
	}
	type server struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	v := struct {
		Servers map[string]server `json:"mcpServers"`
	}{map[string]server{"awp": {s.program, s.args()}}}
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v) // strings only
	return strings.TrimSuffix(b.String(), "\n")
}

// argGroups splits awp's arguments for display: the command, then each
// flag with its value.
func argGroups(args []string) [][]string {
	var out [][]string
	for _, a := range args {
		if n := len(out); n > 0 && (!strings.HasPrefix(a, "--") || out[n-1][0] == "mcp") && len(out[n-1]) < 2 {
			out[n-1] = append(out[n-1], a)
			continue
		}
		out = append(out, []string{a})
	}
	return out
}

// jsonText is v as JSON without HTML escaping: also a TOML string or
// array of strings.
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// shellSafe are words a POSIX shell reads as they are.
var shellSafe = regexp.MustCompile(`^[A-Za-z0-9@%+=:,./_-]+$`)

// shellQuote quotes w for a POSIX shell.
func shellQuote(w string) string {
	if shellSafe.MatchString(w) {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// awpProgram is the awp program the lines run: the one beside this app,
// else the one on PATH, else "awp".
func awpProgram() string {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), "awp")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	if p, err := exec.LookPath("awp"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	return "awp"
}

// agentIdentity loads, or creates, the identity an agent's peer uses with
// --keyring file in dir, and returns its key.
func agentIdentity(ctx context.Context, dir string) (key.PublicKey, bool, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return key.PublicKey{}, false, err
	}
	st, err := keystore.Open(keystore.Options{DataDir: dir, Mode: keystore.ModeFile})
	if err != nil {
		return key.PublicKey{}, false, err
	}
	k, created, err := st.LoadOrCreate(ctx)
	if err != nil {
		return key.PublicKey{}, false, err
	}
	return k.Public(), created, nil
}

// agentsWindow is the "Connect a coding agent" window: a tab per harness.
type agentsWindow struct {
	a       *App
	w       fyne.Window
	program string
	panels  []*agentPanel
	tabs    *container.AppTabs
}

// agentPanel is one harness's tab.
type agentPanel struct {
	win    *agentsWindow
	kind   agentKind
	name   *widget.Entry
	dir    *widget.Entry
	mirror *widget.Check
	lines  *widget.Label
	copy   *widget.Button
	key    *widget.Label
	trust  *widget.Button
	note   *widget.Label
}

// agentsButton is the Settings button that opens the window (made once,
// with the Settings window).
func (a *App) agentsButton() *widget.Button {
	var win *agentsWindow
	return widget.NewButton("Connect a coding agent…", func() {
		if win == nil {
			win = newAgentsWindow(a, awpProgram())
		}
		win.refresh()
		win.w.Show()
		win.w.RequestFocus()
	})
}

func newAgentsWindow(a *App, program string) *agentsWindow {
	win := &agentsWindow{a: a, w: a.fa.NewWindow("AWP: Connect a coding agent"), program: program}
	intro := widget.NewLabel("A coding agent gets its own AWP peer: its harness starts `awp mcp --run`, " +
		"which keeps the agent's identity in the agent's data directory, connects to this tray and gives the agent " +
		"the awp_* tools (send, wait, inbox, request…). Give each agent its own name and data directory.")
	intro.Wrapping = fyne.TextWrapWord
	win.tabs = container.NewAppTabs()
	host, _ := os.Hostname()
	cfg, _ := os.UserConfigDir()
	for _, k := range agentKinds {
		p := win.newPanel(k, k.slug+"@"+host, filepath.Join(cfg, "awp", "agents", k.slug))
		win.panels = append(win.panels, p)
		win.tabs.Append(container.NewTabItem(k.tab, p.content()))
	}
	win.w.SetContent(container.NewBorder(intro, nil, nil, nil, win.tabs))
	win.w.Resize(fyne.NewSize(820, 600))
	win.w.SetCloseIntercept(win.w.Hide)
	return win
}

func (win *agentsWindow) newPanel(k agentKind, name, dir string) *agentPanel {
	p := &agentPanel{win: win, kind: k}
	p.name = widget.NewEntry()
	p.name.SetText(name)
	p.dir = widget.NewEntry()
	p.dir.SetText(dir)
	p.mirror = widget.NewCheck("Mirror its threads to this tray, so you see what it says to others", nil)
	p.mirror.SetChecked(true)
	p.lines = widget.NewLabel("")
	p.lines.TextStyle = fyne.TextStyle{Monospace: true}
	p.lines.Wrapping = fyne.TextWrapBreak
	p.lines.Selectable = true
	p.copy = widget.NewButton("Copy", func() {
		win.a.setClipboard(p.lines.Text)
		p.note.SetText("Copied.")
	})
	p.key = widget.NewLabel("")
	p.key.Wrapping = fyne.TextWrapBreak
	p.trust = widget.NewButton("Create its identity and trust it", p.trustAgent)
	p.note = widget.NewLabel("")
	p.note.Wrapping = fyne.TextWrapWord
	p.note.TextStyle.Italic = true // helper text in the foreground colour: LowImportance is the disabled colour, 1.3:1 (light) and 1.5:1 (dark)
	p.mirror.OnChanged = func(bool) { p.refresh() }
	p.name.OnChanged = func(string) { p.refresh() }
	p.dir.OnChanged = func(string) { p.refresh() }
	return p
}

func (p *agentPanel) content() fyne.CanvasObject {
	form := widget.NewForm(
		widget.NewFormItem("Name", p.name),
		widget.NewFormItem("Data directory", p.dir),
		widget.NewFormItem("Mirror", p.mirror),
	)
	where := widget.NewLabel(p.kind.where)
	where.TextStyle = fyne.TextStyle{Bold: true}
	lines := container.NewBorder(nil, nil, nil, container.NewVBox(p.copy), container.NewVScroll(p.lines))
	trust := container.NewBorder(nil, nil, widget.NewLabel("Agent key"), p.trust, p.key)
	return container.NewBorder(container.NewVBox(form, where), container.NewVBox(trust, p.note), nil, nil, lines)
}

// refresh rebuilds every tab's lines from the tray's node. UI goroutine.
func (win *agentsWindow) refresh() {
	for _, p := range win.panels {
		p.refresh()
	}
}

// spec is the tab's configuration as entered, with this tray's key and
// addresses.
func (p *agentPanel) spec() agentSpec {
	s := agentSpec{format: p.kind.format, harness: p.kind.harness, program: p.win.program, mirror: p.mirror.Checked,
		name: strings.TrimSpace(p.name.Text), dataDir: strings.TrimSpace(p.dir.Text)}
	if be := p.win.a.backend(); be != nil {
		s.tray, s.dial = be.Key().String(), be.ListenAddrs()
	}
	return s
}

// refresh rebuilds the tab's lines and looks for the agent's identity.
// UI goroutine.
func (p *agentPanel) refresh() {
	s := p.spec()
	p.lines.SetText(s.lines())
	switch {
	case s.tray == "":
		p.note.SetText("This tray's peer is not running: the lines do not connect the agent to it yet. Open this again once it runs.")
	case len(s.dial) == 0:
		p.note.SetText("This tray listens on no address, so the agent cannot reach it: add one under Settings → Listen.")
	case !filepath.IsAbs(s.dataDir):
		p.note.SetText("Give the data directory as an absolute path: the harness starts the agent from anywhere.")
	default:
		p.note.SetText("")
	}
	p.showKey(s.dataDir)
}

// showKey shows the key of the identity in dir, if there is one, and
// whether this tray trusts it. UI goroutine; the file is read off it.
func (p *agentPanel) showKey(dir string) {
	be := p.win.a.backend()
	p.win.a.background(func() {
		text, trusted := "none yet: the agent makes one when it first starts, or create it now", false
		if _, err := os.Stat(filepath.Join(dir, keystore.FileName)); err == nil {
			ctx, cancel := context.WithTimeout(p.win.a.ctx, 5*time.Second)
			defer cancel()
			if st, err := keystore.Open(keystore.Options{DataDir: dir, Mode: keystore.ModeFile}); err == nil {
				if k, err := st.Load(ctx); err == nil {
					text = k.Public().String()
					trusted = isTrusted(be, text)
				}
			}
		}
		fyne.Do(func() {
			if strings.TrimSpace(p.dir.Text) != dir {
				return // the directory changed meanwhile
			}
			p.key.SetText(text)
			p.setTrusted(trusted)
		})
	})
}

func isTrusted(be Backend, k string) bool {
	if be == nil {
		return false
	}
	ps, err := be.Peers()
	if err != nil {
		return false
	}
	for _, pi := range ps {
		if pi.Key.String() == k {
			return pi.Trusted
		}
	}
	return false
}

func (p *agentPanel) setTrusted(trusted bool) {
	if trusted {
		p.trust.SetText("Trusted")
		p.trust.Disable()
		return
	}
	p.trust.SetText("Create its identity and trust it")
	p.trust.Enable()
}

// trustAgent creates the agent's identity in its data directory (unless
// it has one) and trusts its key on this tray. UI goroutine.
func (p *agentPanel) trustAgent() {
	be := p.win.a.backend()
	dir := strings.TrimSpace(p.dir.Text)
	if be == nil {
		p.note.SetText("This tray's peer is not running yet: try again once it runs.")
		return
	}
	if !filepath.IsAbs(dir) {
		p.note.SetText("Give the data directory as an absolute path first.")
		return
	}
	p.trust.Disable()
	p.win.a.background(func() {
		ctx, cancel := context.WithTimeout(p.win.a.ctx, 10*time.Second)
		defer cancel()
		k, created, err := agentIdentity(ctx, dir)
		if err == nil {
			err = be.Trust(k, true)
		}
		fyne.Do(func() {
			if err != nil {
				p.note.SetText("Could not trust the agent: " + err.Error())
				p.trust.Enable()
				return
			}
			p.key.SetText(k.String())
			p.setTrusted(true)
			msg := "Trusted. "
			if created {
				msg = "Created the agent's identity in " + dir + " and trusted it. "
			}
			p.note.SetText(msg + "It shows under Presence once it connects.")
		})
	})
}
