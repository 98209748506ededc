package app

import (
	"context"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"github.com/awp-tray/awp-tray/app/uilink"
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

// ServeLink carries out the tray's commands in order and acks each once
// done; when the node is ready it attaches it before the next command; a
// thread window in front is reported; the line's end quits the UI.
func TestServeLink(t *testing.T) {
	f := newFakeNode()
	f.threads = []peer.ThreadInfo{{Th: "thr_l", Peer: bobKey.String(), Subject: "linked"}}
	f.pending = []peer.ApprovalRequest{{ID: "ap_a", From: aliceKey.String(), Caps: []string{"exec"}},
		{ID: "ap_b", From: bobKey.String(), Caps: []string{"fs:read"}}}
	mine, theirs := socketPair(t)
	trayEnd := uilink.NewConn(theirs)
	var dialed int
	a, _ := newTestApp(t, nil, func(o *Options) {
		o.Tray = LinkTray{C: uilink.NewConn(mine)}
		o.Dial = func(context.Context) (Backend, error) { dialed++; return f, nil }
	})
	done := make(chan struct{})
	go func() { a.ServeLink(uilink.NewConn(mine)); close(done) }()

	send := func(m uilink.Msg) {
		t.Helper()
		if err := trayEnd.Send(m); err != nil {
			t.Fatal(err)
		}
	}
	recv := func() uilink.Msg {
		t.Helper()
		m, err := trayEnd.Recv()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	send(uilink.Msg{Op: uilink.OpBoot, State: uilink.BootReady})
	send(uilink.Msg{Op: uilink.OpThread, Seq: 1, Th: "thr_l"})
	// The thread window comes up in front: the tray hears it, then the ack.
	if m := recv(); m.Op != uilink.OpFocus || m.Th != "thr_l" {
		t.Fatalf("got %+v, want the focus of thr_l", m)
	}
	if m := recv(); m.Op != uilink.OpAck || m.Seq != 1 {
		t.Fatalf("got %+v, want the ack of 1", m)
	}
	if dialed != 1 || a.backend() == nil {
		t.Fatalf("dialed %d times, attached %v", dialed, a.backend() != nil)
	}
	// (a.Wait would wait for the event loop: it runs until the node ends.)
	eventually(t, "the thread window with the node's subject", func() bool {
		tw := a.threads[threadKey{"thr_l", ""}]
		return tw != nil && tw.info.Subject == "linked"
	})
	send(uilink.Msg{Op: uilink.OpApprovals, Seq: 2, ID: "ap_b"})
	if m := recv(); m.Op != uilink.OpAck || m.Seq != 2 {
		t.Fatalf("got %+v, want the ack of 2", m)
	}
	eventually(t, "Approvals at ap_b", func() bool { return a.approvals != nil && a.approvals.cur == "ap_b" })
	// Closing the thread window tells the tray nothing is in front.
	fyne.DoAndWait(func() { a.threads[threadKey{"thr_l", ""}].closeAsked() })
	if m := recv(); m.Op != uilink.OpFocus || m.Th != "" {
		t.Fatalf("got %+v, want no focus", m)
	}
	trayEnd.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("ServeLink did not return when the line ended")
	}
	if !a.quitRequested() {
		t.Error("the UI did not quit when the tray went away")
	}
}

// socketPair is a connected pair of unix sockets: unlike net.Pipe, a write
// does not wait for the other end to read.
func socketPair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	var cs [2]net.Conn
	for i, fd := range fds {
		f := os.NewFile(uintptr(fd), "pair")
		c, err := net.FileConn(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		cs[i] = c
		t.Cleanup(func() { c.Close() })
	}
	return cs[0], cs[1]
}

// eventually checks cond on the UI goroutine until it holds; the bound
// only turns a hang into a failure.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var ok bool
		fyne.DoAndWait(func() { ok = cond() })
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A burst of events is one refresh; the loop ends with the subscription.
func TestEventLoopCoalescesAndStops(t *testing.T) {
	f := newFakeNode()
	f.threads = []peer.ThreadInfo{{Th: "thr_a", Peer: aliceKey.String(), Unread: 4}}
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
