package app

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"

	"github.com/awp-tray/awp-tray/app/icon"
)

// Tray menu labels that do not change.
const (
	labelPresence = "Presence"
	labelInvite   = "Copy my invite"
	labelAddPeer  = "Add peer…"
	labelPause    = "Pause notifications"
	labelSettings = "Settings"
	labelQuit     = "Quit"
)

// statusLine is the one-line state of the node: the first item of the tray
// menu and the top of the main window.
func statusLine(s snapshot) string {
	if s.Err != "" {
		return "not running: " + s.Err
	}
	if !s.Booted {
		return "starting…"
	}
	var b strings.Builder
	switch s.PeersUp {
	case 0:
		b.WriteString("offline: no peer connected")
	case 1:
		b.WriteString("1 peer connected")
	default:
		fmt.Fprintf(&b, "%d peers connected", s.PeersUp)
	}
	if s.Approvals > 0 {
		fmt.Fprintf(&b, " · %d waiting for you", s.Approvals)
	}
	return b.String()
}

// threadsLabel is the Threads item: "Threads (3 unread)".
func threadsLabel(unread int) string {
	if unread > 0 {
		return fmt.Sprintf("Threads (%d unread)", unread)
	}
	return "Threads"
}

// approvalsLabel is the Approvals item: "Approvals (1 pending)".
func approvalsLabel(n int) string {
	if n > 0 {
		return fmt.Sprintf("Approvals (%d pending)", n)
	}
	return "Approvals"
}

// trayMenu is the tray's menu; its items are updated in place.
type trayMenu struct {
	menu                       *fyne.Menu
	status, threads, approvals *fyne.MenuItem
	pause                      *fyne.MenuItem
	lastLabels                 string // labels the tray shows now
}

func newTrayMenu(a *App) *trayMenu {
	m := &trayMenu{}
	m.status = fyne.NewMenuItem("AWP: starting…", nil)
	m.status.Disabled = true
	m.threads = fyne.NewMenuItem("Threads", a.ShowMain)
	m.approvals = fyne.NewMenuItem("Approvals", a.showApprovals)
	m.pause = fyne.NewMenuItem(labelPause, func() { a.setPaused(!a.paused) })
	quit := fyne.NewMenuItem(labelQuit, a.Quit)
	quit.IsQuit = true
	m.menu = fyne.NewMenu("AWP",
		m.status,
		fyne.NewMenuItemSeparator(),
		m.threads,
		fyne.NewMenuItem(labelPresence, a.showPresence),
		m.approvals,
		fyne.NewMenuItemSeparator(),
		fyne.NewMenuItem(labelInvite, a.copyInvite),
		fyne.NewMenuItem(labelAddPeer, a.addPeer),
		m.pause,
		fyne.NewMenuItem(labelSettings, a.showSettings),
		fyne.NewMenuItemSeparator(),
		quit,
	)
	return m
}

// labels is a fingerprint of what the menu shows.
func (m *trayMenu) labels() string {
	var b strings.Builder
	for _, it := range m.menu.Items {
		fmt.Fprintf(&b, "%s|%v|%v\n", it.Label, it.Checked, it.Disabled)
	}
	return b.String()
}

// updateTray brings the tray menu and icon up to date, touching the tray
// only when what it shows changed. UI goroutine.
func (a *App) updateTray() {
	if a.tray == nil || a.menu == nil {
		return
	}
	s := a.counts()
	m := a.menu
	m.status.Label = "AWP: " + a.status
	m.threads.Label = threadsLabel(s.Unread)
	m.approvals.Label = approvalsLabel(s.Approvals)
	m.pause.Checked = a.paused
	if l := m.labels(); l != m.lastLabels {
		m.lastLabels = l
		a.tray.SetSystemTrayMenu(m.menu)
	}
	if png, changed := a.icons.PNG(iconState(s)); changed {
		a.tray.SetSystemTrayIcon(fyne.NewStaticResource(icon.ResourceName(iconState(s).Look()), png))
	}
}

// setPaused pauses or resumes notifications and remembers it. UI goroutine.
func (a *App) setPaused(p bool) {
	a.paused = p
	a.pausedFlag.Store(p)
	a.fa.Preferences().SetBool(prefPaused, p)
	if a.settings != nil {
		a.settings.notify.SetChecked(!p)
	}
	a.updateTray()
}
