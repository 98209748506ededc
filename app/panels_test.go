package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/awp-tray/awp-tray/app/render"
	"github.com/awp-tray/awp-tray/internal/nodetest"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/presence"
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
		{fmt.Errorf("peer: connect tcp://127.0.0.1:7000: %w", peer.ErrSelfAddress), "That address is this peer's own. Use the address of the peer you want to reach."},
		{fmt.Errorf("%w: that is this node's own key", peer.ErrBadKey), "That is this peer's own key (its own invite). Add the invite of another peer."},
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
	na, me, alice := linkedNodeApp(t, meDials)
	res := nodetest.Say(t, me, alice.Key(), "", "Port", "hello")
	na.pump(t, "my thread listed", func() bool { _, ok := na.thread(res.Th); return ok })
	info, _ := na.thread(res.Th)
	if d := render.DescribeThread(info, render.RowOptions{}).Detail; strings.Contains(d, "mirroring") {
		t.Errorf("no mirror host, and the row says %q", d)
	}
	tw := na.openThread(info)
	na.Wait()
	if !tw.mirror.Disabled() || tw.mirror.Checked || tw.toggles.why.Text != mirrorWhyNoHosts {
		t.Errorf("no host: mirror disabled %v, checked %v, %q", tw.mirror.Disabled(), tw.mirror.Checked, tw.toggles.why.Text)
	}

	// A host appears (Settings): the row says mirroring, the switch works.
	if err := me.SetMirrorHosts([]key.PublicKey{alice.Key()}); err != nil {
		t.Fatal(err)
	}
	na.pump(t, "the row to say mirroring", func() bool {
		i, _ := na.thread(res.Th)
		return strings.Contains(render.DescribeThread(i, render.RowOptions{}).Detail, "mirroring")
	})
	if tw.mirror.Disabled() || !tw.mirror.Checked || tw.toggles.why.Visible() {
		t.Errorf("with a host: mirror disabled %v, checked %v, %q", tw.mirror.Disabled(), tw.mirror.Checked, tw.toggles.why.Text)
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
	f.Fake.Hosts = []key.PublicKey{aliceKey}
	a, _ := newTestApp(t, f)
	a.refresh(dirtyAll)
	a.Wait()
	tw := a.openThread(peer.ThreadInfo{Th: "thr_x", Peer: aliceKey, Subject: "x"})
	a.Wait()
	if tw.mirror.Disabled() {
		t.Fatalf("mirror disabled with a host: %q", tw.toggles.why.Text)
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

// sendFails is a node whose Send fails.
type sendFails struct {
	*fakeNode
	err error
}

func (s sendFails) Send(ctx context.Context, r peer.SendRequest) (peer.SendResult, error) {
	return peer.SendResult{}, s.err
}

// Presence is one list of cards: known peers merged with what their
// presence documents say, and keys known only from presence; each with
// its software, up dot, rtt or last seen, trust, and threads with me.
func TestPresenceCards(t *testing.T) {
	now := time.Now().UTC()
	f := newFakeNode()
	f.peers = []peer.PeerInfo{
		{Key: bobKey, Name: "bob", Listen: []string{"tcp://10.0.0.2:7000"}, IntroducedBy: aliceKey,
			LastSeen: now.Add(-5 * time.Minute).Format(time.RFC3339Nano)},
		{Key: aliceKey, Name: "alice", Up: true, RTTms: 12, Trusted: true},
	}
	doc := func(d presence.Doc, hops int) peer.PresenceInfo {
		b, _ := json.Marshal(d)
		return peer.PresenceInfo{Doc: b, Hops: hops, From: aliceKey}
	}
	f.Fake.PresenceList = []peer.PresenceInfo{
		doc(presence.Doc{Origin: aliceKey.String(), Name: "alice", Harness: "claude-code", Model: "opus", Host: "build-box", Version: "0.1.0",
			Threads: []presence.ThreadEntry{
				{Th: "thr_d", Peer: carolKey.String(), Subject: "Deploy", Mine: "working", Updated: "2026-12-01T15:00:00Z"},
				{Th: "thr_p", Peer: meKey.String(), Subject: "Port the auth", Updated: "2026-12-01T15:01:00Z"}}}, 1),
		doc(presence.Doc{Origin: carolKey.String(), Name: "carol", Harness: "codex"}, 2),
	}
	f.threads = []peer.ThreadInfo{{Th: "thr_p", Peer: aliceKey, Subject: "Port the auth", Mine: "working", Unread: 2, Updated: "2026-12-01T15:01:00Z"}}
	f.dialKey["tcp://10.0.0.2:7000"] = bobKey
	a, _ := newTestApp(t, f)
	a.refresh(dirtyAll)
	a.Wait()
	a.showPresence()
	a.Wait()
	p := a.presence
	if len(p.cards) != 3 || p.list.Length() != 3 {
		t.Fatalf("cards: %+v", p.cards)
	}
	al, bo, ca := p.cards[0], p.cards[1], p.cards[2]
	if al.Key != aliceKey.String() || al.Title != "alice  "+render.ShortKey(aliceKey.String()) || al.Software != "claude-code · opus · on build-box · v0.1.0" ||
		al.Status != "up · 12 ms" || al.Trust != "trusted" || !al.Up ||
		al.Threads != "Port the auth (you: working, alice: –) · 2 unread · Deploy with "+render.ShortKey(carolKey.String())+" (alice: working, "+render.ShortKey(carolKey.String())+": –)" {
		t.Errorf("alice's card: %+v", al)
	}
	if bo.Key != bobKey.String() || bo.Status != "down · last seen 5 min ago" || bo.Trust != "introduced by alice" || bo.Up || bo.Software != "" ||
		bo.Threads != "No threads with you." || bo.Dial != "tcp://10.0.0.2:7000" {
		t.Errorf("bob's card: %+v", bo)
	}
	if ca.Key != carolKey.String() || ca.Known || ca.Status != "not connected · 2 hops away" || ca.Software != "codex" {
		t.Errorf("carol's card: %+v", ca)
	}
	if !p.note.Visible() || !strings.Contains(p.note.Text, "a grant a trusted key signs counts here like one of yours") {
		t.Errorf("trust note: %q", p.note.Text)
	}

	// The rows: the dot's colour, Connect only where it can work.
	row := p.list.CreateItem()
	v := p.views[row]
	p.list.UpdateItem(0, row)
	if v.dot.FillColor != theme.Color(theme.ColorNameSuccess) || v.conn.Visible() || v.trust.Text != "Untrust" {
		t.Errorf("alice's row: dot %v, connect shown %v, %q", v.dot.FillColor, v.conn.Visible(), v.trust.Text)
	}
	p.list.UpdateItem(1, row)
	if v.dot.FillColor != theme.Color(theme.ColorNameDisabled) || !v.conn.Visible() || v.trust.Text != "Trust…" {
		t.Errorf("bob's row: dot %v, connect shown %v, %q", v.dot.FillColor, v.conn.Visible(), v.trust.Text)
	}
	test.Tap(v.conn)
	a.Wait()
	// Trust… says what trusting means before it trusts.
	test.Tap(v.trust)
	top := p.w.Canvas().Overlays().Top()
	if top == nil || !strings.Contains(strings.Join(drawnTexts(top), " "), "even one it signs for itself") {
		t.Fatal("Trust… did not explain itself")
	}
	f.with(func() {
		if _, ok := f.trusted[bobKey]; ok {
			t.Error("trusted before the confirmation")
		}
	})
	test.Tap(findButton(top, "Trust"))
	a.Wait()
	f.with(func() {
		if v, ok := f.trusted[bobKey]; !ok || !v {
			t.Errorf("trust calls = %v", f.trusted)
		}
		if len(f.dialed) != 1 || f.dialed[0] != "tcp://10.0.0.2:7000" {
			t.Errorf("dialed = %v", f.dialed)
		}
	})

	// Message: a dialog to that peer; a failure keeps what was typed.
	a.mu.Lock()
	a.be = sendFails{f, errors.New("peer: disk full")}
	a.mu.Unlock()
	p.list.UpdateItem(0, row)
	test.Tap(v.msg)
	d := p.w.Canvas().Overlays().Top()
	if d == nil || !strings.Contains(strings.Join(drawnTexts(d), " "), "alice ("+render.ShortKey(aliceKey.String())+")") {
		t.Fatal("Message did not ask, to alice")
	}
	var entries []*widget.Entry
	for _, o := range test.LaidOutObjects(d) {
		if e, ok := o.(*widget.Entry); ok {
			entries = append(entries, e)
		}
	}
	if len(entries) != 2 {
		t.Fatalf("%d entries in the Message dialog", len(entries))
	}
	entries[0].SetText("Review")
	entries[1].SetText("please look at the diff")
	test.Tap(findButton(d, "Send"))
	a.Wait()
	if p.w.Canvas().Overlays().Top() != d || entries[0].Text != "Review" || entries[1].Text != "please look at the diff" ||
		!strings.Contains(strings.Join(drawnTexts(d), " "), "Disk full.") {
		t.Fatalf("after a failed send: %q", drawnTexts(d))
	}
	a.mu.Lock()
	a.be = f
	a.mu.Unlock()
	test.Tap(findButton(d, "Send"))
	a.Wait()
	f.with(func() {
		if len(f.sent) != 1 || f.sent[0].To.String() != aliceKey.String() || f.sent[0].Subject != "Review" {
			t.Errorf("sent %+v", f.sent)
		}
	})
	if tw := a.threads[threadKey{"thr_new1", key.PublicKey{}}]; tw == nil {
		t.Error("the new thread's window did not open")
	}
}

// hasLabel reports whether a label with exactly text is in o's tree.
func hasLabel(o fyne.CanvasObject, text string) bool {
	for _, x := range test.LaidOutObjects(o) {
		if l, ok := x.(*widget.Label); ok && l.Text == text {
			return true
		}
	}
	return false
}

// The New thread dialog keeps what was typed, with the reason in a
// sentence, when sending fails; then sends once the peer is right.
func TestNewThreadDialogKeepsText(t *testing.T) {
	na, _, alice := linkedNodeApp(t, meDials)
	d := na.newThreadDialog(nil)
	to := d.items[0].Widget.(*widget.SelectEntry)
	subject := d.items[1].Widget.(*widget.Entry)
	text := d.items[2].Widget.(*widget.Entry)
	to.SetText("nobody-by-that-name")
	subject.SetText("Port the middleware")
	text.SetText("a long message\nI do not want to type again")
	test.Tap(d.ok)
	na.Wait()
	if d.done || subject.Text != "Port the middleware" || text.Text != "a long message\nI do not want to type again" {
		t.Fatalf("after a failure: closed %v, subject %q, text %q", d.done, subject.Text, text.Text)
	}
	if !d.errText.Visible() || d.errText.Text == "" {
		t.Errorf("no error shown in the dialog")
	}
	to.SetText(alice.Key().String())
	test.Tap(d.ok)
	na.Wait()
	if !d.done || d.errText.Visible() {
		t.Fatalf("to alice: closed %v, error %q", d.done, d.errText.Text)
	}
}
