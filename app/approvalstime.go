package app

import (
	"time"

	"fyne.io/fyne/v2"
	"github.com/awp-tray/awp-tray/app/render"
)

// The Approvals window's time: the decision buttons wait armDelay after
// what the prompt shows has changed, and a countdown says how long the
// request still waits.

// armDelay is how long the decision buttons stay disabled after what the
// prompt shows changed: another request in the pane, or the window brought
// forward. A click aimed at what was there before, or the second click of
// a double click, must not decide a request the person has not looked at.
// One second is the delay Firefox puts on its download and add-on prompts
// (security.dialog_enable_delay) for the same reason.
const armDelay = time.Second

// armClock is the Approvals window's time: Now, and AfterFunc, which runs
// f on the UI goroutine after d. Tests replace it (newArmClock).
type armClock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func())
}

type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

func (wallClock) AfterFunc(d time.Duration, f func()) { time.AfterFunc(d, func() { fyne.Do(f) }) }

// newArmClock gives each Approvals window its clock.
var newArmClock = func() armClock { return wallClock{} }

// rearm disables the decision buttons for armDelay from now.
func (w *approvalsWindow) rearm() {
	w.armed = false
	w.shownAt = w.clock.Now()
	w.gen++
	gen := w.gen
	w.clock.AfterFunc(armDelay, func() {
		if w.gen == gen {
			w.armed = true
			w.render()
		}
	})
}

// armedNow reports whether the buttons may act: armDelay passed since the
// pane last changed (checked on the clock too, should a tap come before
// the timer).
func (w *approvalsWindow) armedNow() bool {
	return w.armed && !w.clock.Now().Before(w.shownAt.Add(armDelay))
}

// showCountdown shows how long is left to answer the request in the pane,
// and keeps a tick going while any request waits (the list's rows count
// down too). UI goroutine.
func (w *approvalsWindow) showCountdown() {
	req := w.find(w.cur)
	if req == nil {
		w.countdown.SetText("")
	} else if dl, ok := render.ParseTime(req.Deadline); ok {
		if left := render.Countdown(dl, w.clock.Now()); dl.After(w.clock.Now()) {
			w.countdown.SetText(left + " to answer, then it is denied")
		} else {
			w.countdown.SetText("Time is up: the request is being denied.")
		}
	} else {
		w.countdown.SetText("")
	}
	if w.ticking || len(w.pending) == 0 {
		return
	}
	w.ticking = true
	w.clock.AfterFunc(time.Second, func() {
		w.ticking = false
		w.list.Refresh()
		w.showCountdown()
	})
}
