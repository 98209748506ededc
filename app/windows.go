package app

import (
	"sync"
	"time"

	"fyne.io/fyne/v2"
)

// The UI process lives while a window is shown and Options.Linger after
// the last one closed; then it exits and the tray process is alone again
// (Fyne's GL driver polls for events 60 times a second even with no
// window: fyne-io/fyne#2506). Windows are counted by wrapping the
// fyne.App the views build them with, so every window counts, those of
// other files too.

// windowTracker counts the windows shown.
type windowTracker struct {
	changed func(n int) // called with the count when it changed

	mu sync.Mutex
	// mu guards:
	shown map[*trackedWindow]bool
}

// set records whether w is shown.
func (t *windowTracker) set(w *trackedWindow, shown bool) {
	t.mu.Lock()
	if t.shown == nil {
		t.shown = map[*trackedWindow]bool{}
	}
	was := t.shown[w]
	if shown {
		t.shown[w] = true
	} else {
		delete(t.shown, w)
	}
	n := len(t.shown)
	t.mu.Unlock()
	if was != shown && t.changed != nil {
		t.changed(n)
	}
}

// count returns how many windows are shown.
func (t *windowTracker) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.shown)
}

// isShown reports whether w (a window this tracker made) is shown.
func (t *windowTracker) isShown(w fyne.Window) bool {
	tw, ok := w.(*trackedWindow)
	if !ok {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.shown[tw]
}

// trackedApp is a fyne.App whose windows report when they show and hide.
type trackedApp struct {
	fyne.App
	t *windowTracker
}

// NewWindow implements fyne.App.
func (a *trackedApp) NewWindow(title string) fyne.Window {
	w := &trackedWindow{Window: a.App.NewWindow(title), t: a.t}
	w.Window.SetOnClosed(w.closed)
	return w
}

// trackedWindow is a window that tells its tracker when it shows, hides
// and closes (closing without an intercept, as the window manager's close
// button does, calls the on-closed hook).
type trackedWindow struct {
	fyne.Window
	t *windowTracker

	onClosed func()
}

func (w *trackedWindow) Show() {
	w.Window.Show()
	w.t.set(w, true)
}

func (w *trackedWindow) Hide() {
	w.Window.Hide()
	w.t.set(w, false)
}

func (w *trackedWindow) Close() {
	w.Window.Close()
	w.t.set(w, false)
}

// SetOnClosed keeps f and calls it after the tracker heard of the close.
func (w *trackedWindow) SetOnClosed(f func()) { w.onClosed = f }

func (w *trackedWindow) closed() {
	w.t.set(w, false)
	if w.onClosed != nil {
		w.onClosed()
	}
}

// windowsChanged arms the idle exit when no window is shown, and disarms
// it when one is. UI goroutine (or New's).
func (a *App) windowsChanged(n int) {
	a.tickRelative(n > 0)
	if a.linger != nil {
		a.linger.Stop()
		a.linger = nil
	}
	if n > 0 || a.opt.Linger <= 0 || !a.HasTray() {
		return
	}
	var t *time.Timer
	t = time.AfterFunc(a.opt.Linger, func() { fyne.Do(func() { a.lingerFired(t) }) })
	a.linger = t
}

// lingerFired runs lingerDone for the idle exit t, unless t was stopped or
// re-armed after it fired, while its call waited for the UI goroutine: it
// is not the idle exit any more. UI goroutine.
func (a *App) lingerFired(t *time.Timer) {
	if a.linger == t {
		a.lingerDone()
	}
}

// MaxClipboardHold is how long the UI process may outlive its last window
// because of the clipboard. On X11 a clipboard's content lives in the
// process that set it: without a clipboard manager an invite copied from
// the tray's menu would be gone when the UI exits (Options.Linger later).
// So the process stays while the clipboard still holds what it put there
// (checked each Linger), up to this long: long enough to paste it into a
// chat, short enough that a forgotten copy does not keep it for the day.
const MaxClipboardHold = time.Hour

// clipHold is what this process last put on the clipboard, and until when
// it stays for it.
type clipHold struct {
	text  string
	until time.Time
}

// setClipboard puts s on the clipboard; the UI process stays for it while
// it is still there (MaxClipboardHold). UI goroutine.
func (a *App) setClipboard(s string) {
	a.fa.Clipboard().SetContent(s)
	a.clip = clipHold{text: s, until: time.Now().Add(MaxClipboardHold)}
}

// holdsClipboard reports whether the clipboard still holds what this
// process put there, within MaxClipboardHold. UI goroutine.
func (a *App) holdsClipboard() bool {
	if a.clip.text == "" {
		return false
	}
	if time.Now().After(a.clip.until) || a.fa.Clipboard().Content() != a.clip.text {
		a.clip = clipHold{} // another app took it, or it is time
		return false
	}
	return true
}

// lingerDone quits the UI when still no window is shown and the clipboard
// does not hold what it put there. UI goroutine.
func (a *App) lingerDone() {
	if a.shown.count() > 0 {
		return
	}
	if a.holdsClipboard() {
		a.log.Info("no window open, but the clipboard holds what this process copied: staying")
		a.windowsChanged(0)
		return
	}
	a.log.Info("no window open: the UI process exits", "after", a.opt.Linger.String())
	a.Quit()
}

// relativeEvery is how often relative times ("5 min ago") are drawn again
// while a window is shown; with none shown nothing ticks (the UI process
// then only waits for the node's events and its idle exit). A variable
// for tests.
var relativeEvery = time.Minute

// tickRelative starts (on) or stops the redraw of relative times: the
// thread list, and the Presence window's "last seen", each relativeEvery.
// UI goroutine.
func (a *App) tickRelative(on bool) {
	a.relMu.Lock()
	defer a.relMu.Unlock()
	if !on {
		if a.relTimer != nil {
			a.relTimer.Stop()
			a.relTimer = nil
		}
		return
	}
	if a.relTimer != nil {
		return
	}
	a.relGen++
	gen := a.relGen
	var tick func()
	tick = func() {
		fyne.Do(func() {
			if !a.relTick(gen, tick) {
				return // stopped, or restarted as a newer chain, meanwhile
			}
			a.main.list.Refresh()
			if a.presence != nil && a.shown.isShown(a.presence.w) {
				a.presence.rebuild()
			}
		})
	}
	a.relTimer = time.AfterFunc(relativeEvery, tick)
}

// relTick counts a redraw of chain gen and arms its next one, unless the
// chain was stopped or replaced meanwhile.
func (a *App) relTick(gen int, tick func()) bool {
	a.relMu.Lock()
	defer a.relMu.Unlock()
	if a.relTimer == nil || a.relGen != gen {
		return false
	}
	a.relTicks++
	a.relTimer = time.AfterFunc(relativeEvery, tick)
	return true
}

// relTickCount is how many redraws relative times had (tests).
func (a *App) relTickCount() int {
	a.relMu.Lock()
	defer a.relMu.Unlock()
	return a.relTicks
}
