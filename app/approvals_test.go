//lint:file-ignore SA1019 the built-in light and dark variants (theme.LightTheme, DarkTheme), on purpose

package app

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/awp-tray/awp-tray/app/render"
	"github.com/awp-tray/awp-tray/internal/nodetest"
	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/grant"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/profile"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// testClock is the Approvals window's clock in tests: time moves only when
// a test says so, and timers run then, on the test goroutine.
type testClock struct {
	now    time.Time
	timers []testTimer
}

type testTimer struct {
	at time.Time
	f  func()
}

func (c *testClock) Now() time.Time { return c.now }

func (c *testClock) AfterFunc(d time.Duration, f func()) {
	c.timers = append(c.timers, testTimer{c.now.Add(d), f})
}

// advance moves the clock by d and runs the timers that came due, in
// order.
func (c *testClock) advance(d time.Duration) {
	c.now = c.now.Add(d)
	for {
		i := slices.IndexFunc(c.timers, func(t testTimer) bool { return !t.at.After(c.now) })
		if i < 0 {
			return
		}
		f := c.timers[i].f
		c.timers = slices.Delete(c.timers, i, i+1)
		f()
	}
}

func init() {
	newArmClock = func() armClock { return &testClock{now: time.Date(2026, 9, 25, 17, 0, 0, 0, time.UTC)} }
}

// wait lets d pass on the window's clock.
func (w *approvalsWindow) wait(d time.Duration) { w.clock.(*testClock).advance(d) }

// looked lets armDelay pass: the person has seen what the pane shows.
func (w *approvalsWindow) looked() { w.wait(armDelay) }

// button is the pane's button labelled label (nil when none).
func (w *approvalsWindow) button(label string) *widget.Button {
	for _, b := range w.choices {
		if b.Text == label {
			return b
		}
	}
	return nil
}

// shows reports whether b is among the pane's buttons.
func (w *approvalsWindow) shows(b *widget.Button) bool {
	return b != nil && slices.Contains(w.buttons.Objects, fyne.CanvasObject(b))
}

// shownFields are the label/value pairs the pane's widgets hold.
func (w *approvalsWindow) shownFields() []render.Field {
	var out []render.Field
	for i := 0; i+1 < len(w.fields.Objects); i += 2 {
		out = append(out, render.Field{Label: w.fields.Objects[i].(*widget.Label).Text, Value: w.fields.Objects[i+1].(*widget.Label).Text})
	}
	return out
}

// drawnTexts are the texts of every visible canvas.Text under o, in tree
// order, through the widgets' live renderers: what the window draws.
func drawnTexts(o fyne.CanvasObject) []string {
	if o == nil || !o.Visible() {
		return nil
	}
	var out []string
	switch x := o.(type) {
	case *canvas.Text:
		out = append(out, x.Text)
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(x).Objects() {
			out = append(out, drawnTexts(c)...)
		}
	case *fyne.Container:
		for _, c := range x.Objects {
			out = append(out, drawnTexts(c)...)
		}
	}
	return out
}

// drawnAfter is the text drawn right after the text label.
func drawnAfter(o fyne.CanvasObject, label string) (string, bool) {
	ts := drawnTexts(o)
	for i, t := range ts {
		if t == label && i+1 < len(ts) {
			return ts[i+1], true
		}
	}
	return "", false
}

// posOf is a point inside o where the window draws it.
func posOf(o fyne.CanvasObject) fyne.Position {
	return fyne.CurrentApp().Driver().AbsolutePositionForObject(o).Add(fyne.NewPos(4, 4))
}

// tapAt taps the window at pos, as a mouse click there would: whatever is
// at that place then gets the tap.
func tapAt(w fyne.Window, pos fyne.Position) { test.TapCanvas(w.Canvas(), pos) }

// Three peers, named as in the report.
var (
	carolKey = mustKey(4)
	peerKeys = []key.PublicKey{aliceKey, bobKey, carolKey}
	names    = map[string]string{aliceKey.String(): "alice", bobKey.String(): "bob", carolKey.String(): "carol"}
)

