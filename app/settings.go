package app

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/awp-tray/awp-tray/app/autostart"
	"github.com/awp-tray/awp-tray/app/menu"
	"github.com/awp-tray/awp-tray/app/render"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/profile"
)

// PresenceDetails are the choices of presence detail (docs/protocol/presence.md).
var PresenceDetails = []string{"full", "peers", "none"}

// presenceNotes say under the Presence choice what the chosen detail
// shares, and with whom (docs/protocol/presence.md).
var presenceNotes = map[string]string{
	"full": "Full shares your name, software and connected peers, and also the subjects of your threads, whom they are with " +
		"and both states, with every peer up to 8 hops away.",
	"peers": "Peers (the default) shares your name, software (harness, model, host) and which peers you are connected to, " +
		"with every peer up to 8 hops away. No threads.",
	"none": "None publishes nothing about you. Peers you talk to still see your name and key when you connect.",
}

// presenceNote is the note for detail d.
func presenceNote(d string) string {
	if n, ok := presenceNotes[d]; ok {
		return n
	}
	return "Choose what peers learn about you from presence."
}

// mirrorNote says what mirroring does, under the mirror hosts.
const mirrorNote = "Mirroring copies what is said in your threads, as it happens, to the peers ticked here: " +
	"your other machines, so their AWP shows your threads too. They read them; they cannot answer in them. " +
	"A thread you or the other side keeps private is never mirrored."

// notRunningNote is Settings' note before the node runs.
const notRunningNote = "The peer is not running yet."

// readOnlyNote says why name and listen cannot be edited here.
const readOnlyNote = "Your name is your user and host name. Listen addresses are set when AWP starts (--listen); " +
	"neither can change while it runs."

// sandboxNote says how commands from peers run, under the switch.
func sandboxNote(st profile.SandboxStatus) string {
	switch {
	case st.Sandbox == profile.SandboxBwrap && st.Available:
		return "Commands see this workspace, not the rest of your home or your keys."
	case st.Sandbox == profile.SandboxBwrap:
		return "The sandbox cannot be used here (" + st.Reason + "): commands from peers are refused."
	case st.Mode == profile.SandboxNone:
		return "Commands from peers run unsandboxed as you."
	}
	return "Bubblewrap is not available (" + st.Reason + "): commands from peers run unsandboxed as you."
}

// settingsWindow shows the node's settings, edits those it can change
// while running (presence detail, mirror hosts), and the app's own:
// notifications and start at login.
type settingsWindow struct {
	a *App
	w fyne.Window

	name, listen   *widget.Label // read-only: they come from the start
	hostBox        *fyne.Container
	hosts          []*hostCheck // the mirror hosts to choose from
	hostNote       *widget.Label
	saved          nodeSettings // what the node has, as last read or saved
	presence       *widget.Select
	presenceNote   *widget.Label
	sandbox        *widget.Check
	sandboxNote    *widget.Label
	notify, login  *widget.Check
	identity, note *widget.Label
	save           *widget.Button
	form           *widget.Form
}

func (a *App) showSettings() {
	if a.settings == nil {
		a.settings = newSettingsWindow(a)
	}
	a.settings.reload()
	a.settings.w.Show()
	a.settings.w.RequestFocus()
}

