package app

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer"
)

// Without a system tray the main window is the app: it is shown with the
// reason, closing it quits AWP (the tray process is told), and the UI
// does not exit when idle.
func TestNoTrayShowsMainWindow(t *testing.T) {
	a, tray := newTestApp(t, nil, func(o *Options) {
		o.NoTray = "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)"
		o.Linger = time.Millisecond
	})
	if a.HasTray() {
		t.Error("HasTray without a host")
	}
	if !a.main.notice.Visible() || !strings.Contains(a.main.notice.Text, "no D-Bus session bus") {
		t.Errorf("notice = %q (visible %v)", a.main.notice.Text, a.main.notice.Visible())
	}
	if a.shown.count() != 1 {
		t.Errorf("%d windows shown, want the main one", a.shown.count())
	}
	time.Sleep(50 * time.Millisecond)
	if a.quitRequested() {
		t.Fatal("a tray-less UI exited when idle")
	}
	fyne.DoAndWait(a.main.closeAsked) // the window manager's close button
	tray.mu.Lock()
	quits := tray.quits
	tray.mu.Unlock()
	if quits != 1 || !a.quitRequested() {
		t.Errorf("closing the main window: tray quits %d, UI quitting %v", quits, a.quitRequested())
	}
}

// With a tray, the UI quits Linger after its last window closed, not while
// one is shown; a window the window manager closes counts too.
func TestIdleExit(t *testing.T) {
	a, _ := newTestApp(t, nil, func(o *Options) { o.Linger = time.Hour })
	if a.linger == nil {
		t.Fatal("no idle exit armed with no window shown")
	}
	fyne.DoAndWait(func() { a.ShowMain(); a.showPresence() })
	if n := a.shown.count(); n != 2 || a.linger != nil {
		t.Fatalf("%d windows shown, idle exit armed %v", n, a.linger != nil)
	}
	a.opt.Linger = 50 * time.Millisecond
	fyne.DoAndWait(func() { a.main.w.Hide() })
	if a.linger != nil {
		t.Fatal("idle exit armed with the Presence window shown")
	}
	// A window without a close intercept, closed by the window manager.
	var extra fyne.Window
	fyne.DoAndWait(func() {
		a.presence.w.Hide()
		extra = a.fa.NewWindow("extra")
		extra.Show()
		a.lingerDone() // a timer armed earlier that fires now: no quit
	})
	if a.quitRequested() || a.linger != nil {
		t.Fatalf("with a window shown: quit %v, armed %v", a.quitRequested(), a.linger != nil)
	}
	fyne.DoAndWait(func() { extra.(*trackedWindow).Window.Close() })
	if a.shown.count() != 0 {
		t.Fatalf("%d windows shown after the last closed", a.shown.count())
	}
	deadline := time.Now().Add(10 * time.Second)
	for !a.quitRequested() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !a.quitRequested() {
		t.Fatal("no quit after the last window closed")
	}
}

// eventually checks cond on the UI goroutine until it holds; the bound
// only turns a hang into a failure.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testsync.Eventually(t, what, func() bool {
		var ok bool
		fyne.DoAndWait(func() { ok = cond() })
		return ok
	})
}

// A burst of events is one refresh; the loop ends with the subscription.
func TestEventLoopCoalescesAndStops(t *testing.T) {
	f := newFakeNode()
	f.threads = []peer.ThreadInfo{{Th: "thr_a", Peer: aliceKey, Unread: 4}}
	a, _ := newTestApp(t, nil)
	for range 10 {
		f.events <- peer.Event{Type: peer.EventLine, Th: "thr_a"}
	}
	close(f.events) // the subscription ends: the loop returns
	a.attach(f)
	a.Wait()
	if got := a.counts().Unread; got != 4 {
		t.Errorf("unread after events = %d, want 4", got)
	}
	a.Close()
	a.Close() // twice is fine
}

// An idle exit that fired while the UI goroutine was busy, and was re-armed
// before its call ran, does not quit: the new period counts. (The test
// driver runs fyne.Do at once, so the calls are made here in the order the
// UI goroutine would run them.)
func TestIdleExitStaleTimer(t *testing.T) {
	a, _ := newTestApp(t, nil)
	fyne.DoAndWait(func() {
		a.opt.Linger = time.Hour
		a.windowsChanged(0)
		stale := a.linger
		a.windowsChanged(0) // re-armed, as when a window opened and closed
		a.lingerFired(stale)
		if a.quitRequested() {
			t.Fatal("a timer re-armed after it fired quit the UI")
		}
		a.lingerFired(a.linger)
		if !a.quitRequested() {
			t.Fatal("the current idle exit did not quit the UI")
		}
	})
}

// What this process copied stays pastable: with no window shown the UI
// stays while the clipboard holds it (on X11 the content lives in the
// process that set it), and exits once another app took the clipboard.
func TestIdleExitKeepsClipboard(t *testing.T) {
	a, _ := newTestApp(t, nil) // no Linger: New arms no idle exit that could fire first
	fyne.DoAndWait(func() {
		a.opt.Linger = 20 * time.Millisecond
		a.setClipboard("awp:invite")
		a.windowsChanged(0) // arm from now
	})
	time.Sleep(200 * time.Millisecond) // ten Linger periods
	if a.quitRequested() {
		t.Fatal("the UI exited while the clipboard held its invite")
	}
	fyne.DoAndWait(func() { a.fa.Clipboard().SetContent("something else") })
	deadline := time.Now().Add(10 * time.Second)
	for !a.quitRequested() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !a.quitRequested() {
		t.Fatal("no exit after another app took the clipboard")
	}
	// A hold past MaxClipboardHold does not keep it either.
	fyne.DoAndWait(func() {
		a.setClipboard("awp:old")
		a.clip.until = time.Now().Add(-time.Second)
		if a.holdsClipboard() {
			t.Error("a hold past MaxClipboardHold still holds")
		}
	})
}

// Relative times ("5 min ago") are drawn again while a window is shown,
// and nothing ticks when none is (the idle UI costs nothing).
func TestRelativeTimesTickOnlyWithAWindow(t *testing.T) {
	old := relativeEvery
	relativeEvery = 5 * time.Millisecond
	t.Cleanup(func() { relativeEvery = old })
	a, _ := newTestApp(t, nil, func(o *Options) { o.Linger = time.Hour })
	ticks := a.relTickCount
	time.Sleep(50 * time.Millisecond)
	if n := ticks(); n != 0 {
		t.Fatalf("%d redraws with no window shown", n)
	}
	fyne.DoAndWait(a.ShowMain)
	eventually(t, "redraws while the thread list is shown", func() bool { return a.relTickCount() >= 3 })
	fyne.DoAndWait(func() { a.main.w.Hide() })
	before := ticks()
	time.Sleep(50 * time.Millisecond)
	if n := ticks(); n > before+1 { // one already on its way may land
		var shown int
		fyne.DoAndWait(func() { shown = a.shown.count() })
		t.Fatalf("%d redraws after the last window closed (%d windows still shown)", n-before, shown)
	}
}
