package app

import (
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/awp-tray/awp-tray/app/render"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/grant"
)

// AllowFor is how long "Allow for 1 hour" grants.
const AllowFor = time.Hour

// approvalsWindow lists pending requests and shows one in full with
// Allow once, Allow for 1 hour and Deny.
type approvalsWindow struct {
	a       *App
	w       fyne.Window
	list    *widget.List
	pending []peer.ApprovalRequest
	cur     string // id of the request shown

	title  *widget.Label
	fields *widget.Form
	once   *widget.Button
	hour   *widget.Button
	deny   *widget.Button
	whole  *widget.Button // "Show whole request…", when a field was cut
	// readWhole: requests whose whole text the person opened (a cut one
	// cannot be allowed before).
	readWhole map[string]bool
	empty     *widget.Label
	detail    *fyne.Container
	decided   map[string]bool // decisions sent, waiting for the node's event

	grantList *widget.List
	grants    []peer.GrantInfo // issued by me, newest expiry first
	noGrants  *widget.Label
}

// GrantLine is an issued grant's row text in the Approvals window: to
// whom, what, and until when (or that it expired or was revoked).
func GrantLine(g peer.GrantInfo, name func(string) string, loc *time.Location) string {
	gr, err := grant.Parse(g.Grant)
	if err != nil {
		return g.ID + " (unreadable)"
	}
	who := render.ShortKey(gr.Sub.String())
	if name != nil {
		who = name(gr.Sub.String())
	}
	if loc == nil {
		loc = time.Local
	}
	s := fmt.Sprintf("%s: %s", who, strings.Join(gr.Caps, ", "))
	if len(gr.On) > 0 {
		var on []string
		for _, k := range gr.On {
			on = append(on, render.ShortKey(k.String()))
		}
		s += " on " + strings.Join(on, ", ")
	}
	switch {
	case g.Revoked:
		s += " · revoked"
	case g.Expired:
		s += " · expired " + gr.Exp.In(loc).Format("2006-01-02 15:04")
	default:
		s += " · until " + gr.Exp.In(loc).Format("2006-01-02 15:04")
	}
	if gr.Note != "" {
		s += " · " + gr.Note
	}
	return s
}

// setGrants shows the grants this node issued. UI goroutine.
func (w *approvalsWindow) setGrants(all []peer.GrantInfo) {
	w.grants = w.grants[:0]
	for _, g := range all {
		if g.Issued {
			w.grants = append(w.grants, g)
		}
	}
	if len(w.grants) == 0 {
		w.noGrants.Show()
	} else {
		w.noGrants.Hide()
	}
	w.grantList.Refresh()
}

// revoke stops honoring grant id after a confirmation.
func (w *approvalsWindow) revoke(id string) {
	g, ok := w.a.backend().(Granter)
	if !ok {
		return
	}
	dialog.ShowConfirm("Stop honoring this grant?",
		"Requests carrying it will need your approval again. The holder keeps the signed grant, but this peer no longer accepts it.",
		func(yes bool) {
			if yes {
				w.revokeNow(g, id)
			}
		}, w.w)
}

// revokeNow revokes grant id off the UI goroutine.
func (w *approvalsWindow) revokeNow(g Granter, id string) {
	w.a.background(func() {
		if err := g.RevokeGrant(id); err != nil {
			fyne.Do(func() { dialog.ShowError(err, w.w) })
		}
		w.a.refresh(dirtyApprovals)
	})
}

func (a *App) showApprovals() {
	w := a.approvalsWin()
	w.w.Show()
	w.w.RequestFocus()
	a.background(func() { a.refresh(dirtyApprovals) })
}

func (a *App) approvalsWin() *approvalsWindow {
	if a.approvals == nil {
		a.approvals = newApprovalsWindow(a)
	}
	return a.approvals
}

// promptApproval brings the Approvals window forward on a new request and
// shows it. UI goroutine.
func (a *App) promptApproval(req peer.ApprovalRequest) {
	w := a.approvalsWin()
	found := false
	for _, p := range w.pending {
		if p.ID == req.ID {
			found = true
		}
	}
	if !found {
		w.pending = append(w.pending, req)
		w.list.Refresh()
	}
	w.show(req.ID)
	w.w.Show()
	w.w.RequestFocus()
}