func newSettingsWindow(a *App) *settingsWindow {
	s := &settingsWindow{a: a, w: a.fa.NewWindow("AWP: Settings")}
	s.name = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	s.name.Selectable = true
	s.name.Truncation = fyne.TextTruncateEllipsis
	s.listen = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	s.listen.Selectable = true
	s.listen.Wrapping = fyne.TextWrapBreak
	readOnly := widget.NewLabel(readOnlyNote)
	readOnly.Wrapping = fyne.TextWrapWord
	readOnly.TextStyle.Italic = true
	s.hostBox = container.NewVBox()
	s.hostNote = widget.NewLabel(mirrorNote)
	s.hostNote.Wrapping = fyne.TextWrapWord
	s.hostNote.TextStyle.Italic = true
	s.presence = widget.NewSelect(PresenceDetails, func(d string) {
		s.presenceNote.SetText(presenceNote(d))
		s.relayout()
		s.changed()
	})
	s.presenceNote = widget.NewLabel(presenceNote(""))
	s.presenceNote.Wrapping = fyne.TextWrapWord
	s.presenceNote.TextStyle.Italic = true
	s.sandbox = widget.NewCheck("Run commands from peers in a sandbox (bubblewrap)", s.setSandbox)
	s.sandboxNote = widget.NewLabel("")
	s.sandboxNote.Wrapping = fyne.TextWrapWord
	s.sandboxNote.TextStyle.Italic = true // helper text in the foreground colour: LowImportance is the disabled colour, 1.3:1 (light) and 1.5:1 (dark)
	s.notify = widget.NewCheck("Show desktop notifications", s.setNotify)
	s.login = widget.NewCheck("Start AWP when I log in", s.setAutostart)
	s.identity = widget.NewLabel("")
	s.identity.Wrapping = fyne.TextWrapWord
	s.note = widget.NewLabel("")
	s.note.Wrapping = fyne.TextWrapWord
	s.note.TextStyle.Italic = true // helper text in the foreground colour: LowImportance is the disabled colour, 1.3:1 (light) and 1.5:1 (dark)
	s.save = widget.NewButton("Save", s.saveNode)
	s.save.Disable() // until something changed
	s.save.Importance = widget.HighImportance

	form := widget.NewForm(
		widget.NewFormItem("Name", s.name),
		widget.NewFormItem("Listen", container.NewVBox(s.listen, readOnly)),
		widget.NewFormItem("Presence", container.NewVBox(s.presence, s.presenceNote)),
		widget.NewFormItem("Commands", container.NewVBox(s.sandbox, s.sandboxNote)),
		widget.NewFormItem("Mirror to", container.NewVBox(s.hostBox, s.hostNote)),
		widget.NewFormItem("Notifications", s.notify),
		widget.NewFormItem("Login", s.login),
		widget.NewFormItem("Identity", s.identity),
		widget.NewFormItem("Coding agents", a.agentsButton()),
	)
	s.form = form
	s.w.SetContent(container.NewBorder(nil, container.NewBorder(nil, nil, nil, s.save, s.note), nil, nil, container.NewVScroll(form)))
	s.w.Resize(fyne.NewSize(620, 520))
	s.w.SetCloseIntercept(s.w.Hide)
	return s
}

// autostartDir is where the login entry goes.
func (a *App) autostartDir() (string, error) {
	if a.opt.AutostartDir != "" {
		return a.opt.AutostartDir, nil
	}
	return autostart.Dir()
}

// nodeSettings are the node's settings the window shows. Name and listen
// come from the start; the presence detail and the mirror hosts can
// change while the node runs.
type nodeSettings struct {
	Name        string
	Listen      []string
	Presence    string   // "full", "peers" or "none"
	MirrorHosts []string // keys this node mirrors its threads to
	Peers       []peer.PeerInfo
}

// hostCheck is one peer that can be a mirror host, ticked when it is one.
type hostCheck struct {
	key   string
	check *widget.Check
}

// reload fills the form from the app and the node (read off the UI
// goroutine). UI goroutine.
func (s *settingsWindow) reload() {
	a := s.a
	s.showPause()
	s.identity.SetText("Your key is kept " + a.identityPlace() + ".")
	if dir, err := a.autostartDir(); err == nil {
		s.login.OnChanged = nil
		s.login.SetChecked(autostart.Enabled(dir))
		s.login.OnChanged = s.setAutostart
	}
	be := a.backend()
	if be == nil {
		s.fill(nodeSettings{Listen: a.opt.Listen, Presence: peer.DefaultPresence}, false)
		s.showSandbox(profile.SandboxStatus{}, false)
		return
	}
	a.background(func() {
		ns := nodeSettings{Name: be.Name(), Listen: be.ListenAddrs(), Presence: be.PresenceDetail(), MirrorHosts: keysText(be.MirrorHosts())}
		ns.Peers, _ = be.Peers()
		if len(ns.Listen) == 0 {
			ns.Listen = a.opt.Listen
		}
		st := be.ExecSandbox()
		fyne.Do(func() {
			s.fill(ns, true)
			s.showSandbox(st, true)
		})
	})
}