// execReq, writeReq, readReq and grantReq are pending requests as a node
// lists them.
func execReq(id string, from key.PublicKey, cmd string) peer.ApprovalRequest {
	d, _ := json.Marshal(map[string]any{"cmd": cmd, "cwd": "services/api"})
	return peer.ApprovalRequest{ID: id, Kind: peer.ApprovalProfile, From: from, FromName: names[from.String()], Sub: from,
		Caps: []string{"exec"}, On: []key.PublicKey{meKey}, Detail: d, Reason: "no grant", Created: id}
}

func writeReq(id string, from key.PublicKey, path, content string, appendTo bool) peer.ApprovalRequest {
	d, _ := json.Marshal(map[string]any{"path": path, "content": content, "append": appendTo})
	return peer.ApprovalRequest{ID: id, Kind: peer.ApprovalProfile, From: from, FromName: names[from.String()], Sub: from,
		Caps: []string{"fs:write"}, On: []key.PublicKey{meKey}, Detail: d, Reason: "no grant", Created: id}
}

func readReq(id string, from key.PublicKey, path string) peer.ApprovalRequest {
	d, _ := json.Marshal(map[string]any{"path": path})
	return peer.ApprovalRequest{ID: id, Kind: peer.ApprovalProfile, From: from, FromName: names[from.String()], Sub: from,
		Caps: []string{"fs:read"}, On: []key.PublicKey{meKey}, Detail: d, Created: id}
}

func grantReq(id string, from key.PublicKey, caps []string, ttl int64, on ...string) peer.ApprovalRequest {
	d, _ := json.Marshal(map[string]any{"caps": caps, "ttl": ttl, "on": on, "reason": "run the tests"})
	return peer.ApprovalRequest{ID: id, Kind: peer.ApprovalGrantRequest, From: from, FromName: names[from.String()], Sub: from,
		Caps: caps, On: keysOf(on), TTL: ttl, Detail: d, Reason: "run the tests", Created: id}
}

// keysOf parses keys' text, keeping nil (no "on") apart from empty.
func keysOf(ss []string) []key.PublicKey {
	if ss == nil {
		return nil
	}
	out := make([]key.PublicKey, len(ss))
	for i, s := range ss {
		out[i] = key.MustParsePublic(s)
	}
	return out
}

// arrive stages req on the fake node and delivers its event.
func arrive(a *App, f *fakeNode, req peer.ApprovalRequest) {
	f.with(func() { f.pending = append(f.pending, req) })
	a.handle(peer.Event{Type: peer.EventApproval, Approval: &req})
}

// gone takes request id off the fake node (timed out, withdrawn at its
// exp, or decided by awp) and delivers the event.
func gone(a *App, f *fakeNode, id string) {
	f.with(func() {
		f.pending = slices.DeleteFunc(f.pending, func(p peer.ApprovalRequest) bool { return p.ID == id })
	})
	a.handle(peer.Event{Type: peer.EventApprovalDone, Of: id, Decision: &peer.Decision{By: "timeout"}})
}

// wantChoices are the labels and decisions the pane must offer for r,
// written out from the request on their own (not through render.Choices):
// "once" only where it means this request once, every grant's length in
// its label.
func wantChoices(r peer.ApprovalRequest) map[string]peer.Decision {
	deny := peer.Decision{Allow: false, By: "user", Reason: "denied by the user"}
	if r.Kind != peer.ApprovalGrantRequest {
		return map[string]peer.Decision{
			"Allow once":                         {Allow: true, By: "user"},
			"Allow " + r.Caps[0] + " for 1 hour": {Allow: true, For: time.Hour, By: "user"},
			"Deny":                               deny,
		}
	}
	m := map[string]peer.Decision{"Deny": deny}
	asked := time.Duration(r.TTL) * time.Second
	switch {
	case r.TTL == 86400:
		m["Allow for 1 day as asked"] = peer.Decision{Allow: true, For: asked, By: "user"}
	case r.TTL == 600:
		m["Allow for 10 minutes as asked"] = peer.Decision{Allow: true, For: asked, By: "user"}
	case r.TTL == 3600:
		m["Allow for 1 hour as asked"] = peer.Decision{Allow: true, For: asked, By: "user"}
	}
	if r.TTL != 600 && r.TTL != 3600 {
		m["Allow for 1 hour"] = peer.Decision{Allow: true, For: time.Hour, By: "user"}
	}
	return m
}

