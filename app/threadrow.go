package app

import (
	"image/color"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/awp-tray/awp-tray/app/render"
)

// Sizes of a thread row: compact, so a window 420 px tall lists eight.
const (
	rowAvatar   = 34 // the avatar circle's diameter
	rowDot      = 11 // the online / offline dot on the avatar
	rowPad      = 6  // above, below and between the parts
	rowLineGap  = 2  // between the two lines
	rowMaxChips = 3  // chips shown; the thread window shows all
)

// threadRow is one row of the threads list: the peer's initial in its
// colour with an online dot, the subject and the time, the preview,
// state chips and the unread pill. It draws canvas text, cut to fit,
// rather than labels: a label's padding doubled the row's height.
type threadRow struct {
	widget.BaseWidget
	r render.ThreadRow
}

func newThreadRow() *threadRow {
	t := &threadRow{}
	t.ExtendBaseWidget(t)
	return t
}

// set shows row r. UI goroutine.
func (t *threadRow) set(r render.ThreadRow) {
	t.r = r
	t.Refresh()
}

func (t *threadRow) CreateRenderer() fyne.WidgetRenderer {
	rr := &threadRowRenderer{row: t,
		avatar:  canvas.NewCircle(color.Black),
		initial: canvas.NewText("", color.White),
		dot:     canvas.NewCircle(color.Black),
		title:   canvas.NewText("", color.Black),
		when:    canvas.NewText("", color.Black),
		preview: canvas.NewText("", color.Black),
		pill:    canvas.NewRectangle(color.Black),
		count:   canvas.NewText("", color.White),
	}
	rr.initial.TextStyle.Bold = true
	rr.initial.Alignment = fyne.TextAlignCenter
	rr.count.TextStyle.Bold = true
	rr.count.Alignment = fyne.TextAlignCenter
	rr.when.Alignment = fyne.TextAlignTrailing
	for i := 0; i < rowMaxChips; i++ {
		bg := canvas.NewRectangle(color.Black)
		tx := canvas.NewText("", color.Black)
		rr.chipBG = append(rr.chipBG, bg)
		rr.chipText = append(rr.chipText, tx)
	}
	rr.objects = []fyne.CanvasObject{rr.avatar, rr.initial, rr.dot, rr.title, rr.when, rr.preview, rr.pill, rr.count}
	for i := range rr.chipBG {
		rr.objects = append(rr.objects, rr.chipBG[i], rr.chipText[i])
	}
	rr.Refresh()
	return rr
}

type threadRowRenderer struct {
	row                                  *threadRow
	avatar, dot                          *canvas.Circle
	initial, title, when, preview, count *canvas.Text
	pill                                 *canvas.Rectangle
	chipBG                               []*canvas.Rectangle
	chipText                             []*canvas.Text
	objects                              []fyne.CanvasObject
}

func (rr *threadRowRenderer) Destroy()                     {}
func (rr *threadRowRenderer) Objects() []fyne.CanvasObject { return rr.objects }

// textSizes are the row's two text sizes: the subject's and the second
// line's.
func textSizes(th fyne.Theme) (float32, float32) {
	s := th.Size(theme.SizeNameText)
	return s, s - 1
}

func (rr *threadRowRenderer) MinSize() fyne.Size {
	th := rr.row.Theme()
	big, small := textSizes(th)
	h1 := fyne.MeasureText("Mg", big, fyne.TextStyle{Bold: true}).Height
	h2 := fyne.MeasureText("Mg", small, fyne.TextStyle{}).Height
	h := max(rowAvatar, h1+rowLineGap+h2) + 2*rowPad
	return fyne.NewSize(rowAvatar+200, h)
}

// rowColors are the colours a row draws with, from the theme.
type rowColors struct {
	fg, secondary, primary, onPrimary, chip, up, down, bg color.Color
}

