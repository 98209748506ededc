package app

import (
	"context"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/awp-tray/awp-tray/app/autostart"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/profile"
)

// PresenceDetails are the choices of presence detail (docs/protocol/presence.md).
var PresenceDetails = []string{"full", "peers", "none"}

// presenceNote says under the Presence choice what each one shares, and
// with whom.
const presenceNote = "Full shares the subjects of your threads and whom they are with, with every peer up to 8 hops away; " +
	"peers (the default) shares only your name, software and connected peers; none shares nothing."

// execSandboxer is implemented by nodes whose exec sandbox can be switched
// (peer.Node; docs/profile.md "Exec sandbox").
type execSandboxer interface {
	ExecSandbox() profile.SandboxStatus
	SetExecSandbox(mode string) error
}

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

// settingsWindow edits the node's settings (when it can change them
// while running) and the app's own: notifications and start at login.
type settingsWindow struct {
	a *App
	w fyne.Window

	name, about    *widget.Entry
	listen, hosts  *widget.Entry
	presence       *widget.Select
	presenceNote   *widget.Label
	sandbox        *widget.Check
	sandboxNote    *widget.Label
	notify, login  *widget.Check
	identity, note *widget.Label
	save           *widget.Button
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
	s.name = widget.NewEntry()
	s.about = widget.NewEntry()
	s.listen = widget.NewMultiLineEntry()
	s.listen.SetMinRowsVisible(2)
	s.hosts = widget.NewMultiLineEntry()
	s.hosts.SetMinRowsVisible(2)
	s.hosts.SetPlaceHolder("one key per line (ed25519:…)")
	s.presence = widget.NewSelect(PresenceDetails, nil)
	s.presenceNote = widget.NewLabel(presenceNote)
	s.presenceNote.Wrapping = fyne.TextWrapWord
	s.presenceNote.TextStyle.Italic = true
	s.sandbox = widget.NewCheck("Run commands from peers in a sandbox (bubblewrap)", s.setSandbox)
	s.sandboxNote = widget.NewLabel("")
	s.sandboxNote.Wrapping = fyne.TextWrapWord
	s.sandboxNote.Importance = widget.LowImportance
	s.notify = widget.NewCheck("Show desktop notifications", func(on bool) {
		if a.paused == !on {
			return
		}
		a.setPaused(!on)
	})
	s.login = widget.NewCheck("Start AWP when I log in", s.setAutostart)
	s.identity = widget.NewLabel("")
	s.identity.Wrapping = fyne.TextWrapWord
	s.note = widget.NewLabel("")
	s.note.Wrapping = fyne.TextWrapWord
	s.note.Importance = widget.LowImportance
	s.save = widget.NewButton("Save", s.saveNode)
	s.save.Importance = widget.HighImportance

	form := widget.NewForm(
		widget.NewFormItem("Name", s.name),
		widget.NewFormItem("About", s.about),
		widget.NewFormItem("Listen", s.listen),
		widget.NewFormItem("Presence", container.NewVBox(s.presence, s.presenceNote)),
		widget.NewFormItem("Commands", container.NewVBox(s.sandbox, s.sandboxNote)),
		widget.NewFormItem("Mirror to", s.hosts),
		widget.NewFormItem("Notifications", s.notify),
		widget.NewFormItem("Login", s.login),
		widget.NewFormItem("Identity", s.identity),
		widget.NewFormItem("Coding agents", a.agentsButton()),
	)
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

// reload fills the form from the node and the app. UI goroutine.
func (s *settingsWindow) reload() {
	a := s.a
	be := a.backend()
	s.notify.SetChecked(!a.paused)
	s.identity.SetText("Your key is kept " + a.identityPlace() + ".")
	if dir, err := a.autostartDir(); err == nil {
		s.login.OnChanged = nil
		s.login.SetChecked(autostart.Enabled(dir))
		s.login.OnChanged = s.setAutostart
	}

	listen := a.opt.Listen
	if be != nil && len(be.ListenAddrs()) > 0 {
		listen = be.ListenAddrs()
	}
	ns := NodeSettings{Listen: listen, Presence: peer.DefaultPresence}
	if be != nil {
		ns.Name = be.Name()
	}
	sb, editable := be.(SettingsBackend)
	if editable {
		ns = sb.NodeSettings()
		if len(ns.Listen) == 0 {
			ns.Listen = listen
		}
	}
	mh, hasHosts := be.(MirrorHoster)
	pd, hasDetail := be.(PresenceDetailer)
	if !editable && hasHosts {
		ns.MirrorHosts = mh.MirrorHosts()
	}
	if !editable && hasDetail {
		ns.Presence = pd.PresenceDetail()
	}
	s.name.SetText(ns.Name)
	s.about.SetText(ns.About)
	s.listen.SetText(strings.Join(ns.Listen, "\n"))
	s.presence.SetSelected(ns.Presence)
	s.hosts.SetText(strings.Join(ns.MirrorHosts, "\n"))
	s.reloadSandbox(be)
	enable := func(on bool, ws ...fyne.Disableable) {
		for _, w := range ws {
			if on {
				w.Enable()
			} else {
				w.Disable()
			}
		}
	}
	enable(editable, s.name, s.about, s.listen)
	enable(editable || hasDetail, s.presence)
	enable(editable || hasHosts, s.hosts)
	enable(editable || hasHosts || hasDetail, s.save)
	switch {
	case be == nil:
		s.note.SetText("The peer is not running yet.")
	case !editable && (hasHosts || hasDetail):
		s.note.SetText("Name, about and listen come from the start flags.")
	case !editable:
		s.note.SetText("This peer's settings come from its start flags (--listen…); they cannot change while it runs.")
	default:
		s.note.SetText("")
	}
}

// lines splits a multi-line entry into trimmed, non-empty lines.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func (s *settingsWindow) saveNode() {
	be := s.a.backend()
	if be == nil {
		return
	}
	ns := NodeSettings{
		Name: strings.TrimSpace(s.name.Text), About: strings.TrimSpace(s.about.Text),
		Listen: lines(s.listen.Text), Presence: s.presence.Selected, MirrorHosts: lines(s.hosts.Text),
	}
	s.save.Disable()
	s.a.background(func() {
		ctx, cancel := context.WithTimeout(s.a.ctx, sendTimeout)
		defer cancel()
		err := saveSettings(ctx, be, ns)
		fyne.Do(func() {
			s.save.Enable()
			if err != nil {
				dialog.ShowError(err, s.w)
				return
			}
			s.note.SetText("Saved.")
		})
	})
}