// The bug in the report: the who field kept alice's key on bob's and
// carol's requests. The pane's drawn texts must follow the selection.
func TestApprovalWhoFollowsSelection(t *testing.T) {
	f := newFakeNode()
	a, _ := newTestApp(t, f)
	arrive(a, f, execReq("apr_1", aliceKey, "make test"))
	arrive(a, f, writeReq("apr_2", bobKey, "notes.md", "hi", true))
	arrive(a, f, grantReq("apr_3", bobKey, []string{"exec"}, 86400))
	arrive(a, f, readReq("apr_4", carolKey, "go.mod"))
	w := a.approvals
	for _, i := range []int{0, 1, 2, 3, 1, 0, 3} {
		w.list.Select(i)
		want := f.Pending()[i]
		if got, ok := drawnAfter(w.w.Content(), "who"); !ok || got != want.From.String() {
			t.Errorf("row %d (%s): who drawn as %q, want %s", i, names[want.From.String()], got, want.From)
		}
		if got := w.title.Text; !strings.HasPrefix(got, names[want.From.String()]+" (") {
			t.Errorf("row %d: title %q", i, got)
		}
	}
}

// A double click on Allow decides one request. The second click lands on
// the empty pane, or, when a new request came meanwhile, on a button that
// waits armDelay.
func TestApprovalDoubleClick(t *testing.T) {
	f := newFakeNode()
	a, _ := newTestApp(t, f)
	arrive(a, f, execReq("apr_1", aliceKey, "make test"))
	arrive(a, f, writeReq("apr_2", bobKey, "../../.ssh/authorized_keys", "ssh-ed25519 AAAA evil", true))
	w := a.approvals
	w.list.Select(0)
	w.looked()
	once := posOf(w.button("Allow once"))
	tapAt(w.w, once)
	a.Wait()
	gone(a, f, "apr_1") // the node's event for the decision
	w.wait(200 * time.Millisecond)
	tapAt(w.w, once) // the second click of the double click, same place
	a.Wait()
	f.with(func() {
		if _, ok := f.decided["apr_2"]; ok || len(f.decided) != 1 {
			t.Errorf("decided %v: the second click decided bob's write", f.decided)
		}
	})
	if w.cur != "" || w.row != -1 || !w.empty.Visible() {
		t.Errorf("after a decision: cur %q, row %d: the next request moved under the cursor", w.cur, w.row)
	}
	if !strings.Contains(w.empty.Text, "Allowed once: alice (") || !strings.Contains(w.empty.Text, "1 request is waiting") {
		t.Errorf("empty pane says %q", w.empty.Text)
	}

	// The only request left, selected: its buttons wait; the same click
	// then does nothing, a later one acts.
	w.list.Select(0)
	tapAt(w.w, posOf(w.button("Allow once")))
	a.Wait()
	f.with(func() {
		if _, ok := f.decided["apr_2"]; ok {
			t.Error("a click within armDelay of the request appearing decided it")
		}
	})
	w.looked()
	tapAt(w.w, posOf(w.button("Deny")))
	a.Wait()
	f.with(func() {
		if d, ok := f.decided["apr_2"]; !ok || d.Allow {
			t.Errorf("Deny after looking: %+v, %v", d, ok)
		}
	})
}