func colorsOf(w fyne.Widget) rowColors {
	th := w.(interface{ Theme() fyne.Theme }).Theme()
	v := fyne.CurrentApp().Settings().ThemeVariant()
	bg := th.Color(theme.ColorNameBackground, v)
	fg := th.Color(theme.ColorNameForeground, v)
	return rowColors{
		fg: fg, bg: bg, secondary: render.Secondary(fg, bg),
		primary: th.Color(theme.ColorNamePrimary, v), onPrimary: th.Color(theme.ColorNameForegroundOnPrimary, v),
		chip: th.Color(theme.ColorNameInputBackground, v),
		up:   th.Color(theme.ColorNameSuccess, v), down: th.Color(theme.ColorNameDisabled, v),
	}
}

func (rr *threadRowRenderer) Refresh() {
	r := rr.row.r
	th := rr.row.Theme()
	c := colorsOf(rr.row)
	big, small := textSizes(th)
	rr.avatar.FillColor = r.Color
	rr.initial.Text, rr.initial.TextSize = r.Initial, big
	rr.dot.FillColor, rr.dot.StrokeColor, rr.dot.StrokeWidth = c.up, c.bg, 2
	if r.Offline {
		rr.dot.FillColor = c.down
	}
	rr.dot.Hidden = r.Who == ""
	rr.title.TextSize, rr.title.TextStyle.Bold, rr.title.Color = big, r.Bold, c.fg
	rr.when.Text, rr.when.TextSize, rr.when.Color = r.When, small, c.secondary
	if r.Unread > 0 {
		rr.when.Color = c.fg
		rr.when.TextStyle.Bold = true
	} else {
		rr.when.TextStyle.Bold = false
	}
	rr.preview.TextSize, rr.preview.Color = small, c.secondary
	rr.pill.FillColor, rr.pill.CornerRadius = render.Toward(c.primary, c.onPrimary), 9
	rr.count.Color, rr.count.TextSize = c.onPrimary, small
	rr.count.Text = ""
	if r.Unread > 0 {
		rr.count.Text = strconv.Itoa(r.Unread)
		if r.Unread > 99 {
			rr.count.Text = "99+"
		}
	}
	for i := range rr.chipBG {
		rr.chipBG[i].FillColor, rr.chipBG[i].CornerRadius = c.chip, 4
		rr.chipText[i].Color, rr.chipText[i].TextSize = c.fg, small-1
		rr.chipText[i].Text = ""
		if i < len(r.Chips) {
			rr.chipText[i].Text = render.Clip(r.Chips[i], render.MaxName)
		}
	}
	rr.Layout(rr.row.Size())
	for _, o := range rr.objects {
		o.Refresh()
	}
}

func (rr *threadRowRenderer) Layout(size fyne.Size) {
	r := rr.row.r
	th := rr.row.Theme()
	big, small := textSizes(th)
	pad := th.Size(theme.SizeNameInnerPadding)

	rr.layoutAvatar(pad, (size.Height-rowAvatar)/2, big)

	left := pad + rowAvatar + pad
	right := size.Width - pad
	h1 := fyne.MeasureText("Mg", big, fyne.TextStyle{Bold: true}).Height
	h2 := fyne.MeasureText("Mg", small, fyne.TextStyle{}).Height
	y1 := (size.Height - h1 - rowLineGap - h2) / 2
	y2 := y1 + h1 + rowLineGap

	// Line 1: the subject, the time at the end.
	ww := fyne.MeasureText(r.When, small, rr.when.TextStyle).Width
	rr.when.Move(fyne.NewPos(right-ww, y1+(h1-h2)))
	rr.when.Resize(fyne.NewSize(ww, h2))
	rr.title.Text = fit(r.Title, right-ww-pad-left, big, rr.title.TextStyle)
	rr.title.Move(fyne.NewPos(left, y1))
	rr.title.Resize(fyne.NewSize(right-ww-pad-left, h1))

	// Line 2, from the end: the pill, the chips, then the preview.
	x := rr.layoutPill(right, y2, h2, small, pad)
	x = rr.layoutChips(x, (x-left)/2, y2, h2)
	line := r.Who
	if r.Preview != "" {
		line += " — " + r.Preview
	}
	if r.Offline {
		line = r.Who + " (offline)" + line[len(r.Who):]
	}
	rr.preview.Text = fit(line, x-pad-left, small, rr.preview.TextStyle)
	rr.preview.Move(fyne.NewPos(left, y2))
	rr.preview.Resize(fyne.NewSize(max(0, x-pad-left), h2))
}

