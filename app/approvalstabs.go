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

// The Approvals window's two tabs: the requests decided, and the grants
// this node issued.

// newGrantsTab makes the tab of the grants this node issued, each with its
// Revoke button.
func (w *approvalsWindow) newGrantsTab() fyne.CanvasObject {
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
	w.noGrants.TextStyle.Italic = true // helper text in the foreground colour: LowImportance is the disabled colour, 1.3:1 (light) and 1.5:1 (dark)
	return container.NewStack(w.noGrants, w.grantList)
}

// newHistoryTab makes the tab of the requests decided (or timed out) since
// the node started.
func (w *approvalsWindow) newHistoryTab() fyne.CanvasObject {
	w.histList = newTextList(func() int { return len(w.history) },
		func(i int) string { return render.HistoryLine(w.history[i], w.clock.Now(), nil) })
	w.histList.OnSelected = func(id widget.ListItemID) { w.histList.Unselect(id) }
	w.noHistory = widget.NewLabel("No request has been decided since AWP started.")
	w.noHistory.TextStyle.Italic = true // helper text in the foreground colour: LowImportance is the disabled colour, 1.3:1 (light) and 1.5:1 (dark)
	return container.NewStack(w.noHistory, w.histList)
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
			if k == gr.Iss {
				on = append(on, "this peer") // I issued it: on my key
			} else if name != nil {
				on = append(on, name(k.String()))
			} else {
				on = append(on, render.ShortKey(k.String()))
			}
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
		s += " · " + grantNote(gr.Note)
	}
	return s
}

// grantNote is a grant's note as the window shows it: grants approved
// before durations were written in words say "approved for 1h0m0s",
// which reads "approved for 1 hour" here.
func grantNote(note string) string {
	const approved = "approved for "
	if rest, ok := strings.CutPrefix(note, approved); ok {
		if d, err := time.ParseDuration(rest); err == nil && d > 0 {
			return approved + render.Duration(d)
		}
	}
	return note
}

// setHistory shows what became of the requests decided since the node
// started, newest first. UI goroutine.
func (w *approvalsWindow) setHistory(h []peer.ApprovalRecord) {
	w.history = h
	if len(h) == 0 {
		w.noHistory.Show()
	} else {
		w.noHistory.Hide()
	}
	w.histList.Refresh()
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
	g := w.a.backend()
	if g == nil {
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
func (w *approvalsWindow) revokeNow(g Backend, id string) {
	w.a.background(func() {
		if err := g.RevokeGrant(id); err != nil {
			fyne.Do(func() { dialog.ShowError(err, w.w) })
		}
		w.a.refresh(dirtyApprovals)
	})
}

// newTextList makes a list with one truncated label a row: n gives the
// number of rows, text the text of row i.
func newTextList(n func() int, text func(i int) string) *widget.List {
	return widget.NewList(n,
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id >= 0 && id < n() {
				o.(*widget.Label).SetText(text(id))
			}
		})
}
