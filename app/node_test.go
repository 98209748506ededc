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
	"fyne.io/fyne/v2/widget"

	"github.com/awp-tray/awp-tray/app/render"
	"github.com/awp-tray/awp-tray/internal/nodetest"
	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/localapi/localapitest"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// These tests run the UI against real nodes (peer.Node on temporary
// stores, connected over tcp://127.0.0.1:0). The fake backend remains only
// where a node cannot do the job: see fake_test.go.

// nodeApp is an App on the headless driver attached to a real node. The
// node's events are delivered by pump on the test goroutine (through the
// same classify/apply path as the event loop), so widgets are only
// touched from one goroutine at a time.
type nodeApp struct {
	*App
	tray   *fakeTray
	node   *peer.Node
	events <-chan peer.Event
}

func newNodeApp(t *testing.T, n *peer.Node) *nodeApp {
	t.Helper()
	a, tray := newTestApp(t, nil)
	ch, cancel := n.Subscribe(4096)
	t.Cleanup(cancel)
	a.mu.Lock()
	a.be = n
	a.mu.Unlock()
	a.refresh(dirtyAll)
	a.Wait()
	return &nodeApp{App: a, tray: tray, node: n, events: ch}
}

// Who dials whom in linkedNodeApp.
type dialer int

const (
	meDials dialer = iota
	aliceDials
)

// linkedNodeApp starts node "me" (key seed 1) and node "alice" (seed 2),
// connects them (by says who dials), and then attaches a nodeApp to me.
func linkedNodeApp(t *testing.T, by dialer) (na *nodeApp, me, alice *peer.Node) {
	t.Helper()
	me = nodetest.New(t, "me", 1)
	alice = nodetest.New(t, "alice", 2)
	if by == aliceDials {
		nodetest.Link(t, alice, me)
	} else {
		nodetest.Link(t, me, alice)
	}
	return newNodeApp(t, me), me, alice
}

// openListed pumps events until thread th is in the list (what names it
// for a failure), then opens its window.
func (na *nodeApp) openListed(t *testing.T, what, th string) *threadWindow {
	t.Helper()
	na.pump(t, what, func() bool { _, ok := na.thread(th); return ok })
	info, _ := na.thread(th)
	tw := na.openThread(info)
	na.Wait()
	return tw
}

