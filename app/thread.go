package app

import (
	"fmt"
	"io"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/awp-tray/awp-tray/app/render"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

// threadKey names a thread view: mirrored threads are kept apart by
// sharer.
type threadKey struct {
	th   string
	from key.PublicKey // sharer key for a mirrored thread, zero for mine
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
	banner  *widget.Label // read-only: why, on a mirrored or withdrawn thread
	list    *widget.List
	toEnd   bool         // scroll to the end when the next load lands (I sent a line)
	tall    map[int]bool // rows given a file row's height
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

// blobKey keys blobs by sender (its key's text, as rows carry it) and ref.
func blobKey(from, ref string) string { return from + "\x00" + ref }

// openThread shows (or brings forward) the window of a thread. UI goroutine.
func (a *App) openThread(t peer.ThreadInfo) *threadWindow {
	k := threadKey{t.Th, t.MirroredFrom}
	a.setFocused(&k)
	if tw := a.threads[k]; tw != nil {
		if !t.Peer.IsZero() {
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
	tw := &threadWindow{a: a, key: k, info: t, w: a.fa.NewWindow("AWP thread"), blobs: map[string]peer.BlobInfo{}, tall: map[int]bool{}}
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
	tw.banner = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Italic: true})
	tw.banner.Wrapping = fyne.TextWrapWord
	tw.banner.Importance = widget.MediumImportance // warning orange is 2:1 on white
	tw.banner.Hide()
	top := container.NewVBox(tw.header, container.NewBorder(nil, nil, nil, tw.toggles.box, tw.detail))
	tw.toggles.top = top
	bottom := container.NewVBox(tw.banner, tw.compose.box)
	list := container.NewThemeOverride(tw.list, chatTheme{})
	tw.w.SetContent(container.NewBorder(top, bottom, nil, nil, list))
	tw.w.Canvas().SetOnTypedKey(func(ev *fyne.KeyEvent) {
		if ev.Name == fyne.KeyEscape {
			tw.closeAsked()
		}
	})
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
	r := render.DescribeThread(t, tw.a.main.rowOptions())
	tw.w.SetTitle("AWP: " + r.Title)
	tw.header.SetText(r.Title)
	tw.detail.SetText(r.Detail)
	tw.showToggles(t) // actions.go
	ro := !t.MirroredFrom.IsZero() || t.Withdrawn
	tw.compose.setReadOnly(ro)
	if ro {
		tw.banner.SetText(readOnlyBanner(t, tw.a.main.name))
		tw.banner.Show()
		tw.compose.box.Hide()
	} else {
		tw.banner.Hide()
		tw.compose.box.Show()
	}
}

// readOnlyBanner says why a thread cannot be answered here.
func readOnlyBanner(t peer.ThreadInfo, name func(string) string) string {
	sharer := render.Clip(name(t.MirroredFrom.String()), render.MaxName)
	if t.Withdrawn {
		return "Read-only: " + sharer + " withdrew this thread; what was mirrored stays here for you to read."
	}
	return "Read-only: " + sharer + " mirrors this thread to you, so you can follow it; only the people in it can write here."
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
	k, unread, subject := tw.key, tw.info.Unread, tw.info.Subject
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
			o := render.Options{Width: rowWidth, Name: names, Subject: subject}
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
	atEnd := len(tw.rows) == 0 || tw.atBottom() || tw.toEnd
	tw.toEnd = false
	tw.entries, tw.rows = entries, rows
	tw.blobs = make(map[string]peer.BlobInfo, len(blobs))
	var me key.PublicKey
	if be := tw.a.backend(); be != nil {
		me = be.Key()
	}
	for _, b := range blobs {
		if b.Th != tw.key.th {
			continue
		}
		// A blob I sent is listed under its recipient; its part is mine.
		from := b.From
		if b.Dir == "out" {
			from = me
		}
		tw.blobs[blobKey(from.String(), b.Ref)] = b
	}
	// Rows have the template's height but for files, whose row holds a
	// button: few, so few calls (each costs a pass over the list).
	for i := range tw.tall {
		if i >= len(rows) || rows[i].Kind != render.RowBlob {
			tw.list.SetItemHeight(i, tw.rowHeight(false))
			delete(tw.tall, i)
		}
	}
	for i, r := range rows {
		if r.Kind == render.RowBlob && !tw.tall[i] {
			tw.list.SetItemHeight(i, tw.rowHeight(true))
			tw.tall[i] = true
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
	rowH, blobH := tw.rowHeight(false), tw.rowHeight(true)
	content := float32(len(tw.rows)-len(tw.tall))*rowH + float32(len(tw.tall))*blobH
	return off+tw.list.Size().Height+3*rowH >= content
}

// updateRow fills a recycled row view with row id.
func (tw *threadWindow) updateRow(id widget.ListItemID, o fyne.CanvasObject) {
	if id < 0 || id >= len(tw.rows) {
		return
	}
	r := tw.rows[id]
	v := o.(*rowView)
	label, barBox, bar, save := v.label, v.barBox, v.bar2, v.save
	label.TextStyle, label.Importance = rowStyle(r.Kind)
	v.bg.FillColor, v.bar.FillColor = rowFills(r)
	v.bg.Refresh()
	v.bar.Refresh()
	if r.Kind != render.RowBlob {
		barBox.Hide()
		save.Hide()
		label.Text = r.Text
		label.Refresh()
		return
	}
	b, ok := tw.blobs[blobKey(r.From, r.Blob.Ref)]
	status, frac, ready := blobStatus(r.Blob, b, ok)
	label.Text = "📎 " + r.Text + "  " + status
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

// rowHeight is the height of a row, of a file's row (its Save… button's)
// when blob.
func (tw *threadWindow) rowHeight(blob bool) float32 {
	v := newRowView().(*rowView)
	rowViewsMade.Add(-1) // a measure, not a row shown
	container.NewThemeOverride(v, chatTheme{})
	if blob {
		v.barBox.Show()
		v.save.Show()
	}
	return v.MinSize().Height
}

// blobStatus describes a blob's transfer: a status word, the fraction
// received, and whether it can be saved.
func blobStatus(announced *render.Blob, b peer.BlobInfo, known bool) (string, float64, bool) {
	if !known {
		return "(waiting for data)", 0, false
	}
	if b.Dir == "out" {
		if b.Complete && !b.Corrupt {
			return "(sent)", 1, true
		}
		return "(sending)", 0, false
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

// copyBlob writes a blob into w and closes w. from is the sender's key as
// a row carries it (text).
func copyBlob(be Backend, from, ref string, w io.WriteCloser) error {
	k, err := key.ParsePublic(from)
	if err != nil {
		w.Close()
		return fmt.Errorf("open %s: %w", ref, err)
	}
	rc, _, err := be.OpenBlob(k, ref)
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
