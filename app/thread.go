package app

import (
	"fmt"
	"io"
	"sync/atomic"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/awp-tray/awp-tray/app/render"
	"github.com/awp-tray/awp-tray/peer"
)

// threadKey names a thread view: mirrored threads are kept apart by
// sharer.
type threadKey struct {
	th   string
	from string // sharer key for a mirrored thread, "" for mine
}

// rowWidth is how many runes a thread row holds before wrapping.
const rowWidth = 110

// threadWindow shows one thread in a virtualized list, with compose and
// the per-thread toggles.
type threadWindow struct {
	a    *App
	key  threadKey
	info peer.ThreadInfo
	w    fyne.Window

	header  *widget.Label
	detail  *widget.Label
	list    *widget.List
	mirror  *widget.Check
	private *widget.Button
	toggles *toggles // actions.go
	compose *composer

	rows    []render.Row
	entries []render.Entry
	blobs   map[string]peer.BlobInfo // by blobKey

	loading   bool // a reload is running
	again     bool // another load was asked for meanwhile
	againFull bool // … and it must read the whole thread
	loaded    int  // reloads applied (tests)
}

// blobKey keys blobs by sender and ref.
func blobKey(from, ref string) string { return from + "\x00" + ref }

// openThread shows (or brings forward) the window of a thread. UI goroutine.
func (a *App) openThread(t peer.ThreadInfo) *threadWindow {
	k := threadKey{t.Th, t.MirroredFrom}
	a.setFocused(&k)
	if tw := a.threads[k]; tw != nil {
		if t.Peer != "" {
			tw.setInfo(t)
		}
		tw.w.Show()
		tw.w.RequestFocus()
		return tw
	}
	tw := newThreadWindow(a, k, t)
	a.threads[k] = tw
	tw.w.Show()
	tw.reload()
	return tw
}

func newThreadWindow(a *App, k threadKey, t peer.ThreadInfo) *threadWindow {
	tw := &threadWindow{a: a, key: k, info: t, w: a.fa.NewWindow("AWP thread"), blobs: map[string]peer.BlobInfo{}}
	tw.header = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	tw.header.Truncation = fyne.TextTruncateEllipsis
	tw.detail = widget.NewLabel("")
	tw.detail.Truncation = fyne.TextTruncateEllipsis

	tw.list = widget.NewList(func() int { return len(tw.rows) }, newRowView, tw.updateRow)
	tw.list.HideSeparators = true
	tw.list.OnSelected = func(id widget.ListItemID) {
		tw.list.Unselect(id)
		if id >= 0 && id < len(tw.rows) && tw.rows[id].Kind == render.RowBlob {
			tw.saveBlob(tw.rows[id])
		}
	}

	tw.toggles = newToggles(tw) // Mirror and Keep private: actions.go
	tw.compose = newComposer(a, tw)
	top := container.NewVBox(tw.header, container.NewBorder(nil, nil, nil, tw.toggles.box, tw.detail))
	tw.toggles.top = top
	tw.w.SetContent(container.NewBorder(top, tw.compose.box, nil, nil, tw.list))
	tw.w.Resize(fyne.NewSize(860, 640))
	tw.w.SetCloseIntercept(tw.closeAsked)
	tw.setInfo(t)
	return tw
}

// closeAsked closes the window: it is forgotten, and no longer in front.
// UI goroutine.
func (tw *threadWindow) closeAsked() {
	tw.w.Hide()
	delete(tw.a.threads, tw.key)
	if f := tw.a.focused.Load(); f != nil && *f == tw.key {
		tw.a.setFocused(nil)
	}
	tw.w.Close()
}

// setInfo shows new thread metadata. UI goroutine.
func (tw *threadWindow) setInfo(t peer.ThreadInfo) {
	tw.info = t
	r := render.DescribeThread(t, tw.a.main.name)
	title := render.Clip(t.Subject, render.MaxTitle)
	if title == "" {
		title = "(no subject)"
	}
	tw.w.SetTitle("AWP: " + title)
	tw.header.SetText(r.Title)
	tw.detail.SetText(r.Detail)
	tw.showToggles(t) // actions.go
	tw.compose.setReadOnly(t.MirroredFrom != "" || t.Withdrawn)
}

// reload reads the thread's lines and blobs off the UI goroutine and
// shows them; concurrent asks collapse into one more reload. Viewing
// marks the thread read. UI goroutine.
func (tw *threadWindow) reload() { tw.load(true) }