// A request arriving while another is shown does not take its place, and
// the window brought forward disarms the buttons for armDelay.
func TestApprovalArrivalDoesNotReplace(t *testing.T) {
	f := newFakeNode()
	a, _ := newTestApp(t, f)
	arrive(a, f, execReq("apr_1", aliceKey, "make test"))
	w := a.approvals
	if w.cur != "apr_1" || w.row != 0 {
		t.Fatalf("the only request is not shown: cur %q row %d", w.cur, w.row)
	}
	if b := w.button("Allow once"); b == nil || !b.Disabled() {
		t.Fatal("Allow once enabled as the request appeared")
	}
	w.looked()
	if w.button("Allow once").Disabled() {
		t.Fatal("Allow once still disabled after armDelay")
	}
	arrive(a, f, writeReq("apr_2", bobKey, "x", "y", false))
	if w.cur != "apr_1" || w.row != 0 {
		t.Errorf("a new request replaced the shown one: cur %q row %d", w.cur, w.row)
	}
	if !w.button("Allow once").Disabled() {
		t.Error("the window came forward with its buttons armed")
	}
	// Timed out: the pane empties and says so, nothing else moves in.
	gone(a, f, "apr_1")
	if w.cur != "" || w.row != -1 || !strings.Contains(w.empty.Text, "no longer waiting") {
		t.Errorf("after the shown request timed out: cur %q row %d, %q", w.cur, w.row, w.empty.Text)
	}
	// A request before the shown one goes: the selection follows the
	// shown request to its new row.
	arrive(a, f, readReq("apr_3", carolKey, "go.mod"))
	w.list.Select(1)
	gone(a, f, "apr_2")
	if w.cur != "apr_3" || w.row != 0 {
		t.Errorf("after an earlier row went: cur %q row %d", w.cur, w.row)
	}
}

// Each button takes exactly the decision its label says.
func TestApprovalChoiceDecisions(t *testing.T) {
	reqs := []peer.ApprovalRequest{
		execReq("x", aliceKey, "make test"),
		writeReq("w", bobKey, "notes.md", "hello", true),
		readReq("r", carolKey, "go.mod"),
		grantReq("g24", bobKey, []string{"exec", "fs:read"}, 86400),
		grantReq("g1", bobKey, []string{"exec"}, 3600),
		grantReq("g10", bobKey, []string{"exec"}, 600),
		grantReq("g0", bobKey, []string{"exec"}, 0),
		grantReq("g40d", bobKey, []string{"exec"}, 40*86400),
	}
	for _, r := range reqs {
		for label, want := range wantChoices(r) {
			t.Run(r.ID+"/"+label, func(t *testing.T) {
				f := newFakeNode()
				a, _ := newTestApp(t, f)
				arrive(a, f, r)
				w := a.approvals
				var labels []string
				for _, b := range w.choices {
					labels = append(labels, b.Text)
				}
				if len(labels) != len(wantChoices(r)) {
					t.Errorf("buttons %q, want the keys of %v", labels, wantChoices(r))
				}
				if r.Kind == peer.ApprovalGrantRequest && slices.ContainsFunc(labels, func(l string) bool { return strings.Contains(l, "once") }) {
					t.Errorf("a grant request offers %q", labels)
				}
				w.looked()
				b := w.button(label)
				if b == nil {
					t.Fatalf("no %q among %q", label, labels)
				}
				test.Tap(b)
				a.Wait()
				f.with(func() {
					if got, ok := f.decided[r.ID]; !ok || got != want {
						t.Errorf("%q decided %+v (%v), want %+v", label, got, ok, want)
					}
				})
			})
		}
	}
}

// nodeWithWorkspace is the fake node telling where requests are confined.
type nodeWithWorkspace struct {
	*fakeNode
	ws, data string
}

func (n nodeWithWorkspace) Workspace() string { return n.ws }
func (n nodeWithWorkspace) DataDir() string   { return n.data }

