package app

import (
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"github.com/awp-tray/awp-tray/app/render"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/profile"
)

// AllowFor is how long "Allow … for 1 hour" grants.
const AllowFor = render.AllowFor

// approvalsWindow lists pending requests and shows the one the person
// selected in full, with the choices render.Choices gives for it. Nothing
// in the detail pane outlives a change of request: title, fields and
// buttons are built anew from the pending request on every render, and
// every button is bound to that request's id.
type approvalsWindow struct {
	a       *App
	w       fyne.Window
	list    *widget.List
	pending []peer.ApprovalRequest // the node's list, oldest first
	cur     string                 // id of the request in the pane ("" none)
	row     int                    // the list's selected row, as its callbacks report it (-1 none)
	syncing bool                   // the window itself is changing the selection

	title      *widget.Label
	fields     *fyne.Container // label, value, label, value… (form layout)
	scroll     *container.Scroll
	buttons    *fyne.Container
	choices    []*widget.Button // the buttons in buttons, in order (Deny last)
	grantsNote *widget.Label    // what a grant-signing choice lets the peer do
	whole      *widget.Button   // "Show whole request…", when a field was cut
	// readWhole: requests whose whole text the person opened (a cut one
	// cannot be allowed before).
	readWhole map[string]bool
	empty     *widget.Label
	note      string // what happened last, shown in the empty pane
	detail    *fyne.Container
	decided   map[string]bool // decisions sent, waiting for the node's event

	clock   armClock
	shownAt time.Time // when what the pane shows last changed
	armed   bool      // armDelay has passed since shownAt
	gen     int       // counts changes; a timer of an older one does nothing

	why       *widget.Label // the node's reason for asking
	countdown *widget.Label // time left to answer the request shown
	ticking   bool          // a countdown tick is scheduled

	grantList *widget.List
	grants    []peer.GrantInfo // issued by me, newest expiry first
	noGrants  *widget.Label

	histList  *widget.List
	history   []peer.ApprovalRecord // decided since the node started, newest first
	noHistory *widget.Label
	tabs      *container.AppTabs
}

func (a *App) showApprovals() {
	w := a.approvalsWin()
	w.showOnly()
	w.raise()
	a.background(func() { a.refresh(dirtyApprovals) })
}

func (a *App) approvalsWin() *approvalsWindow {
	if a.approvals == nil {
		a.approvals = newApprovalsWindow(a)
	}
	return a.approvals
}

// promptApproval brings the Approvals window forward on a new request.
// The request is put in the pane only when it is the only one waiting and
// nothing else is shown: a request never replaces the one the person is
// looking at. UI goroutine.
func (a *App) promptApproval(req peer.ApprovalRequest) {
	w := a.approvalsWin()
	if w.find(req.ID) == nil {
		w.pending = append(w.pending, req)
		w.list.Refresh()
	}
	w.showOnly()
	w.raise()
}

// raise shows the window and brings it forward. Whatever the pane shows
// is new under the cursor then, so the buttons wait armDelay again.
func (w *approvalsWindow) raise() {
	w.w.Show()
	w.w.RequestFocus()
	w.rearm()
	w.render()
}

// showOnly puts the request in the pane when nothing is shown and it is
// the only one waiting.
func (w *approvalsWindow) showOnly() {
	if w.cur != "" {
		return
	}
	var only string
	for _, p := range w.pending {
		if w.decided[p.ID] {
			continue
		}
		if only != "" {
			return
		}
		only = p.ID
	}
	if only != "" {
		w.show(only)
	}
}

func newApprovalsWindow(a *App) *approvalsWindow {
	w := &approvalsWindow{a: a, w: a.fa.NewWindow("AWP: Approvals"), decided: map[string]bool{}, readWhole: map[string]bool{},
		row: -1, clock: newArmClock()}
	w.list = newTextList(func() int { return len(w.pending) },
		func(i int) string { return w.rowText(w.pending[i]) })
	w.list.OnSelected = func(id widget.ListItemID) {
		w.row = id
		if !w.syncing && id >= 0 && id < len(w.pending) {
			w.show(w.pending[id].ID) // the person clicked a row
		}
	}
	w.list.OnUnselected = func(id widget.ListItemID) {
		if w.row == id {
			w.row = -1
		}
	}
	w.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	w.title.Wrapping = fyne.TextWrapWord
	w.fields = container.New(layout.NewFormLayout())
	w.scroll = container.NewVScroll(w.fields)
	w.buttons = container.NewHBox()
	w.grantsNote = widget.NewLabel("")
	w.grantsNote.Wrapping = fyne.TextWrapWord
	w.grantsNote.TextStyle = fyne.TextStyle{Italic: true}
	w.empty = widget.NewLabel("")
	w.empty.Wrapping = fyne.TextWrapWord
	w.why = widget.NewLabel("")
	w.why.Wrapping = fyne.TextWrapWord
	w.why.TextStyle.Italic = true // helper text in the foreground colour: LowImportance is the disabled colour, 1.3:1 (light) and 1.5:1 (dark)
	w.countdown = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	w.countdown.Importance = widget.MediumImportance // bold in the foreground colour: the warning orange reads at about 2:1 on white
	w.detail = container.NewBorder(container.NewVBox(w.title, w.why), container.NewVBox(w.countdown, w.buttons, w.grantsNote), nil, nil, w.scroll)
	split := container.NewHSplit(w.list, container.NewStack(w.empty, w.detail))
	split.Offset = 0.3

	w.tabs = container.NewAppTabs(
		container.NewTabItem("Decided", w.newHistoryTab()),
		container.NewTabItem("Grants I issued", w.newGrantsTab()))
	outer := container.NewVSplit(split, w.tabs)
	outer.Offset = 0.7
	w.w.SetContent(outer)
	w.w.Resize(fyne.NewSize(860, 620))
	w.w.SetCloseIntercept(w.w.Hide)
	w.render()
	return w
}

