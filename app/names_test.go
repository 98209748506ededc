package app

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/awp-tray/awp-tray/app/render"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/grant"
	"github.com/awp-tray/awp-tray/peer/key/keytest"
)

// labelWith returns the text of the first label in o's tree that starts
// with prefix ("" if none). It walks the tree as it stands, without laying
// it out (a layout would bind a list's rows again and hide a missing
// refresh).
func labelWith(o fyne.CanvasObject, prefix string) string {
	switch x := o.(type) {
	case *widget.Label:
		if strings.HasPrefix(x.Text, prefix) {
			return x.Text
		}
		return ""
	case *fyne.Container:
		for _, c := range x.Objects {
			if s := labelWith(c, prefix); s != "" {
				return s
			}
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(x).Objects() {
			if s := labelWith(c, prefix); s != "" {
				return s
			}
		}
	}
	return ""
}

// A peer's name that arrives after the Approvals window and a thread window
// showed its key redraws both: the grant row and the thread's header say
// the name, not the short key (TestNodeApprovals saw the short key when the
// name came after the grant).
func TestNameArrivesLater(t *testing.T) {
	f := newFakeNode()
	th := peer.ThreadInfo{Th: "thr_names", Peer: bobKey, Subject: "later"}
	f.threads = []peer.ThreadInfo{th}
	a, _ := newTestApp(t, f)

	k := keytest.Seeded(t, 9)
	g, err := grant.Sign(k, bobKey, []string{"exec"}, time.Now().Add(time.Hour), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	var tw *threadWindow
	var w *approvalsWindow
	fyne.DoAndWait(func() {
		w = a.approvalsWin()
		w.setGrants([]peer.GrantInfo{{ID: "g1", Grant: raw, Issued: true}})
		w.w.Show()
		w.tabs.SelectIndex(1) // Grants I issued
		tw = a.openThread(th)
	})
	a.Wait()
	test.LaidOutObjects(w.w.Content()) // the rows exist, bound once
	short := render.ShortKey(bobKey.String())
	if got := labelWith(w.w.Content(), short+": exec"); got == "" {
		t.Fatalf("grant row before the name: no label starting %q", short+": exec")
	}
	if got := tw.detail.Text; !strings.HasPrefix(got, short) {
		t.Fatalf("thread detail before the name = %q, want the short key %q", got, short)
	}

	f.with(func() { f.peers = []peer.PeerInfo{{Key: bobKey, Name: "bob", Up: true}} })
	a.handle(peer.Event{Type: peer.EventPeerUp, Peer: bobKey, PeerName: "bob"})
	if got := labelWith(w.w.Content(), "bob: exec"); got == "" {
		t.Errorf("grant row after the name: no label starting %q (still %q)", "bob: exec", labelWith(w.w.Content(), short))
	}
	if got := tw.detail.Text; !strings.HasPrefix(got, "bob") {
		t.Errorf("thread detail after the name = %q, want it to start with bob", got)
	}
}

// A failed dial shows under the status which address, and why in words
// (it said "could not reach : …", with the empty key of an event that
// names an address).
func TestDialErrorNotice(t *testing.T) {
	a, _ := newTestApp(t, newFakeNode())
	a.handle(peer.Event{Type: peer.EventDialError, Of: "tcp://127.0.0.1:1", Err: "transport: dial tcp://127.0.0.1:1: connection refused"})
	want := "Could not reach tcp://127.0.0.1:1. Nothing answers at that address. Is the peer running, and is the port right?"
	if got := a.main.notice.Text; got != want || !a.main.notice.Visible() {
		t.Errorf("notice = %q (visible %v), want %q", got, a.main.notice.Visible(), want)
	}
	a.handle(peer.Event{Type: peer.EventDialError, Of: "wg://10.0.0.2:51820", Peer: bobKey, Err: "dial: i/o timeout"})
	if got, short := a.main.notice.Text, render.ShortKey(bobKey.String()); !strings.HasPrefix(got, "Could not reach "+short+" at wg://10.0.0.2:51820. The peer did not answer in time.") {
		t.Errorf("notice = %q, want the peer's short key, the address and the reason", got)
	}
}