// A path the node will refuse is marked in the pane, by the node's rules.
func TestApprovalRefusedPath(t *testing.T) {
	ws := t.TempDir()
	data := filepath.Join(ws, ".awp")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(ws, "etc")); err != nil {
		t.Fatal(err)
	}
	f := newFakeNode()
	a, _ := newTestApp(t, nil)
	a.mu.Lock()
	a.be = nodeWithWorkspace{f, ws, data}
	a.mu.Unlock()
	for i, tc := range []struct {
		req  peer.ApprovalRequest
		want string
	}{
		{writeReq("w1", bobKey, "../../.ssh/authorized_keys", "k", true), profile.WhyOutside},
		{readReq("r1", carolKey, "etc/passwd"), profile.WhyOutside},
		{readReq("r2", carolKey, ".awp/identity.key"), profile.WhyDataDir},
		{execReq("x1", aliceKey, "ls"), ""},
		{readReq("r3", carolKey, "go.mod"), ""},
	} {
		arrive(a, f, tc.req)
		a.approvals.list.Select(i)
		var got string
		for _, fl := range a.approvals.shownFields() {
			if fl.Label == render.FieldRefused {
				got = fl.Value
			}
		}
		if want := "the path " + tc.want; (tc.want == "" && got != "") || (tc.want != "" && got != want) {
			t.Errorf("%s: refused field %q, want %q", tc.req.ID, got, tc.want)
		}
	}
}

// The property: after any sequence of arrivals, selections, clicks (single
// and double, looked at or not), decisions elsewhere, timeouts and the
// window brought forward, with three peers asking at once,
//   - the list shows the node's pending requests, each row its own;
//   - the pane shows the request the person selected (or the only one
//     waiting when nothing was shown), never one moved in by a decision or
//     a timeout, and its row is the one selected;
//   - every field drawn equals that request's (who, title, command, path,
//     content, ttl…), and the buttons are its own choices;
//   - a button acts only armDelay after the pane last changed, and then
//     takes exactly its decision on the request it was drawn for.
func TestApprovalsProperty(t *testing.T) {
	seeds := 40
	if testing.Short() {
		seeds = 8
	}
	for seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { approvalScenario(t, uint64(seed), 60) })
	}
}