func newApprovalsWindow(a *App) *approvalsWindow {
	w := &approvalsWindow{a: a, w: a.fa.NewWindow("AWP: Approvals"), decided: map[string]bool{}, readWhole: map[string]bool{}}
	w.list = widget.NewList(
		func() int { return len(w.pending) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id >= 0 && id < len(w.pending) {
				o.(*widget.Label).SetText(render.DescribeApproval(w.pending[id], w.self()).Title)
			}
		},
	)
	w.list.OnSelected = func(id widget.ListItemID) {
		if id >= 0 && id < len(w.pending) {
			w.show(w.pending[id].ID)
		}
	}
	w.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	w.title.Wrapping = fyne.TextWrapWord
	w.fields = widget.NewForm()
	w.once = widget.NewButton("Allow once", func() { w.decide(peer.Decision{Allow: true, By: "user"}) })
	w.hour = widget.NewButton("Allow for 1 hour", func() { w.decide(peer.Decision{Allow: true, For: AllowFor, By: "user"}) })
	w.deny = widget.NewButton("Deny", func() { w.decide(peer.Decision{Allow: false, By: "user", Reason: "denied by the user"}) })
	w.deny.Importance = widget.DangerImportance
	w.whole = widget.NewButton("Show whole request…", func() { w.showWhole() })
	w.whole.Hide()
	w.empty = widget.NewLabel("Nothing is waiting for you.")
	w.detail = container.NewBorder(w.title, container.NewHBox(w.once, w.hour, w.deny, w.whole), nil, nil, container.NewVScroll(w.fields))
	split := container.NewHSplit(w.list, container.NewStack(w.empty, w.detail))
	split.Offset = 0.3

	w.grantList = widget.NewList(
		func() int { return len(w.grants) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return container.NewBorder(nil, nil, nil, widget.NewButton("Revoke", nil), l)
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id < 0 || id >= len(w.grants) {
				return
			}
			g := w.grants[id]
			c := o.(*fyne.Container)
			c.Objects[0].(*widget.Label).SetText(GrantLine(g, w.a.main.name, nil))
			b := c.Objects[1].(*widget.Button)
			b.OnTapped = func() { w.revoke(g.ID) }
			if g.Revoked || g.Expired {
				b.Disable()
			} else {
				b.Enable()
			}
		},
	)
	w.noGrants = widget.NewLabel("You have not issued any grant.")
	w.noGrants.Importance = widget.LowImportance
	grants := container.NewBorder(widget.NewLabelWithStyle("Grants I issued", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), nil, nil, nil,
		container.NewStack(w.noGrants, w.grantList))
	outer := container.NewVSplit(split, grants)
	outer.Offset = 0.62
	w.w.SetContent(outer)
	w.w.Resize(fyne.NewSize(860, 620))
	w.w.SetCloseIntercept(w.w.Hide)
	w.show("")
	return w
}

func (w *approvalsWindow) self() string {
	if be := w.a.backend(); be != nil {
		return be.Key().String()
	}
	return ""
}

// setPending shows the node's pending list. UI goroutine.
func (w *approvalsWindow) setPending(ps []peer.ApprovalRequest) {
	w.pending = ps
	for _, m := range []map[string]bool{w.decided, w.readWhole} {
		for id := range m {
			if w.find(id) == nil {
				delete(m, id)
			}
		}
	}
	w.list.Refresh()
	cur := w.cur
	if w.find(cur) == nil {
		cur = ""
		if len(ps) > 0 {
			cur = ps[0].ID
		}
	}
	w.show(cur)
}

func (w *approvalsWindow) find(id string) *peer.ApprovalRequest {
	for i := range w.pending {
		if w.pending[i].ID == id {
			return &w.pending[i]
		}
	}
	return nil
}

// show puts request id in the detail pane ("" or unknown: none).
func (w *approvalsWindow) show(id string) {
	req := w.find(id)
	if req == nil {
		w.cur = ""
		w.detail.Hide()
		w.empty.Show()
		return
	}
	w.cur = id
	d := render.DescribeApproval(*req, w.self())
	w.title.SetText(d.Title)
	if d.Whole != nil {
		w.whole.Show()
	} else {
		w.whole.Hide()
	}
	w.fields.Items = nil
	for _, f := range d.Fields {
		v := widget.NewLabel(f.Value)
		v.Wrapping = fyne.TextWrapBreak
		switch f.Label {
		case "command", "cwd", "path", "env", "who":
			v.TextStyle = fyne.TextStyle{Monospace: true}
		}
		w.fields.Append(f.Label, v)
	}
	w.fields.Refresh()
	done := w.decided[id]
	// A cut request is allowed only after the person opened it whole;
	// Deny needs nothing read.
	unread := d.Whole != nil && !w.readWhole[id]
	for _, b := range []*widget.Button{w.once, w.hour, w.deny} {
		if done || (unread && b != w.deny) {
			b.Disable()
		} else {
			b.Enable()
		}
	}
	if unread {
		w.whole.Importance = widget.HighImportance
	} else {
		w.whole.Importance = widget.MediumImportance
	}
	w.whole.Refresh()
	if req.Kind == peer.ApprovalGrantRequest {
		w.once.SetText("Grant once")
	} else {
		w.once.SetText("Allow once")
	}
	w.empty.Hide()
	w.detail.Show()
}

// wholeWidth is the width, in characters, of the whole-request window's
// lines.
const wholeWidth = 100

// showWhole opens a window with every field of the shown request uncut, in
// a list of wrapped lines: a label of the whole text would take Fyne
// seconds to lay out.
func (w *approvalsWindow) showWhole() {
	req := w.find(w.cur)
	if req == nil {
		return
	}
	d := render.DescribeApproval(*req, w.self())
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
	win := w.a.fa.NewWindow("AWP: " + w.title.Text)
	win.SetContent(list)
	win.Resize(fyne.NewSize(900, 600))
	win.Show()
	if !w.readWhole[w.cur] {
		w.readWhole[w.cur] = true
		w.show(w.cur)
	}
}

// decide sends the decision for the shown request off the UI goroutine.
func (w *approvalsWindow) decide(d peer.Decision) {
	be := w.a.backend()
	id := w.cur
	if be == nil || id == "" || w.decided[id] {
		return
	}
	w.decided[id] = true
	w.show(id)
	w.a.background(func() {
		err := be.Decide(id, d)
		if err != nil {
			fyne.Do(func() {
				delete(w.decided, id)
				w.show(id)
				dialog.ShowError(err, w.w)
			})
		}
		w.a.refresh(dirtyApprovals)
	})
}