func (tw *threadWindow) load(full bool) {
	be := tw.a.backend()
	if be == nil {
		return
	}
	if tw.loading {
		tw.again = true
		tw.againFull = tw.againFull || full
		return
	}
	tw.loading = true
	k, unread := tw.key, tw.info.Unread
	names := tw.a.main.nameSnapshot(be)
	partial := !full && len(tw.entries) > 0
	var after uint64
	oldEntries, oldRows := tw.entries, tw.rows
	if partial {
		after = oldEntries[len(oldEntries)-1].Seq
	}
	tw.a.background(func() {
		var lines []peer.LineInfo
		var err error
		if partial {
			lines, err = be.LinesAfter(k.th, k.from, after, 0)
		} else {
			lines, err = be.Lines(k.th, k.from)
		}
		var blobs []peer.BlobInfo
		var entries []render.Entry
		var rows []render.Row
		if err == nil {
			blobs, _ = be.Blobs()
			o := render.Options{Width: rowWidth, Name: names}
			if partial {
				entries = append(oldEntries[:len(oldEntries):len(oldEntries)], render.DecodeAll(lines)...)
				rows = render.AppendRows(oldRows[:len(oldRows):len(oldRows)], entries, len(oldEntries), o)
			} else {
				entries = render.DecodeAll(lines)
				rows = render.Rows(entries, o)
			}
			if unread > 0 {
				// The node's thread event withdraws its notification.
				if merr := be.MarkRead(k.th, k.from); merr != nil {
					tw.a.log.Warn("mark read", "th", k.th, "err", merr)
				}
			}
		}
		fyne.Do(func() {
			tw.loading = false
			if err != nil {
				tw.a.log.Error("thread lines", "th", k.th, "err", err)
				tw.detail.SetText("cannot read this thread: " + err.Error())
			} else {
				tw.apply(entries, rows, blobs)
			}
			if tw.again {
				full := tw.againFull
				tw.again, tw.againFull = false, false
				tw.load(full)
			}
		})
	})
}

// apply shows loaded rows, keeping the view at the bottom when it was
// there (a new line scrolls into view). UI goroutine.
func (tw *threadWindow) apply(entries []render.Entry, rows []render.Row, blobs []peer.BlobInfo) {
	atEnd := len(tw.rows) == 0 || tw.atBottom()
	tw.entries, tw.rows = entries, rows
	tw.blobs = make(map[string]peer.BlobInfo, len(blobs))
	for _, b := range blobs {
		if b.Th == tw.key.th {
			tw.blobs[blobKey(b.From, b.Ref)] = b
		}
	}
	tw.loaded++
	last := ""
	if len(entries) > 0 {
		last = entries[len(entries)-1].ID
	}
	// The smoke test reads this line to know the view shows a line.
	tw.a.log.Info("thread view loaded", "th", tw.key.th, "lines", len(entries), "rows", len(rows), "last_id", last)
	tw.list.Refresh()
	if atEnd && len(rows) > 0 {
		tw.list.ScrollToBottom()
	}
}

// atBottom reports whether the list shows its last rows.
func (tw *threadWindow) atBottom() bool {
	off := tw.list.GetScrollOffset()
	rowH := tw.list.MinSize().Height // one row's height at least
	content := float32(len(tw.rows)) * rowH
	return off+tw.list.Size().Height+2*rowH >= content
}

// rowViewsMade counts row views created, so tests can check the list
// recycles them (a 10,000-line thread makes about a screenful).
var rowViewsMade atomic.Int64

// newRowView is the list's row template: a label, and for blobs a
// progress bar and a Save… button (hidden otherwise, so every row has the
// label's height).
func newRowView() fyne.CanvasObject {
	rowViewsMade.Add(1)
	label := widget.NewLabel("")
	label.Truncation = fyne.TextTruncateEllipsis
	bar := widget.NewProgressBar()
	barBox := container.NewGridWrap(fyne.NewSize(140, bar.MinSize().Height), bar)
	barBox.Hide()
	save := widget.NewButtonWithIcon("Save…", theme.DocumentSaveIcon(), nil)
	save.Importance = widget.LowImportance
	save.Hide()
	return container.NewBorder(nil, nil, nil, container.NewHBox(barBox, save), label)
}