// saveSettings stores ns: all of it through SettingsBackend when the node
// has it, else the presence detail and the mirror hosts it can change.
func saveSettings(ctx context.Context, be Backend, ns NodeSettings) error {
	if sb, ok := be.(SettingsBackend); ok {
		return sb.SetNodeSettings(ctx, ns)
	}
	if pd, ok := be.(PresenceDetailer); ok && ns.Presence != "" && ns.Presence != pd.PresenceDetail() {
		if err := pd.SetPresenceDetail(ns.Presence); err != nil {
			return err
		}
	}
	if mh, ok := be.(MirrorHoster); ok && strings.Join(mh.MirrorHosts(), "\n") != strings.Join(ns.MirrorHosts, "\n") {
		if err := mh.SetMirrorHosts(ns.MirrorHosts); err != nil {
			return err
		}
	}
	return nil
}

// reloadSandbox shows how exec runs on the node, when it can say.
func (s *settingsWindow) reloadSandbox(be Backend) {
	s.sandbox.OnChanged = nil
	defer func() { s.sandbox.OnChanged = s.setSandbox }()
	sb, ok := be.(execSandboxer)
	if !ok {
		s.sandbox.Disable()
		s.sandboxNote.SetText("")
		return
	}
	st := sb.ExecSandbox()
	s.sandbox.SetChecked(st.Mode != profile.SandboxNone)
	s.sandbox.Enable()
	s.showSandbox(st)
}

// showSandbox sets the note under the switch: a warning when commands run
// unsandboxed (or are refused), a hint otherwise.
func (s *settingsWindow) showSandbox(st profile.SandboxStatus) {
	s.sandboxNote.Importance = widget.LowImportance
	if st.Unsandboxed() || !st.Available {
		s.sandboxNote.Importance = widget.WarningImportance
	}
	s.sandboxNote.SetText(sandboxNote(st))
}

// setSandbox switches the exec sandbox (auto when on, none when off); the
// node stores the choice and applies it from the next request.
func (s *settingsWindow) setSandbox(on bool) {
	sb, ok := s.a.backend().(execSandboxer)
	if !ok {
		return
	}
	mode := profile.SandboxNone
	if on {
		mode = profile.SandboxAuto
	}
	s.a.background(func() {
		err := sb.SetExecSandbox(mode)
		st := sb.ExecSandbox()
		fyne.Do(func() {
			if err != nil {
				dialog.ShowError(err, s.w)
			}
			s.sandbox.OnChanged = nil
			s.sandbox.SetChecked(st.Mode != profile.SandboxNone)
			s.sandbox.OnChanged = s.setSandbox
			s.showSandbox(st)
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
	e := autostart.Entry{Name: "AWP", Comment: "Agent Wire Protocol tray", Exec: a.opt.Exec, Args: a.opt.ExecArgs, Icon: "dev.awp.tray"}
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