func (w *approvalsWindow) self() key.PublicKey {
	if be := w.a.backend(); be != nil {
		return be.Key()
	}
	return key.PublicKey{}
}

// pathCheck marks paths the node will refuse, when it says where requests
// are confined (nil otherwise).
func (w *approvalsWindow) pathCheck() render.PathCheck {
	be := w.a.backend()
	if be == nil || be.Workspace() == "" {
		return nil
	}
	root, data := be.Workspace(), be.DataDir()
	return func(p string) string { return profile.CheckPath(root, data, p) }
}

// rowText is a pending request's row in the list.
func (w *approvalsWindow) rowText(r peer.ApprovalRequest) string {
	t := render.ApprovalTitle(r)
	if w.decided[r.ID] {
		return t + " · answered"
	}
	if dl, ok := render.ParseTime(r.Deadline); ok {
		t += " · " + render.Countdown(dl, w.clock.Now())
	}
	return t
}

// setPending shows the node's pending list. The request in the pane stays
// there while it is pending; when it is gone (timed out, withdrawn,
// decided elsewhere) the pane is emptied, never filled with another.
// UI goroutine.
func (w *approvalsWindow) setPending(ps []peer.ApprovalRequest) {
	if old := w.find(w.cur); old != nil && !containsID(ps, w.cur) {
		w.note = render.ApprovalTitle(*old) + ": no longer waiting (it timed out, was withdrawn, or was decided elsewhere)."
		w.cur = ""
	}
	w.pending = ps
	for _, m := range []map[string]bool{w.decided, w.readWhole} {
		for id := range m {
			if w.find(id) == nil {
				delete(m, id)
			}
		}
	}
	w.list.Refresh()
	w.show(w.cur)
}

func containsID(ps []peer.ApprovalRequest, id string) bool {
	for _, p := range ps {
		if p.ID == id {
			return true
		}
	}
	return false
}

func (w *approvalsWindow) find(id string) *peer.ApprovalRequest {
	if id == "" {
		return nil
	}
	for i := range w.pending {
		if w.pending[i].ID == id {
			return &w.pending[i]
		}
	}
	return nil
}

// show puts request id in the pane ("" or unknown: none) and selects its
// row. A change of request restarts the buttons' armDelay.
func (w *approvalsWindow) show(id string) {
	row := -1
	for i := range w.pending {
		if w.pending[i].ID == id {
			row = i
		}
	}
	if row < 0 {
		id = ""
	}
	if id != w.cur {
		w.cur = id
		w.rearm()
		w.scroll.ScrollToTop()
	}
	w.selectRow(row)
	w.render()
}

// selectRow makes the list's selection row i (-1: none) without acting on
// it as a click.
func (w *approvalsWindow) selectRow(i int) {
	if i == w.row {
		return
	}
	w.syncing = true
	defer func() { w.syncing = false }()
	if i < 0 {
		w.list.UnselectAll()
	} else {
		w.list.Select(i)
	}
	w.row = i
}

