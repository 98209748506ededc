package app

import (
	"context"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/awp-tray/awp-tray/app/trayhost"
	"github.com/awp-tray/awp-tray/peer"
)

func TestStatusLine(t *testing.T) {
	for _, tc := range []struct {
		s    snapshot
		want string
	}{
		{snapshot{}, "starting…"},
		{snapshot{Booted: true}, "offline: no peer connected"},
		{snapshot{Booted: true, PeersUp: 1}, "1 peer connected"},
		{snapshot{Booted: true, PeersUp: 3, Approvals: 2}, "3 peers connected · 2 waiting for you"},
		{snapshot{Err: "keyring locked"}, "not running: keyring locked"},
	} {
		if got := statusLine(tc.s); got != tc.want {
			t.Errorf("statusLine(%+v) = %q, want %q", tc.s, got, tc.want)
		}
	}
}

func TestTrayMenuFollowsNode(t *testing.T) {
	f := newFakeNode()
	f.threads = []peer.ThreadInfo{{Th: "thr_a", Peer: aliceKey.String(), Subject: "a", Unread: 2, Updated: "2026-09-25T17:00:00Z"},
		{Th: "thr_b", Peer: bobKey.String(), Subject: "b", Unread: 1, Updated: "2026-09-25T18:00:00Z"}}
	f.peers = []peer.PeerInfo{{Key: aliceKey.String(), Name: "alice", Up: true}, {Key: bobKey.String(), Name: "bob", Up: true}}
	f.pending = []peer.ApprovalRequest{{ID: "ap1", From: aliceKey.String(), Caps: []string{"exec"}}}
	a, tray := newTestApp(t, f)

	want := []string{"AWP: 2 peers connected · 1 waiting for you", "", "Threads (3 unread)", "Presence", "Approvals (1 pending)", "",
		"Copy my invite", "Add peer…", "Pause notifications", "Settings", "", "Quit"}
	if got := tray.labels(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("menu:\n%q\nwant\n%q", got, want)
	}
	if !tray.menus[len(tray.menus)-1].Items[0].Disabled {
		t.Error("the status line is clickable")
	}
	if !tray.menus[len(tray.menus)-1].Items[11].IsQuit {
		t.Error("Quit is not marked IsQuit")
	}
	last := tray.icons[len(tray.icons)-1]
	if last.Name() != "awp-tray-online-approval-unread3.png" {
		t.Errorf("icon = %s", last.Name())
	}

	// Refreshing with nothing changed touches neither the menu nor the icon.
	menus, icons := len(tray.menus), len(tray.icons)
	a.refresh(dirtyAll)
	if len(tray.menus) != menus || len(tray.icons) != icons {
		t.Errorf("unchanged state re-set the tray: menus %d→%d icons %d→%d", menus, len(tray.menus), icons, len(tray.icons))
	}

	// One more peer: the status line changes, the icon's look does not.
	f.with(func() { f.peers = append(f.peers, peer.PeerInfo{Key: meKey.String(), Up: true}) })
	a.handle(peer.Event{Type: peer.EventPeerUp})
	if len(tray.icons) != icons {
		t.Errorf("icon re-set although its look did not change")
	}
	if tray.labels()[0] != "AWP: 3 peers connected · 1 waiting for you" {
		t.Errorf("status = %q", tray.labels()[0])
	}

	// The approval is decided and every peer goes down: a new icon.
	f.with(func() {
		f.pending = nil
		for i := range f.peers {
			f.peers[i].Up = false
		}
	})
	a.handle(peer.Event{Type: peer.EventApprovalDone}, peer.Event{Type: peer.EventPeerDown})
	if got := tray.icons[len(tray.icons)-1].Name(); got != "awp-tray-offline-unread3.png" {
		t.Errorf("icon after changes = %s", got)
	}
	if got := tray.labels()[4]; got != "Approvals" {
		t.Errorf("approvals item = %q", got)
	}
}

func TestPauseNotificationsToggle(t *testing.T) {
	a, tray := newTestApp(t, newFakeNode())
	if a.Paused() {
		t.Fatal("paused at start")
	}
	pause := tray.menus[len(tray.menus)-1].Items[8]
	pause.Action()
	if !a.Paused() || !tray.menus[len(tray.menus)-1].Items[8].Checked {
		t.Error("Pause notifications did not pause")
	}
	if !a.fa.Preferences().Bool(prefPaused) {
		t.Error("pause not remembered")
	}
	pause.Action()
	if a.Paused() {
		t.Error("second click did not resume")
	}
}

func TestNoTrayShowsMainWindow(t *testing.T) {
	fa := test.NewTempApp(t)
	a := New(fa, Options{DetectTray: func(context.Context) trayhost.Result {
		return trayhost.Result{Reason: "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)"}
	}})
	defer a.Close()
	if a.SetupTray() {
		t.Fatal("SetupTray reported a tray")
	}
	if a.HasTray() {
		t.Error("HasTray with no host")
	}
	if !a.main.notice.Visible() || !strings.Contains(a.main.notice.Text, "no D-Bus session bus") {
		t.Errorf("notice = %q (visible %v)", a.main.notice.Text, a.main.notice.Visible())
	}
	// Without a tray, updating the tray is a no-op rather than a crash.
	a.updateTray()
}

func TestEventsReachNotifier(t *testing.T) {
	f := newFakeNode()
	a, _ := newTestApp(t, f)
	n := &fakeNotifier{}
	a.SetNotifier(n)
	a.handle(peer.Event{Type: peer.EventLine, Th: "thr_a"}, peer.Event{Type: peer.EventPresence})
	if len(n.events) != 2 || n.events[0].Type != peer.EventLine {
		t.Errorf("notifier got %+v", n.events)
	}
}

func TestEventLoopCoalescesAndStops(t *testing.T) {
	f := newFakeNode()
	f.threads = []peer.ThreadInfo{{Th: "thr_a", Peer: aliceKey.String(), Unread: 4}}
	fa := test.NewTempApp(t)
	a := New(fa, Options{Tray: &fakeTray{}})
	a.SetupTray()
	for range 10 {
		f.events <- peer.Event{Type: peer.EventLine, Th: "thr_a"}
	}
	close(f.events) // the subscription ends: the loop returns
	a.Attach(f)
	a.Wait()
	if got := a.counts().Unread; got != 4 {
		t.Errorf("unread after events = %d, want 4", got)
	}
	a.Close()
	a.Close() // twice is fine
}

type fakeNotifier struct {
	events []peer.Event
	read   []threadKey
}

func (n *fakeNotifier) HandleEvent(ev peer.Event) { n.events = append(n.events, ev) }
func (n *fakeNotifier) Read(th, from string)      { n.read = append(n.read, threadKey{th, from}) }
