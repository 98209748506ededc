package app

import (
	"image/color"
	"math"
	"sync/atomic"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/awp-tray/awp-tray/app/render"
)

// The thread window's rows: a chat bubble per line (rowView), its style
// and fill, and the theme that keeps the bubbles compact.

// rowViewsMade counts row views created, so tests can check the list
// recycles them (a 10,000-line thread makes about a screenful).
var rowViewsMade atomic.Int64

// rowView is the list's row template: a background (a code box, my
// lines' tint), a bar at the left in the sender's colour, the text, and
// for blobs a progress bar and a Save… button (hidden otherwise, so
// every other row has the text's height).
type rowView struct {
	widget.BaseWidget
	box    *fyne.Container
	bg     *canvas.Rectangle
	bar    *canvas.Rectangle
	label  *widget.Label
	barBox *fyne.Container
	bar2   *widget.ProgressBar
	save   *widget.Button
}

// rowIndent is the space between a row's bar and its text.
const rowIndent = 6

func newRowView() fyne.CanvasObject {
	rowViewsMade.Add(1)
	v := &rowView{bg: canvas.NewRectangle(color.Transparent), bar: canvas.NewRectangle(color.Transparent)}
	v.bar.SetMinSize(fyne.NewSize(3, 1))
	v.label = widget.NewLabel("")
	v.label.Truncation = fyne.TextTruncateEllipsis
	v.bar2 = widget.NewProgressBar()
	v.barBox = container.NewGridWrap(fyne.NewSize(140, v.bar2.MinSize().Height), v.bar2)
	v.barBox.Hide()
	v.save = widget.NewButtonWithIcon("Save…", theme.DocumentSaveIcon(), nil)
	v.save.Importance = widget.LowImportance
	v.save.Hide()
	spacer := canvas.NewRectangle(color.Transparent)
	spacer.SetMinSize(fyne.NewSize(rowIndent, 1))
	inner := container.NewBorder(nil, nil, nil, container.NewHBox(v.barBox, v.save), v.label)
	v.box = container.NewBorder(nil, nil, container.NewHBox(v.bar, spacer), nil, container.NewStack(v.bg, inner))
	v.ExtendBaseWidget(v)
	return v
}

func (v *rowView) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(v.box) }

// MinSize is the content's, its height rounded up to a whole unit: rows
// of fractional height left hairline seams in a code box or my tint.
func (v *rowView) MinSize() fyne.Size {
	s := v.BaseWidget.MinSize()
	s.Height = float32(math.Ceil(float64(s.Height)))
	return s
}

// rowParts unpacks a row template.
func rowParts(o fyne.CanvasObject) (label *widget.Label, barBox *fyne.Container, bar *widget.ProgressBar, save *widget.Button) {
	v := o.(*rowView)
	return v.label, v.barBox, v.bar2, v.save
}

// rowStyle is how a row kind looks.
func rowStyle(k render.RowKind) (fyne.TextStyle, widget.Importance) {
	switch k {
	case render.RowHeader, render.RowTitle:
		return fyne.TextStyle{Bold: true}, widget.MediumImportance
	case render.RowMono, render.RowCaption:
		return fyne.TextStyle{Monospace: true}, widget.MediumImportance
	case render.RowState, render.RowNotice:
		return fyne.TextStyle{Italic: true}, widget.MediumImportance
	}
	return fyne.TextStyle{}, widget.MediumImportance
}

// chatTheme is the theme inside a thread's list: the app's, with no space
// between rows and little inside them, so a paragraph's lines sit at
// normal line height (each was a 39 px row: double-spaced) and a code
// box's rows join into one box.
type chatTheme struct{}

// chatInnerPadding is the space above and below a row's text.
const chatInnerPadding = 1

func (chatTheme) Size(n fyne.ThemeSizeName) float32 {
	switch n {
	case theme.SizeNameInnerPadding:
		return chatInnerPadding
	case theme.SizeNamePadding:
		return 0
	}
	return appTheme().Size(n)
}

// The rest is the app's theme now (it follows a change of theme).
func (chatTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	return appTheme().Color(n, v)
}

func (chatTheme) Font(s fyne.TextStyle) fyne.Resource { return appTheme().Font(s) }

func (chatTheme) Icon(n fyne.ThemeIconName) fyne.Resource { return appTheme().Icon(n) }

// appTheme is the theme the app draws with now.
func appTheme() fyne.Theme { return fyne.CurrentApp().Settings().Theme() }

// rowFills are a row's background (a code box; a tint on my lines) and
// its bar (the sender's colour, the primary colour for mine).
func rowFills(r render.Row) (bg, bar color.Color) {
	th := appTheme()
	vr := fyne.CurrentApp().Settings().ThemeVariant()
	bg, bar = color.Transparent, render.AvatarColor(r.From)
	switch {
	case r.Kind == render.RowGap || r.Kind == render.RowState:
		return color.Transparent, color.Transparent
	case r.Kind == render.RowMono || r.Kind == render.RowCaption:
		bg = th.Color(theme.ColorNameInputBackground, vr)
	case r.Mine:
		bg = mineTint(th.Color(theme.ColorNamePrimary, vr))
	}
	if r.Mine {
		bar = th.Color(theme.ColorNamePrimary, vr)
	}
	return bg, bar
}

// mineTint is the primary colour faint enough that text on it keeps its
// contrast (TestChatContrast).
func mineTint(primary color.Color) color.Color {
	c := color.NRGBAModel.Convert(primary).(color.NRGBA)
	c.A = 0x1a
	return c
}