// rowParts unpacks a row template.
func rowParts(o fyne.CanvasObject) (label *widget.Label, barBox *fyne.Container, bar *widget.ProgressBar, save *widget.Button) {
	c := o.(*fyne.Container)
	label = c.Objects[0].(*widget.Label)
	right := c.Objects[1].(*fyne.Container)
	barBox = right.Objects[0].(*fyne.Container)
	bar = barBox.Objects[0].(*widget.ProgressBar)
	save = right.Objects[1].(*widget.Button)
	return
}

// rowStyle is how a row kind looks.
func rowStyle(k render.RowKind) (fyne.TextStyle, widget.Importance) {
	switch k {
	case render.RowHeader:
		return fyne.TextStyle{Bold: true}, widget.MediumImportance
	case render.RowTitle:
		return fyne.TextStyle{Bold: true}, widget.MediumImportance
	case render.RowMono:
		return fyne.TextStyle{Monospace: true}, widget.MediumImportance
	case render.RowState:
		return fyne.TextStyle{Italic: true}, widget.HighImportance
	case render.RowNotice:
		return fyne.TextStyle{Italic: true}, widget.LowImportance
	case render.RowField:
		return fyne.TextStyle{}, widget.LowImportance
	}
	return fyne.TextStyle{}, widget.MediumImportance
}

// updateRow fills a recycled row view with row id.
func (tw *threadWindow) updateRow(id widget.ListItemID, o fyne.CanvasObject) {
	if id < 0 || id >= len(tw.rows) {
		return
	}
	r := tw.rows[id]
	label, barBox, bar, save := rowParts(o)
	label.TextStyle, label.Importance = rowStyle(r.Kind)
	text := r.Text
	if r.Kind == render.RowField || r.Kind == render.RowMono || r.Kind == render.RowText {
		text = "    " + text // parts sit under their header
	}
	if r.Kind != render.RowBlob {
		barBox.Hide()
		save.Hide()
		label.Text = text
		label.Refresh()
		return
	}
	b, ok := tw.blobs[blobKey(r.From, r.Blob.Ref)]
	status, frac, ready := blobStatus(r.Blob, b, ok)
	label.Text = "    📎 " + text + "  " + status
	label.Refresh()
	bar.SetValue(frac)
	barBox.Show()
	save.OnTapped = func() { tw.saveBlob(r) }
	if ready {
		save.Enable()
	} else {
		save.Disable()
	}
	save.Show()
}

// blobStatus describes a blob's transfer: a status word, the fraction
// received, and whether it can be saved.
func blobStatus(announced *render.Blob, b peer.BlobInfo, known bool) (string, float64, bool) {
	if !known {
		return "(waiting for data)", 0, false
	}
	size := b.Size
	if size <= 0 {
		size = announced.Size
	}
	switch {
	case b.Corrupt:
		return "(corrupt: digest mismatch)", 0, false
	case b.Complete:
		return "(complete)", 1, true
	case size > 0:
		f := float64(b.Received) / float64(size)
		return fmt.Sprintf("(%d%%)", int(f*100)), f, false
	}
	return "(receiving)", 0, false
}

// saveBlob asks where to save a blob and copies it there off the UI
// goroutine.
func (tw *threadWindow) saveBlob(r render.Row) {
	b, ok := tw.blobs[blobKey(r.From, r.Blob.Ref)]
	if !ok || !b.Complete || b.Corrupt {
		dialog.ShowInformation("Not ready", "This file has not arrived completely yet.", tw.w)
		return
	}
	be := tw.a.backend()
	d := dialog.NewFileSave(func(wc fyne.URIWriteCloser, err error) {
		if err != nil || wc == nil {
			return
		}
		tw.a.background(func() {
			err := copyBlob(be, r.From, r.Blob.Ref, wc)
			if err != nil {
				fyne.Do(func() { dialog.ShowError(err, tw.w) })
			}
		})
	}, tw.w)
	d.SetFileName(render.SafeFileName(r.Blob.Name))
	d.Show()
}

// copyBlob writes a blob into w and closes w.
func copyBlob(be Backend, from, ref string, w io.WriteCloser) error {
	rc, _, err := be.OpenBlob(from, ref)
	if err != nil {
		w.Close()
		return fmt.Errorf("open %s: %w", ref, err)
	}
	defer rc.Close()
	if _, err := io.Copy(w, rc); err != nil {
		w.Close()
		return fmt.Errorf("save %s: %w", ref, err)
	}
	return w.Close()
}
