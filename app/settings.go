package app

import (
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/awp-tray/awp-tray/app/autostart"
	"github.com/awp-tray/awp-tray/app/menu"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/profile"
)

// PresenceDetails are the choices of presence detail (docs/protocol/presence.md).
var PresenceDetails = []string{"full", "peers", "none"}

// presenceNote says under the Presence choice what each one shares, and
// with whom.
const presenceNote = "Full shares the subjects of your threads and whom they are with, with every peer up to 8 hops away; " +
	"peers (the default) shares only your name, software and connected peers; none shares nothing."

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
	s.notify = widget.NewCheck("Show desktop notifications", s.setNotify)
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

// nodeSettings are the node's settings the window shows. Name, about and
// listen come from the start flags; the presence detail and the mirror
// hosts can change while the node runs.
type nodeSettings struct {
	Name, About string
	Listen      []string
	Presence    string   // "full", "peers" or "none"
	MirrorHosts []string // keys this node mirrors its threads to
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
		ns := nodeSettings{Name: be.Name(), Listen: be.ListenAddrs(), Presence: be.PresenceDetail(), MirrorHosts: be.MirrorHosts()}
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
	s.name.SetText(ns.Name)
	s.about.SetText(ns.About)
	s.listen.SetText(strings.Join(ns.Listen, "\n"))
	s.presence.SetSelected(ns.Presence)
	s.hosts.SetText(strings.Join(ns.MirrorHosts, "\n"))
	for _, w := range []fyne.Disableable{s.name, s.about, s.listen} {
		w.Disable() // start flags
	}
	for _, w := range []fyne.Disableable{s.presence, s.hosts, s.save} {
		if running {
			w.Enable()
		} else {
			w.Disable()
		}
	}
	if running {
		s.note.SetText("Name, about and listen come from the start flags.")
	} else {
		s.note.SetText("The peer is not running yet.")
	}
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
	ns := nodeSettings{Presence: s.presence.Selected, MirrorHosts: lines(s.hosts.Text)}
	s.save.Disable()
	s.a.background(func() {
		err := saveSettings(be, ns)
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

// saveSettings stores what of ns the node can change while it runs: the
// presence detail and the mirror hosts, each only when it changed.
func saveSettings(be Backend, ns nodeSettings) error {
	if ns.Presence != "" && ns.Presence != be.PresenceDetail() {
		if err := be.SetPresenceDetail(ns.Presence); err != nil {
			return err
		}
	}
	if strings.Join(be.MirrorHosts(), "\n") != strings.Join(ns.MirrorHosts, "\n") {
		if err := be.SetMirrorHosts(ns.MirrorHosts); err != nil {
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
	s.sandboxNote.Importance = widget.LowImportance
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