// fill shows node settings; running says the node can change some.
// UI goroutine.
func (s *settingsWindow) fill(ns nodeSettings, running bool) {
	s.saved = ns
	s.name.SetText(ns.Name)
	listen := strings.Join(ns.Listen, "\n")
	if listen == "" {
		listen = "nothing: this peer only dials out"
	}
	s.listen.SetText(listen)
	s.presence.SetSelected(ns.Presence)
	s.fillHosts(ns)
	if running {
		s.presence.Enable()
		if s.note.Text == notRunningNote {
			s.note.SetText("")
		}
	} else {
		s.presence.Disable()
		s.note.SetText(notRunningNote)
	}
	s.changed()
	if !running {
		s.save.Disable()
	}
	s.relayout()
}

// relayout lays the form out again: a wrapped note whose text changed
// has another height, which the form learns only when asked.
func (s *settingsWindow) relayout() {
	if s.form != nil {
		s.form.Refresh()
		s.w.Content().Refresh()
	}
}

// fillHosts shows a check for each known peer, and for each mirror host
// that is not one (so none is dropped unseen), ticked when it is a host.
// UI goroutine.
func (s *settingsWindow) fillHosts(ns nodeSettings) {
	hosts := map[string]bool{}
	for _, h := range ns.MirrorHosts {
		hosts[h] = true
	}
	s.hosts = nil
	s.hostBox.Objects = nil
	add := func(k, label string) {
		c := widget.NewCheck(label, func(bool) { s.changed() })
		c.Checked = hosts[k]
		s.hosts = append(s.hosts, &hostCheck{key: k, check: c})
		s.hostBox.Add(c)
	}
	known := map[string]bool{}
	for _, p := range ns.Peers {
		known[p.Key.String()] = true
		name := render.Clip(p.Name, render.MaxName)
		if name == "" {
			name = "(no name)"
		}
		add(p.Key.String(), name+" ("+render.ShortKey(p.Key.String())+")")
	}
	for _, h := range ns.MirrorHosts {
		if !known[h] {
			add(h, render.ShortKey(h)+" (not a known peer)")
		}
	}
	if len(s.hosts) == 0 {
		none := widget.NewLabel("No peers yet: add your other machines in Presence, then tick them here.")
		none.Wrapping = fyne.TextWrapWord
		s.hostBox.Add(none)
	}
	s.hostBox.Refresh()
}

// chosenHosts are the ticked mirror hosts, in the order shown.
func (s *settingsWindow) chosenHosts() []string {
	var out []string
	for _, h := range s.hosts {
		if h.check.Checked {
			out = append(out, h.key)
		}
	}
	return out
}

// changed enables Save when what is chosen differs from what the node
// has. UI goroutine.
func (s *settingsWindow) changed() {
	if s.save == nil {
		return
	}
	if s.a.backend() != nil && (s.presence.Selected != s.saved.Presence || !sameKeys(s.chosenHosts(), s.saved.MirrorHosts)) {
		s.save.Enable()
		s.note.SetText("")
	} else {
		s.save.Disable()
	}
}

func sameKeys(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// showPause shows whether notifications are paused (the tray's menu
// pauses them too), without acting on it. UI goroutine.
func (s *settingsWindow) showPause() {
	s.notify.OnChanged = nil
	s.notify.SetChecked(!s.a.pause.Active(time.Now()))
	s.notify.OnChanged = s.setNotify
}

// setNotify resumes notifications, or pauses them until resumed, through
// the tray process, which keeps the pause.
func (s *settingsWindow) setNotify(on bool) {
	p := menu.Pause{Forever: !on}
	s.a.pause = p
	if t := s.a.opt.Tray; t != nil {
		t.SetPause(p)
	}
	s.a.updateStatus()
}

func (s *settingsWindow) saveNode() {
	be := s.a.backend()
	if be == nil {
		return
	}
	ns := nodeSettings{Presence: s.presence.Selected, MirrorHosts: s.chosenHosts()}
	names := map[string]string{}
	for _, h := range s.hosts {
		names[h.key] = h.check.Text
	}
	s.save.Disable()
	s.a.background(func() {
		err := saveSettings(be, ns)
		fyne.Do(func() {
			if err != nil {
				s.save.Enable()
				showPlainError("Settings not saved", err, s.w)
				return
			}
			s.saved.Presence, s.saved.MirrorHosts = ns.Presence, ns.MirrorHosts
			s.note.SetText(savedText(ns, names, time.Now()))
		})
	})
}

// savedText confirms what Save stored, in words.
func savedText(ns nodeSettings, names map[string]string, now time.Time) string {
	hosts := "no mirror hosts"
	if len(ns.MirrorHosts) > 0 {
		var hs []string
		for _, h := range ns.MirrorHosts {
			n := names[h]
			if n == "" {
				n = render.ShortKey(h)
			}
			hs = append(hs, n)
		}
		hosts = "mirroring to " + strings.Join(hs, ", ")
	}
	return fmt.Sprintf("✓ Saved at %s: presence %s, %s.", now.Format("15:04"), ns.Presence, hosts)
}

// keysText is the keys' text, as the windows hold keys (names, cards,
// checkboxes).
func keysText(ks []key.PublicKey) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.String()
	}
	return out
}