// layoutAvatar places the avatar circle, its initial and the online dot at
// (pad, top).
func (rr *threadRowRenderer) layoutAvatar(pad, top, big float32) {
	rr.avatar.Move(fyne.NewPos(pad, top))
	rr.avatar.Resize(fyne.NewSquareSize(rowAvatar))
	ih := fyne.MeasureText("M", big, rr.initial.TextStyle).Height
	rr.initial.Move(fyne.NewPos(pad, top+(rowAvatar-ih)/2))
	rr.initial.Resize(fyne.NewSize(rowAvatar, ih))
	rr.dot.Move(fyne.NewPos(pad+rowAvatar-rowDot+1, top+rowAvatar-rowDot+1))
	rr.dot.Resize(fyne.NewSquareSize(rowDot))
}

// layoutPill places the unread pill so that it ends at x on the second
// line (at y, h high), or hides it, and returns where the line's rest ends.
func (rr *threadRowRenderer) layoutPill(x, y, h, small, pad float32) float32 {
	if rr.count.Text != "" {
		cw := max(fyne.MeasureText(rr.count.Text, small, rr.count.TextStyle).Width+12, h+2)
		x -= cw
		rr.pill.Move(fyne.NewPos(x, y))
		rr.pill.Resize(fyne.NewSize(cw, h))
		rr.count.Move(fyne.NewPos(x, y))
		rr.count.Resize(fyne.NewSize(cw, h))
		rr.pill.Show()
		rr.count.Show()
		x -= pad
	} else {
		rr.pill.Hide()
		rr.count.Hide()
	}
	return x
}

// layoutChips places the state chips right to left so that they end at x
// on the second line, within budget (chips get at most half the line; the
// preview keeps the rest), hides those that do not fit, and returns where
// the preview ends.
func (rr *threadRowRenderer) layoutChips(x, budget, y, h float32) float32 {
	for i := len(rr.chipBG) - 1; i >= 0; i-- {
		tx, bg := rr.chipText[i], rr.chipBG[i]
		if tx.Text == "" {
			tx.Hide()
			bg.Hide()
			continue
		}
		tw := fyne.MeasureText(tx.Text, tx.TextSize, tx.TextStyle).Width
		if tw+8 > budget {
			tx.Hide()
			bg.Hide()
			continue
		}
		budget -= tw + 8 + 4
		x -= tw + 8
		bg.Move(fyne.NewPos(x, y))
		bg.Resize(fyne.NewSize(tw+8, h))
		tx.Move(fyne.NewPos(x+4, y+(h-fyne.MeasureText("Mg", tx.TextSize, tx.TextStyle).Height)/2))
		tx.Resize(fyne.NewSize(tw, h))
		tx.Show()
		bg.Show()
		x -= 4
	}
	return x
}

// fit cuts s with an ellipsis so it is at most w wide in the given size
// and style (a binary search over its runes).
func fit(s string, w, size float32, style fyne.TextStyle) string {
	if w <= 0 {
		return ""
	}
	if fyne.MeasureText(s, size, style).Width <= w {
		return s
	}
	rs := []rune(s)
	lo, hi := 0, len(rs)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fyne.MeasureText(string(rs[:mid])+"…", size, style).Width <= w {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo == 0 {
		return ""
	}
	return string(rs[:lo]) + "…"
}
