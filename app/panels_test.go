package app

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/awp-tray/awp-tray/app/render"
	"github.com/awp-tray/awp-tray/internal/nodetest"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/transport"
)

// Errors read as sentences a person can act on, not as Go's.
func TestPlainError(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("%w: illegal base64 data at input byte 16", peer.ErrBadInvite),
			"This invite is damaged or incomplete. Copy it again, whole, from the peer that made it (it starts with awp:)."},
		{fmt.Errorf("%w: %q: unknown scheme", transport.ErrBadAddr, "hello"),
			"This is not an address AWP can dial. Use tcp://host:port, unix:///path/to/socket, or paste an invite (awp:…)."},
		{errors.New("dial tcp 127.0.0.1:9: connect: connection refused"), "Nothing answers at that address. Is the peer running, and is the port right?"},
		{errors.New("peer: thread thr_x is private: mirroring stays off"), "This thread is private: it cannot be mirrored."},
		{fmt.Errorf("%w: thr_x", peer.ErrNoThread), "This thread is no longer there."},
		{errors.New("peer: disk full"), "Disk full."},
		{errors.New(""), "Something went wrong."},
	} {
		if got := plainError(c.err); got != c.want {
			t.Errorf("plainError(%q) = %q\nwant %q", c.err, got, c.want)
		}
	}
}

// Add peer… keeps what was typed when it fails, says why in a sentence
// inside the dialog, and closes once it worked.
func TestAddPeerDialogKeepsText(t *testing.T) {
	me := nodetest.New(t, "me", 1)
	alice := nodetest.New(t, "alice", 2)
	na := newNodeApp(t, me)
	d := na.addPeerIn(na.main.w)
	entry := d.items[0].Widget.(*widget.Entry)
	broken := alice.Invite()[:20] + "%%" + alice.Invite()[22:]
	entry.SetText(broken)
	test.Tap(d.ok)
	na.Wait()
	if d.done || entry.Text != broken {
		t.Fatalf("after a failure: closed %v, text %q", d.done, entry.Text)
	}
	if !d.errText.Visible() || !strings.HasPrefix(d.errText.Text, "This invite is damaged or incomplete.") {
		t.Errorf("error shown: %v %q", d.errText.Visible(), d.errText.Text)
	}
	if top := na.main.w.Canvas().Overlays().Top(); top == nil || !strings.Contains(strings.Join(drawnTexts(top), " "), "This invite is damaged") {
		t.Error("the dialog is not the one on top, with the error in it")
	}
	entry.SetText(alice.Invite())
	test.Tap(d.ok)
	na.Wait()
	if !d.done || d.errText.Visible() {
		t.Fatalf("with a good invite: closed %v, error %q", d.done, d.errText.Text)
	}
	if !strings.HasPrefix(na.main.notice.Text, "Added peer "+render.ShortKey(alice.Key().String())) {
		t.Errorf("notice = %q", na.main.notice.Text)
	}
}

// "mirroring" shows only when a mirror host exists; the Mirror switch
// says why it cannot be used (no host, a private thread, not my thread).
func TestMirrorTellsTheTruth(t *testing.T) {
	me := nodetest.New(t, "me", 1)
	alice := nodetest.New(t, "alice", 2)
	nodetest.Link(t, me, alice)
	na := newNodeApp(t, me)
	res := nodetest.Say(t, me, alice.Key(), "", "Port", "hello")
	na.pump(t, "my thread listed", func() bool { _, ok := na.thread(res.Th); return ok })
	info, _ := na.thread(res.Th)
	if d := render.DescribeThread(info, nil).Detail; strings.Contains(d, "mirroring") {
		t.Errorf("no mirror host, and the row says %q", d)
	}
	tw := na.openThread(info)
	na.Wait()
	if !tw.mirror.Disabled() || tw.mirror.Checked || tw.mirror.Text != mirrorLabelNoHosts {
		t.Errorf("no host: mirror disabled %v, checked %v, %q", tw.mirror.Disabled(), tw.mirror.Checked, tw.mirror.Text)
	}

	// A host appears (Settings): the row says mirroring, the switch works.
	if err := me.SetMirrorHosts([]string{alice.Key().String()}); err != nil {
		t.Fatal(err)
	}
	na.pump(t, "the row to say mirroring", func() bool {
		i, _ := na.thread(res.Th)
		return strings.Contains(render.DescribeThread(i, nil).Detail, "mirroring")
	})
	if tw.mirror.Disabled() || !tw.mirror.Checked || tw.mirror.Text != mirrorLabel {
		t.Errorf("with a host: mirror disabled %v, checked %v, %q", tw.mirror.Disabled(), tw.mirror.Checked, tw.mirror.Text)
	}
	test.Tap(tw.mirror)
	na.Wait()
	na.pump(t, "mirroring off on the node", func() bool { i, _ := na.thread(res.Th); return !i.Mirror })
	if tw.mirror.Checked {
		t.Error("switched off, still ticked")
	}
}

// A switch the node refuses goes back to what it was, and the reason is a
// sentence.
func TestMirrorRefusedGoesBack(t *testing.T) {
	f := newFakeNode()
	f.Fake.Hosts = []string{aliceKey.String()}
	a, _ := newTestApp(t, f)
	a.refresh(dirtyAll)
	a.Wait()
	tw := a.openThread(peer.ThreadInfo{Th: "thr_x", Peer: aliceKey.String(), Subject: "x"})
	a.Wait()
	if tw.mirror.Disabled() {
		t.Fatalf("mirror disabled with a host: %q", tw.mirror.Text)
	}
	f.Fake.Lock()
	f.Fake.Err = errors.New("peer: thread thr_x is private: mirroring stays off")
	f.Fake.Unlock()
	test.Tap(tw.mirror)
	a.Wait()
	if tw.mirror.Checked {
		t.Error("the node refused, and the switch stayed ticked")
	}
	top := tw.w.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("no error shown")
	}
	got := strings.Join(drawnTexts(top), " ")
	if !strings.Contains(got, "This thread is private: it cannot be mirrored.") || strings.Contains(got, "thr_x") {
		t.Errorf("error reads %q", got)
	}
}