func approvalScenario(t *testing.T, seed uint64, steps int) {
	rng := rand.New(rand.NewPCG(seed, 18))
	f := newFakeNode()
	a, _ := newTestApp(t, f)
	w := a.approvalsWin()
	clock := w.clock.(*testClock)
	var (
		log     []string
		next    int
		wantCur string    // the request the pane must show
		changed time.Time // when the pane last changed
		decided = map[string]peer.Decision{}
	)
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d after %s:\n"+format, append([]any{seed, strings.Join(log, "; ")}, args...)...)
	}
	pending := func() []peer.ApprovalRequest { return f.Pending() }
	index := func(id string) int {
		return slices.IndexFunc(pending(), func(p peer.ApprovalRequest) bool { return p.ID == id })
	}
	setCur := func(id string) {
		if id != wantCur {
			changed = clock.now
		}
		wantCur = id
	}
	newReq := func() peer.ApprovalRequest {
		next++
		id := fmt.Sprintf("apr_%02d", next)
		from := peerKeys[rng.IntN(len(peerKeys))]
		switch rng.IntN(4) {
		case 0:
			return execReq(id, from, []string{"make test", "rm -rf build", "go vet ./..."}[rng.IntN(3)])
		case 1:
			return writeReq(id, from, []string{"../../.ssh/authorized_keys", "notes/" + id + ".md", "go.mod"}[rng.IntN(3)], "content of "+id, rng.IntN(2) == 0)
		case 2:
			return readReq(id, from, "src/"+id+".go")
		}
		caps := [][]string{{"exec"}, {"fs:read", "fs:write"}}[rng.IntN(2)]
		return grantReq(id, from, caps, []int64{0, 600, 3600, 86400, 40 * 86400}[rng.IntN(5)], []string{meKey.String(), aliceKey.String()}[:rng.IntN(3)]...)
	}
	// onlyWaiting: the request the pane takes by itself when nothing is
	// shown, if exactly one waits.
	onlyWaiting := func() string {
		var ids []string
		for _, p := range pending() {
			if _, ok := decided[p.ID]; !ok {
				ids = append(ids, p.ID)
			}
		}
		if len(ids) == 1 {
			return ids[0]
		}
		return ""
	}
	click := func(b *widget.Button, pos fyne.Position) {
		// What the click must do is decided before it lands.
		id := wantCur
		armed := !clock.now.Before(changed.Add(armDelay))
		r := pending()[index(id)]
		want, known := wantChoices(r)[b.Text]
		if !known {
			fail("button %q is not one of %s's choices %v", b.Text, id, wantChoices(r))
		}
		tapAt(w.w, pos)
		a.Wait()
		var got peer.Decision
		var ok bool
		f.with(func() { got, ok = f.decided[id] })
		switch {
		case !armed && ok:
			fail("%q acted %v after the pane changed", b.Text, clock.now.Sub(changed))
		case armed && (!ok || got != want):
			fail("%q on %s decided %+v (%v), want %+v", b.Text, id, got, ok, want)
		case ok:
			decided[id] = got
			log = append(log, fmt.Sprintf("decided %s %q", id, b.Text))
			setCur("")
			gone(a, f, id) // the node's event for it
		}
	}
	for step := 0; step < steps; step++ {
		switch op := rng.IntN(10); {
		case op < 3 || len(pending()) == 0:
			r := newReq()
			log = append(log, "arrive "+r.ID+" from "+names[r.From.String()])
			arrive(a, f, r)
			changed = clock.now // the window came forward
			if wantCur == "" {
				setCur(onlyWaiting())
			}
		case op < 5:
			i := rng.IntN(len(pending()))
			log = append(log, fmt.Sprintf("select row %d", i))
			w.list.Select(i)
			setCur(pending()[i].ID)
		case op < 7:
			if wantCur == "" || len(w.choices) == 0 {
				continue
			}
			if rng.IntN(2) == 0 {
				clock.advance(armDelay)
				log = append(log, "look")
			}
			b := w.choices[rng.IntN(len(w.choices))]
			pos := posOf(b)
			log = append(log, "click "+b.Text)
			click(b, pos)
			if rng.IntN(2) == 0 {
				// The second click of a double click, where the first was.
				clock.advance(150 * time.Millisecond)
				log = append(log, "click again")
				if wantCur == "" {
					// The first one decided: nothing is under the cursor.
					var before int
					f.with(func() { before = len(f.decided) })
					tapAt(w.w, pos)
					a.Wait()
					f.with(func() {
						if len(f.decided) != before {
							fail("the second click of a double click decided another request: %v", f.decided)
						}
					})
					continue
				}
				// The first one waited for armDelay: the same request is
				// shown, its same button in the same place.
				nb := w.button(b.Text)
				if nb == nil || posOf(nb) != pos {
					fail("%q moved between two clicks on the same request", b.Text)
				}
				click(nb, pos)
			}
		case op < 8:
			id := pending()[rng.IntN(len(pending()))].ID
			log = append(log, "gone "+id)
			gone(a, f, id)
			if id == wantCur {
				setCur("")
			}
		case op < 9:
			d := time.Duration(rng.IntN(1500)) * time.Millisecond
			log = append(log, fmt.Sprint("wait ", d))
			clock.advance(d)
		default:
			log = append(log, "open Approvals")
			a.showApprovals()
			a.Wait()
			changed = clock.now
			if wantCur == "" {
				setCur(onlyWaiting())
			}
		}
		checkPane(t, w, pending(), wantCur, clock.now.Sub(changed) >= armDelay, fail)
	}
}

