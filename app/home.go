package app

import (
	"path/filepath"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/awp-tray/awp-tray/app/menu"
	"github.com/awp-tray/awp-tray/app/render"
	"github.com/awp-tray/awp-tray/peer"
)

// homeWindow is the main window: status, actions, and the threads list
// with a text filter.
type homeWindow struct {
	a      *App
	w      fyne.Window
	status *widget.Label
	notice *widget.Label
	filter *widget.Entry
	list   *widget.List
	empty  *widget.Label // over the list when it shows no thread: why, and what to do

	all    []peer.ThreadInfo // as the node listed them
	listed bool              // the node listed them at least once
	shown  []peer.ThreadInfo // filtered and sorted
	names  map[string]string // peer key → display name
	up     map[string]bool   // peer key → connected, for known peers
	clock  func() time.Time  // now, for relative times (tests fix it)
}

func newHomeWindow(a *App) *homeWindow {
	h := &homeWindow{a: a, w: a.fa.NewWindow("AWP"), names: map[string]string{}, up: map[string]bool{}, clock: time.Now}
	h.status = widget.NewLabelWithStyle("AWP: starting…", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	h.status.Truncation = fyne.TextTruncateEllipsis
	h.notice = widget.NewLabel("")
	h.notice.Wrapping = fyne.TextWrapWord
	h.notice.Hide()
	h.filter = widget.NewEntry()
	h.filter.SetPlaceHolder("Filter threads: subject, peer, state, text…")
	h.filter.OnChanged = func(string) { h.applyFilter() }

	h.list = widget.NewList(
		func() int { return len(h.shown) },
		func() fyne.CanvasObject { return newThreadRow() },
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id < 0 || id >= len(h.shown) {
				return
			}
			o.(*threadRow).set(render.DescribeThread(h.shown[id], h.rowOptions()))
		},
	)
	h.empty = widget.NewLabelWithStyle("", fyne.TextAlignCenter, fyne.TextStyle{Italic: true})
	h.empty.Wrapping = fyne.TextWrapWord
	h.empty.Hide() // until the node lists its threads
	h.list.OnSelected = func(id widget.ListItemID) {
		h.list.UnselectAll()
		if id >= 0 && id < len(h.shown) {
			a.openThread(h.shown[id])
		}
	}

	actions := container.NewHBox(
		widget.NewButton(labelNewThread, a.newThread),
		widget.NewButton(menu.LabelPresence, a.showPresence),
		widget.NewButton("Approvals", a.showApprovals),
		widget.NewButton(menu.LabelAddPeer, a.addPeer),
		widget.NewButton(menu.LabelInvite, a.copyInvite),
		widget.NewButton(menu.LabelSettings, a.showSettings),
	)
	top := container.NewVBox(h.status, h.notice, actions, h.filter)
	h.w.SetContent(container.NewBorder(top, nil, nil, nil, container.NewStack(h.list, container.NewPadded(h.empty))))
	h.w.Resize(fyne.NewSize(720, 520))
	h.w.SetCloseIntercept(h.closeAsked)
	return h
}

// closeAsked hides the window, or quits AWP when there is no tray (the
// window is the app then). UI goroutine.
func (h *homeWindow) closeAsked() {
	if h.a.HasTray() {
		h.w.Hide()
		return
	}
	h.a.quitAll()
}

// name is a key's display name: the peer's name when known, else the
// short key.
func (h *homeWindow) name(k string) string {
	if n := h.names[k]; n != "" {
		return n
	}
	if be := h.a.backend(); be != nil && be.Key().String() == k {
		return "me"
	}
	return render.ShortKey(k)
}

// rowOptions are how rows are described now: names, my key, who is up.
// UI goroutine.
func (h *homeWindow) rowOptions() render.RowOptions {
	o := render.RowOptions{Name: h.name, Now: h.clock(), Up: func(k string) (bool, bool) {
		up, known := h.up[k]
		return up, known
	}}
	if be := h.a.backend(); be != nil {
		o.Me = be.Key()
	}
	return o
}

// nameSnapshot copies the name table into a function safe to call off
// the UI goroutine.
func (h *homeWindow) nameSnapshot(be Backend) func(string) string {
	names := make(map[string]string, len(h.names)+1)
	for k, v := range h.names {
		names[k] = v
	}
	if be != nil {
		names[be.Key().String()] = "me"
	}
	return func(k string) string {
		if n := names[k]; n != "" {
			return n
		}
		return render.ShortKey(k)
	}
}

// setThreads shows a new thread list and passes each open thread window
// its new metadata. UI goroutine.
func (h *homeWindow) setThreads(ts []peer.ThreadInfo) {
	h.all, h.listed = ts, true
	h.applyFilter()
	for _, t := range ts {
		if tw := h.a.threads[threadKey{t.Th, t.MirroredFrom}]; tw != nil {
			tw.setInfo(t)
		}
	}
}

// setPeers learns peer names and reports whether one was new or changed.
// UI goroutine.
func (h *homeWindow) setPeers(ps []peer.PeerInfo) bool {
	changed := false
	clear(h.up)
	for _, p := range ps {
		h.up[p.Key.String()] = p.Up
		name := render.Clip(p.Name, render.MaxName)
		if name != "" && h.names[p.Key.String()] != name {
			h.names[p.Key.String()] = name
			changed = true
		}
	}
	h.list.Refresh()
	return changed
}

func (h *homeWindow) applyFilter() {
	h.shown = render.FilterThreads(h.all, h.filter.Text, h.name)
	switch {
	case len(h.shown) > 0 || !h.listed:
		h.empty.Hide()
	case len(h.all) > 0:
		h.empty.SetText("No thread matches “" + h.filter.Text + "”.")
		h.empty.Show()
	default:
		h.empty.SetText(emptyThreads)
		h.empty.Show()
	}
	h.list.Refresh()
}

// labelNewThread is the main window's button that starts a thread.
const labelNewThread = "New thread…"

// emptyThreads is what the main window says while there is no thread.
const emptyThreads = "No threads yet.\n\n" +
	"To talk with another peer, send them your invite (" + menu.LabelInvite + ") and add theirs (" + menu.LabelAddPeer + "), " +
	"then start a thread (" + labelNewThread + "). Threads that agents start with you appear here too."

func (h *homeWindow) setStatus(s string) { h.status.SetText("AWP: " + s) }

// setNotice shows a line under the status (no tray, dial errors).
func (h *homeWindow) setNotice(s string) {
	h.notice.SetText(s)
	if s == "" {
		h.notice.Hide()
	} else {
		h.notice.Show()
	}
}

// askFileKey explains a keyring failure and offers the key file; cb gets
// true when the person chose the file, false when they quit.
func (h *homeWindow) askFileKey(err error, cb func(bool)) {
	path := filepath.Join(h.a.opt.DataDir, "identity.key")
	msg := widget.NewLabel("AWP keeps your identity (an Ed25519 key) in the OS keyring, " +
		"but the keyring could not be used:\n\n" + err.Error() + "\n\n" +
		"AWP can keep the key in a file instead:\n" + path + " (readable only by you).\n" +
		"Anyone who can read that file can act as you. To use the keyring later, start AWP with --keyring keyring.")
	msg.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomConfirm("The OS keyring is unavailable", "Keep the key in a file", "Quit", msg, cb, h.w)
	d.Resize(fyne.NewSize(560, 320))
	d.Show()
}

// showError shows err in the main window.
func (h *homeWindow) showError(err error) {
	h.w.Show()
	dialog.ShowError(err, h.w)
}