// pump applies the node's events until cond holds. The 30 s bound only
// turns a hang into a failure; no assertion depends on timing.
func (na *nodeApp) pump(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for !cond() {
		select {
		case ev := <-na.events:
			evs := []peer.Event{ev}
		drain:
			for {
				select {
				case ev := <-na.events:
					evs = append(evs, ev)
				default:
					break drain
				}
			}
			na.handle(evs...)
		case <-time.After(20 * time.Millisecond):
			na.Wait()
		case <-deadline.C:
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// thread returns the app's main-list entry of th, if shown.
func (na *nodeApp) thread(th string) (peer.ThreadInfo, bool) {
	for _, t := range na.main.all {
		if t.Th == th {
			return t, true
		}
	}
	return peer.ThreadInfo{}, false
}

// lineTypes are the wire types of a thread's lines, with their direction.
func lineTypes(t testing.TB, n *peer.Node, th string) []string {
	t.Helper()
	ls, err := n.Lines(th, key.PublicKey{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range ls {
		var h struct {
			T string `json:"t"`
		}
		_ = json.Unmarshal(l.Line, &h)
		out = append(out, l.Dir+":"+h.T)
	}
	return out
}

// (a) Sending from the compose box stores an outbound msg.
func TestNodeComposeStoresOutbound(t *testing.T) {
	na, me, alice := linkedNodeApp(t, aliceDials)
	res := nodetest.Say(t, alice, me.Key(), "", "Port the auth middleware", "can you take this?")
	tw := na.openListed(t, "alice's thread in the list", res.Th)
	c := tw.compose
	test.Type(c.text, "hello alice")
	test.Tap(c.send)
	na.Wait()
	if c.text.Text != "" {
		t.Errorf("compose not cleared: %q", c.text.Text)
	}
	ls, err := me.Lines(res.Th, key.PublicKey{})
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, l := range ls {
		if l.Dir == "out" && strings.Contains(string(l.Line), `"t":"msg"`) && strings.Contains(string(l.Line), `"text":"hello alice"`) {
			found = true
		}
	}
	if !found {
		t.Fatalf("no stored outbound msg with the text; lines: %v", lineTypes(t, me, res.Th))
	}
	// It reaches alice and the open thread view shows it.
	na.pump(t, "the reply in the thread view", func() bool {
		for _, r := range tw.rows {
			if r.Text == "hello alice" {
				return true
			}
		}
		return false
	})

	// Setting my state stores a state line.
	c.state.SetSelected("working")
	test.Type(c.note, "on it")
	test.Tap(c.setBtn)
	na.Wait()
	if got := lineTypes(t, me, res.Th); !strings.Contains(strings.Join(got, " "), "out:state") {
		t.Errorf("no outbound state line: %v", got)
	}
}

// (b) An arriving msg raises the unread count in the threads list (the
// tray menu's count is app/tray's TestTrayFollowsNode), and reading the
// thread clears it.
func TestNodeArrivingMsgRaisesUnread(t *testing.T) {
	na, me, alice := linkedNodeApp(t, aliceDials)
	if got := na.counts().Unread; got != 0 {
		t.Fatalf("unread at start = %d", got)
	}
	if got := na.main.status.Text; got != "AWP: 1/1 peer up" {
		t.Errorf("status = %q", got)
	}
	res := nodetest.Say(t, alice, me.Key(), "", "Release build", "the build is red")
	na.pump(t, "the unread thread", func() bool { t, ok := na.thread(res.Th); return ok && t.Unread == 1 })
	if got := na.counts().Unread; got != 1 {
		t.Errorf("unread = %d", got)
	}
	row := na.main.list.CreateItem()
	na.main.list.UpdateItem(0, row)
	if r := na.main.shown[0]; r.Th != res.Th || r.Unread != 1 {
		t.Errorf("first row = %+v", r)
	}
	if lbl := rowTitle(row); lbl != "Release build  (1)" {
		t.Errorf("row title = %q", lbl)
	}

	// A state line is not something to read: it shows as alice's state.
	if _, err := alice.SetState(context.Background(), res.Th, "working", "bisecting"); err != nil {
		t.Fatal(err)
	}
	na.pump(t, "alice's state", func() bool { t, _ := na.thread(res.Th); return t.Theirs == "working" })
	if got, _ := na.thread(res.Th); got.Unread != 1 {
		t.Errorf("unread after a state line = %d, want 1", got.Unread)
	}
	nodetest.Say(t, alice, me.Key(), res.Th, "", "still red")
	na.pump(t, "two unread", func() bool { t, _ := na.thread(res.Th); return t.Unread == 2 })
	if got := na.counts().Unread; got != 2 {
		t.Errorf("unread = %d", got)
	}
	// Opening the thread marks it read: the count goes away.
	info, _ := na.thread(res.Th)
	na.openThread(info)
	na.Wait()
	na.pump(t, "the thread read", func() bool { t, _ := na.thread(res.Th); return t.Unread == 0 })
	if got := na.counts().Unread; got != 0 {
		t.Errorf("unread after reading = %d", got)
	}
}

// wait reads the answer of execRequest.
func waitAnswer(t *testing.T, ch <-chan error) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(90 * time.Second):
		t.Fatal("the request never got an answer")
		return nil
	}
}

// (c) Approving a pending request issues a grant and the request runs;
// denying answers err forbidden. The issued grant is listed and can be
// revoked.
func TestNodeApprovals(t *testing.T) {
	ws := t.TempDir()
	me := nodetest.New(t, "me", 1, func(c *peer.Config) { c.Workspace = ws })
	alice := nodetest.New(t, "alice", 2)
	nodetest.Link(t, alice, me)
	na := newNodeApp(t, me)

	answer := nodetest.ExecRequest(alice, me.Key(), "echo approved")
	na.pump(t, "the approval prompt", func() bool { return na.approvals != nil && na.approvals.cur != "" })
	w := na.approvals
	if got := na.main.status.Text; got != "AWP: 1/1 peer up · 1 waiting for you" {
		t.Errorf("status = %q", got)
	}
	var shown []string
	for _, f := range w.shownFields() {
		shown = append(shown, f.Label)
	}
	if !strings.Contains(strings.Join(shown, " "), "command") {
		t.Errorf("prompt fields = %v", shown)
	}
	w.looked()
	test.Tap(w.button("Allow exec for 1 hour"))
	na.Wait()
	if err := waitAnswer(t, answer); err != nil {
		t.Fatalf("approved request: %v", err)
	}
	gs, err := me.Grants()
	if err != nil {
		t.Fatal(err)
	}
	var issued []peer.GrantInfo
	for _, g := range gs {
		if g.Issued {
			issued = append(issued, g)
		}
	}
	if len(issued) != 1 {
		t.Fatalf("grants issued = %+v", gs)
	}
	// alice's name may reach the app after the grant (TestNameArrivesLater
	// checks the row is redrawn when it does).
	na.pump(t, "the grant in the Approvals window, with alice's name", func() bool {
		return len(w.grants) == 1 && w.cur == "" && strings.HasPrefix(GrantLine(w.grants[0], na.main.name, time.UTC), "alice: ")
	})
	if line := GrantLine(w.grants[0], na.main.name, time.UTC); !strings.HasPrefix(line, "alice: exec on this peer · until ") || strings.Contains(line, "0m0s") {
		t.Errorf("grant line = %q, want it on this peer, the duration in words", line)
	}

	// The grant now covers a second request: it runs without a prompt.
	if err := waitAnswer(t, nodetest.ExecRequest(alice, me.Key(), "echo granted")); err != nil {
		t.Fatalf("request under the grant: %v", err)
	}
	if p := me.Pending(); len(p) != 0 {
		t.Fatalf("a request under a grant waits: %+v", p)
	}

	// Revoked: the next request asks again, and Deny answers forbidden.
	w.revokeNow(me, w.grants[0].ID)
	na.Wait()
	if !strings.Contains(GrantLine(w.grants[0], nil, time.UTC), "revoked") {
		t.Errorf("after revoke: %q", GrantLine(w.grants[0], nil, time.UTC))
	}
	answer = nodetest.ExecRequest(alice, me.Key(), "echo denied")
	na.pump(t, "the second prompt", func() bool { return w.cur != "" })
	w.looked()
	test.Tap(w.button("Deny"))
	na.Wait()
	// The history, from the node, says what became of both, newest first.
	na.pump(t, "both decisions in the history", func() bool { return len(w.history) == 2 })
	row := w.histList.CreateItem()
	w.histList.UpdateItem(0, row)
	if txt := row.(*widget.Label).Text; !strings.Contains(txt, "alice ("+render.ShortKey(alice.Key().String())+") wanted exec `echo denied` · denied by you") {
		t.Errorf("history row 0 = %q", txt)
	}
	w.histList.UpdateItem(1, row)
	if txt := row.(*widget.Label).Text; !strings.Contains(txt, "alice ("+render.ShortKey(alice.Key().String())+") wanted exec `echo approved` · allowed for 1 hour by you") {
		t.Errorf("history row 1 = %q", txt)
	}
	err = waitAnswer(t, answer)
	var we *wire.Err
	if !errors.As(err, &we) || we.Code != wire.CodeForbidden {
		t.Fatalf("denied request: %v, want err forbidden", err)
	}
	na.pump(t, "nothing pending", func() bool { return w.cur == "" && w.empty.Visible() })
}

// (d) Keep private sends a private line to the other party.
func TestNodePrivateToggle(t *testing.T) {
	na, me, alice := linkedNodeApp(t, meDials)
	res := nodetest.Say(t, me, alice.Key(), "", "Secrets", "do not mirror this")
	tw := na.openListed(t, "my thread in the list", res.Th)
	// No mirror host: the switch says so and cannot be ticked.
	if tw.private.Disabled() || !tw.mirror.Disabled() || tw.toggles.why.Text != mirrorWhyNoHosts {
		t.Fatalf("keep private disabled %v; mirror disabled %v, %q", tw.private.Disabled(), tw.mirror.Disabled(), tw.toggles.why.Text)
	}
	test.Tap(tw.private)
	top := tw.w.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("no confirmation")
	}
	// The confirmation says what it does, in words, and its button too.
	if got := strings.Join(drawnTexts(top), " "); !strings.Contains(got, "AWP will tell alice that “Secrets” is private") || !strings.Contains(got, "cannot be undone") {
		t.Errorf("confirmation reads %q", got)
	}
	yes := findButton(top, "Keep private")
	if yes == nil {
		t.Fatal("confirmation has no Keep private button")
	}
	test.Tap(yes)
	na.Wait()
	if got := strings.Join(lineTypes(t, me, res.Th), " "); !strings.Contains(got, "out:private") {
		t.Errorf("my lines: %s, want an outbound private", got)
	}
	ls, _ := me.Lines(res.Th, key.PublicKey{})
	if l := ls[len(ls)-1]; !strings.Contains(string(l.Line), `"t":"private"`) {
		t.Errorf("last line %s", l.Line)
	}
	// It reaches alice, and the toggle shows the thread private.
	testsync.Eventually(t, "alice to get the private line", func() bool {
		ls, _ := alice.Lines(res.Th, key.PublicKey{})
		for _, l := range ls {
			if l.Dir == "in" && strings.Contains(string(l.Line), `"t":"private"`) {
				return true
			}
		}
		return false
	})
	na.pump(t, "the window to show Private", func() bool { return tw.private.Text == "Private" && tw.private.Disabled() })
	if !tw.mirror.Disabled() || tw.mirror.Checked || tw.toggles.why.Text != mirrorWhyPrivate {
		t.Errorf("mirror on a private thread: disabled %v, checked %v, %q", tw.mirror.Disabled(), tw.mirror.Checked, tw.toggles.why.Text)
	}
}

// rowTitle is a main-list row's subject and unread count.
func rowTitle(o fyne.CanvasObject) string {
	r := o.(*threadRow).r
	return fmt.Sprintf("%s  (%d)", r.Title, r.Unread)
}

// Presence shows the node's presence table; Copy my invite copies
// node.Invite; Add peer… goes through node.AddInvite; Settings changes
// the presence detail and the mirror hosts on the node.
func TestNodePresenceInviteSettings(t *testing.T) {
	me := nodetest.New(t, "me", 1, func(c *peer.Config) { c.PresenceDebounce = 20 * time.Millisecond })
	alice := nodetest.New(t, "alice", 2, func(c *peer.Config) {
		c.PresenceDebounce = 20 * time.Millisecond
		c.Harness, c.Model = "claude-code", "opus"
		c.Presence = "full"
	})
	na := newNodeApp(t, me)

	na.copyInvite()
	na.Wait()
	if got := na.fa.Clipboard().Content(); got != me.Invite() {
		t.Errorf("clipboard = %q, want the node's invite %q", got, me.Invite())
	}

	na.showPresence()
	na.Wait()
	p := na.presence
	if !p.none.Visible() {
		t.Error("presence documents shown before any peer")
	}
	add := na.addPeerIn(p.w)
	add.items[0].Widget.(*widget.Entry).SetText(alice.Invite())
	test.Tap(add.ok)
	na.Wait()
	if !add.done {
		t.Errorf("the dialog stayed open: %q", add.errText.Text)
	}
	if !strings.Contains(na.main.notice.Text, "Added peer") {
		t.Errorf("notice = %q", na.main.notice.Text)
	}
	nodetest.Say(t, alice, me.Key(), "", "Hello", "hi")
	// One card for alice: the known peer and her presence document merged.
	na.pump(t, "alice up with her presence document", func() bool {
		return len(p.cards) == 1 && p.cards[0].Up && p.cards[0].Software != "" && strings.HasPrefix(p.cards[0].Threads, "Hello")
	})
	c := p.cards[0]
	if c.Title != "alice  "+render.ShortKey(alice.Key().String()) || !strings.HasPrefix(c.Software, "claude-code · opus · on ") ||
		!strings.HasPrefix(c.Status, "up") || c.Threads != "Hello · 1 unread" {
		t.Errorf("card = %+v", c)
	}

	na.showSettings()
	na.Wait()
	s := na.settings
	// Name and listen are plain text, not disabled entries; Save waits for
	// a change; the mirror hosts are picked from the known peers.
	if s.presence.Disabled() || !s.save.Disabled() || s.name.Text != me.Name() || len(s.hosts) != 1 || s.hosts[0].key != alice.Key().String() ||
		s.hosts[0].check.Disabled() || s.hosts[0].check.Checked || s.hosts[0].check.Text != "alice ("+render.ShortKey(alice.Key().String())+")" {
		t.Fatalf("presence disabled %v, save disabled %v, name %q, hosts %+v", s.presence.Disabled(), s.save.Disabled(), s.name.Text, s.hosts)
	}
	if s.presence.Selected != me.PresenceDetail() || me.PresenceDetail() != "peers" {
		t.Errorf("presence shown %q, node %q; want the default peers", s.presence.Selected, me.PresenceDetail())
	}
	if !strings.HasPrefix(s.presenceNote.Text, "Peers (the default) shares your name") {
		t.Errorf("presence note = %q", s.presenceNote.Text)
	}
	s.presence.SetSelected("full")
	if !strings.Contains(s.presenceNote.Text, "also the subjects of your threads, whom they are with and both states, with every peer up to 8 hops away") {
		t.Errorf("presence note for full = %q", s.presenceNote.Text)
	}
	test.Tap(s.hosts[0].check)
	if s.save.Disabled() {
		t.Fatal("Save disabled after a change")
	}
	test.Tap(s.save)
	na.Wait()
	if me.PresenceDetail() != "full" {
		t.Errorf("presence detail = %q", me.PresenceDetail())
	}
	if h := me.MirrorHosts(); len(h) != 1 || h[0].String() != alice.Key().String() {
		t.Errorf("mirror hosts = %v", h)
	}
	if !strings.HasPrefix(s.note.Text, "✓ Saved at ") || !strings.HasSuffix(s.note.Text, ": presence full, mirroring to alice ("+render.ShortKey(alice.Key().String())+").") || !s.save.Disabled() {
		t.Errorf("note = %q", s.note.Text)
	}

	// The sandbox switch shows the node's state and turns it off and on.
	st := me.ExecSandbox()
	if !s.sandbox.Checked || s.sandbox.Disabled() || s.sandboxNote.Text != sandboxNote(st) {
		t.Errorf("sandbox switch %v (disabled %v), note %q; node %+v", s.sandbox.Checked, s.sandbox.Disabled(), s.sandboxNote.Text, st)
	}
	if !st.Available && !strings.Contains(s.sandboxNote.Text, "run unsandboxed as you") {
		t.Errorf("no bubblewrap and the note says %q", s.sandboxNote.Text)
	}
	test.Tap(s.sandbox)
	na.Wait()
	if st := me.ExecSandbox(); st.Mode != "none" || s.sandbox.Checked || s.sandboxNote.Text != "Commands from peers run unsandboxed as you." {
		t.Errorf("switched off: node %+v, check %v, note %q", st, s.sandbox.Checked, s.sandboxNote.Text)
	}
	test.Tap(s.sandbox)
	na.Wait()
	if st := me.ExecSandbox(); st.Mode != "auto" || !s.sandbox.Checked {
		t.Errorf("switched on: node %+v, check %v", st, s.sandbox.Checked)
	}
}

// The UI process's path: the windows see a real node through its local
// API (localapi.Remote over DATA/awp.sock), events included. An arriving
// msg shows unread, its window shows the line and marks it read on the
// node, and a reply from the composer is stored by the node.
func TestUIOverLocalAPI(t *testing.T) {
	me := nodetest.New(t, "me", 1)
	alice := nodetest.New(t, "alice", 2)
	nodetest.Link(t, alice, me)
	dir, _ := localapitest.Serve(t, me)

	a, _ := newTestApp(t, nil, func(o *Options) { o.DataDir = dir })
	a.dial()
	if a.backend() == nil || a.backend().Key() != me.Key() {
		t.Fatal("not attached to the node")
	}
	res := nodetest.Say(t, alice, me.Key(), "", "Over the socket", "hello through awp.sock")
	eventually(t, "the unread thread, from the node's events", func() bool { return a.counts().Unread == 1 })
	var tw *threadWindow
	fyne.DoAndWait(func() { a.openThreadKey(res.Th, key.PublicKey{}) })
	eventually(t, "the line in the thread window", func() bool {
		tw = a.threads[threadKey{res.Th, key.PublicKey{}}]
		if tw == nil {
			return false
		}
		for _, r := range tw.rows {
			if r.Text == "hello through awp.sock" {
				return true
			}
		}
		return false
	})
	testsync.Eventually(t, "the thread read on the node", func() bool {
		ti, err := me.Thread(res.Th, key.PublicKey{})
		return err == nil && ti.Unread == 0
	})
	fyne.DoAndWait(func() {
		tw.compose.text.SetText("answered over the socket")
		tw.compose.sendReply()
	})
	testsync.Eventually(t, "the reply stored", func() bool {
		ls, _ := me.Lines(res.Th, key.PublicKey{})
		for _, l := range ls {
			if l.Dir == "out" && strings.Contains(string(l.Line), "answered over the socket") {
				return true
			}
		}
		return false
	})
}