// render builds the pane from the request with id w.cur, or the empty
// pane. Every widget that shows something of the request is made here.
func (w *approvalsWindow) render() {
	req := w.find(w.cur)
	if req == nil {
		w.cur = ""
		w.choices, w.whole = nil, nil
		w.buttons.Objects = nil
		w.empty.SetText(w.emptyText())
		w.detail.Hide()
		w.empty.Show()
		return
	}
	id := req.ID
	d := render.DescribeApproval(*req, w.self(), w.pathCheck())
	w.title.SetText(d.Title)
	w.why.SetText(d.Why)
	w.showCountdown()
	var objs []fyne.CanvasObject
	for _, f := range d.Fields {
		l := widget.NewLabelWithStyle(f.Label, fyne.TextAlignTrailing, fyne.TextStyle{Bold: true})
		v := widget.NewLabel(f.Value)
		v.Wrapping = fyne.TextWrapBreak
		switch f.Label {
		case "who", "command", "cwd", "path", "env", "stdin", "content":
			v.TextStyle = fyne.TextStyle{Monospace: true}
		case "on", "for":
			v.TextStyle.Monospace = strings.Contains(f.Value, "ed25519:") // keys, not "this peer"
		case render.FieldRefused:
			l.Importance, v.Importance = widget.DangerImportance, widget.DangerImportance
			v.TextStyle = fyne.TextStyle{Bold: true}
		}
		objs = append(objs, l, v)
	}
	w.fields.Objects = objs
	w.fields.Refresh()

	done := w.decided[id]
	// A cut request is allowed only after the person opened it whole;
	// Deny needs nothing read.
	unread := d.Whole != nil && !w.readWhole[id]
	w.choices = nil
	objs = nil
	for _, c := range d.Choices {
		dec := c.Decision
		dec.By = "user"
		b := widget.NewButton(c.Label, func() { w.choose(id, dec) })
		if c.Primary {
			b.Importance = widget.HighImportance // Deny stays neutral: it is the safe answer
		}
		if done || !w.armed || (unread && dec.Allow) {
			b.Disable()
		}
		w.choices = append(w.choices, b)
		objs = append(objs, b)
	}
	w.whole = nil
	if d.Whole != nil {
		w.whole = widget.NewButton("Show whole request…", func() { w.showWhole(id) })
		if unread {
			w.whole.Importance = widget.HighImportance
		}
		objs = append(objs, w.whole)
	}
	w.buttons.Objects = objs
	w.buttons.Refresh()
	w.grantsNote.SetText(d.Grants)
	w.empty.Hide()
	w.detail.Show()
	w.detail.Refresh() // lay out the new rows and buttons now
}

// emptyText is what the pane says when no request is shown.
func (w *approvalsWindow) emptyText() string {
	waiting := 0
	for _, p := range w.pending {
		if !w.decided[p.ID] {
			waiting++
		}
	}
	var s string
	switch waiting {
	case 0:
		s = "Nothing is waiting for you."
	case 1:
		s = "1 request is waiting: select it in the list to see it in full and decide."
	default:
		s = fmt.Sprintf("%d requests are waiting: select one in the list to see it in full and decide.", waiting)
	}
	if w.note != "" {
		s = w.note + "\n\n" + s
	}
	return s
}

// choose takes decision d on request id, when the button that asks for it
// belongs to the request shown and may act.
func (w *approvalsWindow) choose(id string, d peer.Decision) {
	req := w.find(id)
	if req == nil || id != w.cur || w.decided[id] || !w.armedNow() {
		return
	}
	if d.Allow && !w.readWhole[id] && render.DescribeApproval(*req, w.self(), nil).Whole != nil {
		return
	}
	w.decide(id, d)
}

// wholeWidth is the width, in characters, of the whole-request window's
// lines.
const wholeWidth = 100

// showWhole opens a window with every field of the shown request uncut, in
// a list of wrapped lines: a label of the whole text would take Fyne
// seconds to lay out.
func (w *approvalsWindow) showWhole(id string) {
	req := w.find(id)
	if req == nil || id != w.cur {
		return
	}
	d := render.DescribeApproval(*req, w.self(), w.pathCheck())
	if d.Whole == nil {
		return
	}
	lines := render.WholeLines(d.Whole, wholeWidth)
	list := widget.NewList(
		func() int { return len(lines) },
		func() fyne.CanvasObject {
			return widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id >= 0 && id < len(lines) {
				o.(*widget.Label).SetText(lines[id])
			}
		},
	)
	win := w.a.fa.NewWindow("AWP: " + d.Title)
	win.SetContent(list)
	win.Resize(fyne.NewSize(900, 600))
	win.Show()
	if !w.readWhole[req.ID] {
		w.readWhole[req.ID] = true
		w.rearm() // the buttons change under the cursor
		w.render()
	}
}

// decide sends the decision for request id off the UI goroutine and
// empties the pane: the next request is shown only when the person
// selects it.
func (w *approvalsWindow) decide(id string, d peer.Decision) {
	be := w.a.backend()
	req := w.find(id)
	if be == nil || req == nil {
		return
	}
	w.decided[id] = true
	what := "Denied"
	if d.Allow {
		what = "Allowed once"
		if d.For > 0 {
			what = "Allowed for " + render.Duration(d.For)
		}
	}
	w.note = what + ": " + render.ApprovalTitle(*req) + "."
	w.list.Refresh()
	w.show("")
	w.a.background(func() {
		err := be.Decide(id, d)
		if err != nil {
			fyne.Do(func() {
				delete(w.decided, id)
				w.note = ""
				w.list.Refresh()
				w.render()
				dialog.ShowError(err, w.w)
			})
		}
		w.a.refresh(dirtyApprovals)
	})
}