// parseKeys parses keys' text back for the node.
func parseKeys(ss []string) ([]key.PublicKey, error) {
	out := make([]key.PublicKey, 0, len(ss))
	for _, s := range ss {
		k, err := key.ParsePublic(s)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// saveSettings stores what of ns the node can change while it runs: the
// presence detail and the mirror hosts, each only when it changed.
func saveSettings(be Backend, ns nodeSettings) error {
	if ns.Presence != "" && ns.Presence != be.PresenceDetail() {
		if err := be.SetPresenceDetail(ns.Presence); err != nil {
			return err
		}
	}
	if strings.Join(keysText(be.MirrorHosts()), "\n") != strings.Join(ns.MirrorHosts, "\n") {
		hosts, err := parseKeys(ns.MirrorHosts)
		if err != nil {
			return err
		}
		if err := be.SetMirrorHosts(hosts); err != nil {
			return err
		}
	}
	return nil
}

// showSandbox shows how exec runs on the node (running: the switch can
// change it): the switch, and a note under it, a warning when commands
// run unsandboxed or are refused. UI goroutine.
func (s *settingsWindow) showSandbox(st profile.SandboxStatus, running bool) {
	s.sandbox.OnChanged = nil
	s.sandbox.SetChecked(running && st.Mode != profile.SandboxNone)
	s.sandbox.OnChanged = s.setSandbox
	if !running {
		s.sandbox.Disable()
		s.sandboxNote.SetText("")
		return
	}
	s.sandbox.Enable()
	s.sandboxNote.Importance = widget.MediumImportance
	if st.Unsandboxed() || !st.Available {
		s.sandboxNote.Importance = widget.WarningImportance
	}
	s.sandboxNote.SetText(sandboxNote(st))
}

// setSandbox switches the exec sandbox (auto when on, none when off); the
// node stores the choice and applies it from the next request.
func (s *settingsWindow) setSandbox(on bool) {
	be := s.a.backend()
	if be == nil {
		return
	}
	mode := profile.SandboxNone
	if on {
		mode = profile.SandboxAuto
	}
	s.a.background(func() {
		err := be.SetExecSandbox(mode)
		st := be.ExecSandbox()
		fyne.Do(func() {
			if err != nil {
				dialog.ShowError(err, s.w)
			}
			s.showSandbox(st, true)
		})
	})
}

// setAutostart writes or removes the login entry off the UI goroutine.
func (s *settingsWindow) setAutostart(on bool) {
	a := s.a
	dir, err := a.autostartDir()
	if err != nil {
		dialog.ShowError(err, s.w)
		return
	}
	e := autostart.App(a.opt.Exec, a.opt.ExecArgs)
	a.background(func() {
		var err error
		if on {
			err = autostart.Enable(dir, e)
		} else {
			err = autostart.Disable(dir)
		}
		if err != nil {
			a.log.Error("autostart", "on", on, "err", err)
			fyne.Do(func() {
				dialog.ShowError(err, s.w)
				s.login.OnChanged = nil
				s.login.SetChecked(autostart.Enabled(dir))
				s.login.OnChanged = s.setAutostart
			})
			return
		}
		a.log.Info("autostart", "on", on, "dir", dir)
	})
}