// checkPane asserts the property after one step.
func checkPane(t *testing.T, w *approvalsWindow, pending []peer.ApprovalRequest, wantCur string, armed bool, fail func(string, ...any)) {
	t.Helper()
	if w.list.Length() != len(pending) {
		fail("list has %d rows, node %d pending", w.list.Length(), len(pending))
	}
	for i, p := range pending {
		row := w.list.CreateItem()
		w.list.UpdateItem(i, row)
		txt := row.(*widget.Label).Text
		if !strings.HasPrefix(txt, names[p.From.String()]+" ("+render.ShortKey(p.From.String())+")") {
			fail("row %d reads %q, belongs to %s (%s)", i, txt, names[p.From.String()], p.ID)
		}
	}
	if w.cur != wantCur {
		fail("pane shows %q, want %q", w.cur, wantCur)
	}
	if wantCur == "" {
		if w.detail.Visible() || w.row != -1 {
			fail("nothing to show, but detail visible %v, row %d selected", w.detail.Visible(), w.row)
		}
		return
	}
	i := slices.IndexFunc(pending, func(p peer.ApprovalRequest) bool { return p.ID == wantCur })
	r := pending[i]
	if w.row != i {
		fail("pane shows %s (row %d) but row %d is selected", r.ID, i, w.row)
	}
	if !strings.HasPrefix(w.title.Text, names[r.From.String()]+" ("+render.ShortKey(r.From.String())+") asks ") {
		fail("title %q for %s from %s", w.title.Text, r.ID, names[r.From.String()])
	}
	if got, ok := drawnAfter(w.w.Content(), "who"); !ok || got != r.From.String() {
		fail("who drawn as %q on %s from %s", got, r.ID, names[r.From.String()])
	}
	fields := map[string]string{}
	for _, fl := range w.shownFields() {
		fields[fl.Label] = fl.Value
	}
	var d struct {
		Cmd     string `json:"cmd"`
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	_ = json.Unmarshal(r.Detail, &d)
	want := map[string]string{"who": r.From.String(), "capability": strings.Join(r.Caps, ", ")}
	switch {
	case r.Kind == peer.ApprovalGrantRequest:
		want["for how long"] = map[int64]string{0: "not said (1 hour if allowed)", 600: "10 minutes", 3600: "1 hour", 86400: "1 day",
			40 * 86400: "40 days (more than the 30 days this peer signs: 1 hour if allowed)"}[r.TTL]
		want[render.FieldTheirReason] = r.Reason
	case d.Cmd != "":
		want["command"] = d.Cmd
	case r.Caps[0] == "fs:write":
		want["path"], want["content"] = d.Path, d.Content
	default:
		want["path"] = d.Path
	}
	for k, v := range want {
		if fields[k] != v {
			fail("field %s = %q on %s, want %q (all: %q)", k, fields[k], r.ID, v, w.shownFields())
		}
	}
	// All of them, as the request describes itself.
	if wantAll := render.DescribeApproval(r, meKey, nil).Fields; !slices.Equal(w.shownFields(), wantAll) {
		fail("fields %q\nwant %q", w.shownFields(), wantAll)
	}
	choices := wantChoices(r)
	if len(w.choices) != len(choices) {
		fail("%d buttons on %s, want %v", len(w.choices), r.ID, choices)
	}
	for _, b := range w.choices {
		if _, ok := choices[b.Text]; !ok {
			fail("button %q on %s, want %v", b.Text, r.ID, choices)
		}
		if b.Disabled() == armed {
			fail("button %q disabled %v, armDelay passed %v", b.Text, b.Disabled(), armed)
		}
	}
}

// Against a node: a grant request's buttons sign exactly the grant they
// name, "as asked" the ttl asked for, "for 1 hour" one hour, and none of
// them says "once" (the node's For 0 signs what was asked).
func TestNodeGrantRequestChoices(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second) // a stopped clock: the grants' exp is exact
	me := nodetest.New(t, "me", 1, func(c *peer.Config) { c.Now = func() time.Time { return now } })
	alice := nodetest.New(t, "alice", 2)
	nodetest.Link(t, alice, me)
	na := newNodeApp(t, me)
	ask := func() {
		data, _ := json.Marshal(peer.GrantRequest{Caps: []string{"exec"}, TTL: 86400, Reason: "run the tests"})
		part, _ := wire.DataPart(peer.MimeGrantRequest, data)
		if _, err := alice.Send(context.Background(), peer.SendRequest{To: me.Key(), Parts: []json.RawMessage{part}}); err != nil {
			t.Fatal(err)
		}
	}
	received := func(n int) []*grant.Grant {
		var out []*grant.Grant
		testsync.Eventually(t, fmt.Sprintf("alice holds %d grants", n), func() bool {
			gs, _ := alice.Grants()
			out = out[:0]
			for _, g := range gs {
				if p, err := grant.Parse(g.Grant); err == nil {
					out = append(out, p)
				}
			}
			return len(out) == n
		})
		return out
	}
	for i, tc := range []struct {
		label string
		exp   time.Time
	}{{"Allow for 1 hour", now.Add(time.Hour)}, {"Allow for 1 day as asked", now.Add(24 * time.Hour)}} {
		ask()
		na.pump(t, "the grant request in the pane", func() bool { return na.approvals != nil && na.approvals.cur != "" })
		w := na.approvals
		var labels []string
		for _, b := range w.choices {
			labels = append(labels, b.Text)
		}
		if strings.Join(labels, "|") != "Allow for 1 day as asked|Allow for 1 hour|Deny" {
			t.Fatalf("buttons %q", labels)
		}
		w.looked()
		test.Tap(w.button(tc.label))
		na.Wait()
		gs := received(i + 1)
		found := false
		for _, g := range gs {
			found = found || g.Exp.Equal(tc.exp)
			if g.Sub != alice.Key() {
				t.Errorf("grant for %s, want alice", g.Sub)
			}
		}
		if !found {
			t.Errorf("%q: no grant expiring %s among %d", tc.label, tc.exp, len(gs))
		}
		na.pump(t, "the pane emptied", func() bool { return w.cur == "" })
	}
}

// TestApprovalScreens renders the Approvals window in the states a person
// meets, light and dark, at scale 1 and 2, into $AWP_SCREENS (a temporary
// directory without it) for a person to look at; it checks each image has
// the window's size at its scale.
func TestApprovalScreens(t *testing.T) {
	dir := screensDir(t)
	ws := t.TempDir()
	data := filepath.Join(ws, ".awp")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	key := strings.Repeat("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl evil@host\n", 3)
	for _, v := range themes {
		for _, scale := range []float32{1, 2} {
			f := newFakeNode()
			a, _ := newTestApp(t, nil)
			test.ApplyTheme(t, v.th)
			a.mu.Lock()
			a.be = nodeWithWorkspace{f, ws, data}
			a.mu.Unlock()
			arrive(a, f, execReq("apr_1", aliceKey, "make test"))
			arrive(a, f, writeReq("apr_2", bobKey, "../../.ssh/authorized_keys", key, true))
			arrive(a, f, grantReq("apr_3", bobKey, []string{"exec", "fs:read"}, 86400, meKey.String(), aliceKey.String()))
			arrive(a, f, readReq("apr_4", carolKey, ".awp/identity.key"))
			w := a.approvals
			shot := func(state string) {
				t.Helper()
				writeShot(t, w.w, filepath.Join(dir, fmt.Sprintf("approvals-%s-%s-%gx.png", state, v.name, scale)), fyne.NewSize(860, 620), scale)
			}
			w.list.Select(0)
			shot("exec-just-shown")
			w.looked()
			shot("exec")
			w.list.Select(1)
			w.looked()
			shot("write-outside")
			w.list.Select(2)
			w.looked()
			shot("grant-24h")
			w.list.Select(3)
			w.looked()
			shot("read-datadir")
			test.Tap(w.button("Deny"))
			a.Wait()
			gone(a, f, "apr_4")
			shot("after-a-decision")
		}
	}
}
