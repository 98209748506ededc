package notify_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/notify"
	"github.com/awp-tray/awp-tray/notify/notifytest"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// textKey is a well-formed key whose text starts with prefix (padded with
// "A"), so a test can name keys and read them in what is shown.
func textKey(prefix string) key.PublicKey {
	return key.MustParsePublic(key.Prefix + prefix + strings.Repeat("A", 43-len(prefix)))
}

var (
	selfKey  = textKey("me")
	aliceKey = textKey("alice")
)

var t0 = time.Date(2026, 9, 25, 17, 0, 0, 0, time.UTC)

// harness is a Manager on a fake server and a fake clock, with its hooks
// recorded. Signals are delivered synchronously.
type harness struct {
	m   *notify.Manager
	fb  *notifytest.Backend
	clk *notifytest.Clock

	mu sync.Mutex
	// mu guards:
	paused    bool
	focus     []string // th, from's text
	opened    []string // "th|from", or "threads", or "approvals"
	decisions map[string]peer.Decision
	unread    map[string]int // th → unread, for Lookup
}

func newHarness(t *testing.T, rules notify.Rules) *harness {
	t.Helper()
	h := &harness{
		fb:        notifytest.NewBackend(),
		clk:       notifytest.NewClock(t0),
		decisions: make(map[string]peer.Decision),
		unread:    make(map[string]int),
	}
	h.m = &notify.Manager{
		Backend: h.fb,
		Self:    selfKey,
		Clock:   h.clk,
		Rules:   rules,
		Logger:  testLogger(t),
		Paused: func() bool {
			h.mu.Lock()
			defer h.mu.Unlock()
			return h.paused
		},
		Focused: func() (string, key.PublicKey, bool) {
			h.mu.Lock()
			defer h.mu.Unlock()
			if h.focus == nil {
				return "", key.PublicKey{}, false
			}
			var from key.PublicKey
			if err := from.UnmarshalText([]byte(h.focus[1])); err != nil {
				panic(err)
			}
			return h.focus[0], from, true
		},
		Lookup: func(th string, from key.PublicKey) (peer.ThreadInfo, bool) {
			h.mu.Lock()
			defer h.mu.Unlock()
			n, ok := h.unread[th]
			return peer.ThreadInfo{Th: th, Unread: n}, ok
		},
		OpenThread:    func(th string, from key.PublicKey) { h.record(th + "|" + from.String()) },
		OpenThreads:   func() { h.record("threads") },
		OpenApprovals: func() { h.record("approvals") },
		Decide: func(id string, d peer.Decision) error {
			h.mu.Lock()
			defer h.mu.Unlock()
			if _, ok := h.decisions[id]; ok {
				return fmt.Errorf("approval %s already decided", id)
			}
			h.decisions[id] = d
			return nil
		},
	}
	h.fb.Deliver = h.m.HandleSignal
	t.Cleanup(func() { h.m.Close() })
	return h
}

func (h *harness) record(s string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.opened = append(h.opened, s)
}

func (h *harness) openedList() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.opened...)
}

// only returns the one notification on screen, failing otherwise.
func (h *harness) only(t *testing.T) (uint32, notify.Notification) {
	t.Helper()
	alive := h.fb.Alive()
	if len(alive) != 1 {
		t.Fatalf("%d notifications on screen, want 1: %+v", len(alive), alive)
	}
	for id, n := range alive {
		return id, n
	}
	panic("unreachable")
}

// msgEvent is the event a node publishes for an inbound msg.
func msgEvent(th, subject, text string) peer.Event {
	line, _ := json.Marshal(map[string]any{
		"t": "msg", "id": "01J9" + th + text, "ts": "2026-09-25T17:03:11Z", "th": th,
		"subject": subject, "parts": []any{map[string]string{"k": "text", "text": text}},
	})
	return peer.Event{
		Type: peer.EventLine, Peer: aliceKey, PeerName: "Alice", Th: th,
		Line: &peer.LineInfo{Dir: "in", From: aliceKey, Line: line},
	}
}

func approvalEvent(id string) peer.Event {
	return peer.Event{Type: peer.EventApproval, Approval: &peer.ApprovalRequest{
		ID: id, Kind: peer.ApprovalProfile, From: aliceKey, FromName: "Alice",
		Caps: []string{"exec"}, Th: "thr_1", Detail: json.RawMessage(`{"cmd":["make","test"]}`),
	}}
}

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

func TestThreadNotificationNamesPeerSubjectText(t *testing.T) {
	h := newHarness(t, notify.Rules{})
	h.m.HandleEvent(msgEvent("thr_1", "Fix the build", "CI is green <again> & merged"))
	_, n := h.only(t)
	if n.Title != "Alice: Fix the build" || n.Body != "CI is green <again> & merged" {
		t.Errorf("title %q body %q", n.Title, n.Body)
	}
	if len(n.Actions) != 1 || n.Actions[0].Key != notify.ActionDefault || n.Category != "im.received" || n.AppName != "AWP" {
		t.Errorf("notification %+v", n)
	}
}

func TestNewerMessageReplacesAndIsThrottled(t *testing.T) {
	h := newHarness(t, notify.Rules{MinInterval: time.Second})
	h.m.HandleEvent(msgEvent("thr_1", "Fix the build", "first"))
	id1, _ := h.only(t)

	h.clk.Advance(100 * time.Millisecond)
	h.m.HandleEvent(msgEvent("thr_1", "", "second"))
	h.m.HandleEvent(msgEvent("thr_1", "", "third"))
	if got := len(h.fb.Sent()); got != 1 {
		t.Fatalf("%d sends within MinInterval, want 1 (held back)", got)
	}
	h.clk.Advance(time.Second)
	id2, n := h.only(t)
	if id2 != id1 {
		t.Errorf("newer message got id %d, want the replaced %d", id2, id1)
	}
	if n.Title != "Alice: Fix the build" || n.Body != "third\n(3 new messages)" {
		t.Errorf("title %q body %q", n.Title, n.Body)
	}
	sent := h.fb.Sent()
	if len(sent) != 2 || sent[1].Notification.ReplacesID != id1 {
		t.Errorf("sends %+v, want 2, the second replacing %d", sent, id1)
	}
}

func TestSuppressed(t *testing.T) {
	mine := msgEvent("thr_1", "s", "sent by me")
	mine.Line.Dir = "out"
	mine.Line.From = selfKey
	selfIn := msgEvent("thr_1", "s", "my own key, e.g. relayed")
	selfIn.Line.From = selfKey
	replayed := msgEvent("thr_1", "s", "seen before")
	replayed.Replayed = true
	state := msgEvent("thr_1", "s", "x")
	state.Line.Line = json.RawMessage(`{"t":"state","th":"thr_1","state":"working"}`)
	for _, tc := range []struct {
		name   string
		ev     peer.Event
		paused bool
		focus  []string
	}{
		{name: "out line", ev: mine},
		{name: "from self", ev: selfIn},
		{name: "replayed", ev: replayed},
		{name: "state line", ev: state},
		{name: "paused", ev: msgEvent("thr_1", "s", "t"), paused: true},
		{name: "focused", ev: msgEvent("thr_1", "s", "t"), focus: []string{"thr_1", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, notify.Rules{})
			h.paused, h.focus = tc.paused, tc.focus
			h.m.HandleEvent(tc.ev)
			if s := h.fb.Sent(); len(s) != 0 {
				t.Errorf("notified %+v", s)
			}
		})
	}
	t.Run("other thread focused", func(t *testing.T) {
		h := newHarness(t, notify.Rules{})
		h.focus = []string{"thr_1", aliceKey.String()} // the same th, mirrored from alice: another thread
		h.m.HandleEvent(msgEvent("thr_1", "s", "t"))
		if s := h.fb.Sent(); len(s) != 1 {
			t.Errorf("%d sends, want 1", len(s))
		}
	})
}

func TestManyThreadsCoalesceIntoOneSummary(t *testing.T) {
	h := newHarness(t, notify.Rules{SummaryAfter: 3, MinInterval: time.Second})
	for i, th := range []string{"thr_a", "thr_a", "thr_b", "thr_c"} {
		h.m.HandleEvent(msgEvent(th, "Subject "+th, fmt.Sprint("text ", i)))
		h.clk.Advance(2 * time.Second)
	}
	if n := len(h.fb.Alive()); n != 3 {
		t.Fatalf("%d on screen with 3 threads, want 3 (one each)", n)
	}
	h.m.HandleEvent(msgEvent("thr_d", "Subject thr_d", "text 4"))
	id, n := h.only(t)
	if n.Title != "5 new messages in 4 threads" {
		t.Errorf("summary title %q", n.Title)
	}
	if !strings.HasPrefix(n.Body, "Alice: Subject thr_d\nAlice: Subject thr_c\nAlice: Subject thr_b\nand 1 more") {
		t.Errorf("summary body %q", n.Body)
	}
	// More news folds into the same summary, replaced in place.
	h.clk.Advance(2 * time.Second)
	h.m.HandleEvent(msgEvent("thr_e", "Subject thr_e", "text 5"))
	id2, n := h.only(t)
	if id2 != id || n.Title != "6 new messages in 5 threads" {
		t.Errorf("after one more: id %d (want %d), title %q", id2, id, n.Title)
	}
	// Reading threads takes them out; the last one read withdraws it.
	for _, th := range []string{"thr_a", "thr_b", "thr_c", "thr_d"} {
		h.clk.Advance(2 * time.Second)
		h.m.Read(th, key.PublicKey{})
	}
	if _, n := h.only(t); n.Title != "1 new message in 1 thread" {
		t.Errorf("after reads: %q", n.Title)
	}
	h.m.Read("thr_e", key.PublicKey{})
	if a := h.fb.Alive(); len(a) != 0 {
		t.Errorf("all read, still on screen: %+v", a)
	}
}

func TestReadWithdraws(t *testing.T) {
	h := newHarness(t, notify.Rules{})
	h.m.HandleEvent(msgEvent("thr_1", "s", "one"))
	h.m.HandleEvent(msgEvent("thr_2", "s", "two"))
	h.m.Read("thr_1", key.PublicKey{})
	if a := h.fb.Alive(); len(a) != 1 {
		t.Fatalf("after Read: %+v", a)
	}
	// Read in another window: the node says the thread changed, and
	// Lookup says nothing is unread.
	h.unread["thr_2"] = 1
	h.m.HandleEvent(peer.Event{Type: peer.EventThread, Th: "thr_2"})
	if a := h.fb.Alive(); len(a) != 1 {
		t.Fatalf("thread still unread, withdrawn: %+v", a)
	}
	h.unread["thr_2"] = 0
	h.m.HandleEvent(peer.Event{Type: peer.EventThread, Th: "thr_2"})
	if a := h.fb.Alive(); len(a) != 0 {
		t.Fatalf("after EventThread unread 0: %+v", a)
	}
}

func TestDismissAndExpire(t *testing.T) {
	h := newHarness(t, notify.Rules{MinInterval: -1})
	h.m.HandleEvent(msgEvent("thr_1", "s", "one"))
	h.m.HandleEvent(msgEvent("thr_1", "s", "two"))
	id, _ := h.only(t)
	h.fb.Expire(id) // not seen: the count goes on
	h.m.HandleEvent(msgEvent("thr_1", "s", "three"))
	id, n := h.only(t)
	if n.Body != "three\n(3 new messages)" {
		t.Errorf("after expiry: %q", n.Body)
	}
	h.fb.Dismiss(id) // seen: new news starts from one
	h.m.HandleEvent(msgEvent("thr_1", "s", "four"))
	if _, n := h.only(t); n.Body != "four" {
		t.Errorf("after dismissal: %q", n.Body)
	}
	// A server's report of a close it was asked for, or of another app's
	// notification, changes nothing.
	h.m.HandleSignal(notify.Signal{Kind: notify.SignalClosed, ID: 999, Reason: notify.ClosedByCall})
	h.m.HandleSignal(notify.Signal{Kind: notify.SignalAction, ID: 999, Action: notify.ActionDefault})
	if len(h.openedList()) != 0 || len(h.fb.Alive()) != 1 {
		t.Errorf("unknown id acted on: opened %v", h.openedList())
	}
}

func TestClickOpens(t *testing.T) {
	h := newHarness(t, notify.Rules{SummaryAfter: 1})
	ev := msgEvent("thr_1", "s", "one")
	ev.Line.MirroredFrom = textKey("sharer")
	h.m.HandleEvent(ev)
	id, _ := h.only(t)
	h.fb.Invoke(id, notify.ActionDefault)
	h.m.HandleEvent(msgEvent("thr_2", "s", "two"))
	h.m.HandleEvent(msgEvent("thr_3", "s", "three"))
	id, n := h.only(t)
	if !strings.Contains(n.Title, "in 2 threads") {
		t.Fatalf("want a summary, got %q", n.Title)
	}
	h.fb.Invoke(id, notify.ActionDefault)
	got := h.openedList()
	if len(got) != 2 || got[0] != "thr_1|"+textKey("sharer").String() || got[1] != "threads" {
		t.Errorf("opened %v", got)
	}
	if a := h.fb.Alive(); len(a) != 0 {
		t.Errorf("on screen after clicks: %+v", a)
	}
}

func TestApprovalActions(t *testing.T) {
	for _, tc := range []struct {
		action string
		want   *peer.Decision
		opened string
	}{
		{action: "allow", want: &peer.Decision{Allow: true, By: "notification"}},
		{action: "deny", want: &peer.Decision{Allow: false, By: "notification"}},
		{action: notify.ActionDefault, opened: "approvals"},
	} {
		t.Run(tc.action, func(t *testing.T) {
			h := newHarness(t, notify.Rules{})
			h.paused = true // pausing silences messages, not requests
			h.m.HandleEvent(approvalEvent("apr_1"))
			id, n := h.only(t)
			if n.Title != "Alice asks to exec" || n.Body != "$ make test" || n.Urgency != notify.UrgencyCritical {
				t.Errorf("approval notification %+v", n)
			}
			var keys []string
			for _, a := range n.Actions {
				keys = append(keys, a.Key+"="+a.Label)
			}
			if strings.Join(keys, ",") != "default=Open Approvals,allow=Allow once,deny=Deny" {
				t.Errorf("actions %v", keys)
			}
			h.fb.Invoke(id, tc.action)
			d, decided := h.decisions["apr_1"]
			switch {
			case tc.want != nil && (!decided || d != *tc.want):
				t.Errorf("decision %+v (taken %v), want %+v", d, decided, *tc.want)
			case tc.want == nil && decided:
				t.Errorf("decided %+v on a click", d)
			}
			if tc.opened != "" && strings.Join(h.openedList(), ",") != tc.opened {
				t.Errorf("opened %v, want %s", h.openedList(), tc.opened)
			}
		})
	}
}

// Each kind of request gets the actions that mean what they say, and each
// action takes exactly its decision: Allow once is {Allow, For 0} on a
// request to run something here, shown whole (an fs:write with what it
// writes); a grant request, where For 0 would sign the grant asked for, is
// decided in the Approvals window, and an "allow" action on it (one the
// notification never offered) does nothing.
func TestApprovalActionsByKind(t *testing.T) {
	long := strings.Repeat("ssh-ed25519 AAAA key\n", 200)
	for _, tc := range []struct {
		name    string
		req     peer.ApprovalRequest
		actions string
		body    []string // substrings
	}{
		{"exec", peer.ApprovalRequest{Kind: peer.ApprovalProfile, Caps: []string{"exec"}, Detail: json.RawMessage(`{"cmd":["make","test"]}`)},
			"default,allow,deny", []string{"$ make test"}},
		{"write short", peer.ApprovalRequest{Kind: peer.ApprovalProfile, Caps: []string{"fs:write"},
			Detail: json.RawMessage(`{"path":"notes.md","content":"hello world","append":true}`)},
			"default,allow,deny", []string{"notes.md\nAppend 11 bytes: \"hello world\""}},
		{"write replace", peer.ApprovalRequest{Kind: peer.ApprovalProfile, Caps: []string{"fs:write"},
			Detail: json.RawMessage(`{"path":"a/b.txt","content":"x\u202ey","mkdir":true}`)},
			"default,allow,deny", []string{"Replace the file with 5 bytes (creating missing directories): \"x\\u202ey\""}},
		{"write long", peer.ApprovalRequest{Kind: peer.ApprovalProfile, Caps: []string{"fs:write"},
			Detail: wire.MustMarshal(map[string]any{"path": "../../.ssh/authorized_keys", "content": long, "append": true})},
			"default,allow,deny", []string{"Append 4200 bytes, starting: \"ssh-ed25519 AAAA key\\nssh-ed25519"}},
		{"write binary", peer.ApprovalRequest{Kind: peer.ApprovalProfile, Caps: []string{"fs:write"},
			Detail: json.RawMessage(`{"path":"bin","content":"f0VMRv8=","encoding":"base64"}`)},
			"default,allow,deny", []string{"Replace the file with 5 bytes: 7f 45 4c 46 ff"}},
		{"write malformed", peer.ApprovalRequest{Kind: peer.ApprovalProfile, Caps: []string{"fs:write"},
			Detail: json.RawMessage(`{"path":"bin","content":"f0VMRv8","encoding":"base64"}`)},
			"default,deny", []string{"Malformed: the node will refuse it.", "Open Approvals to read the whole request"}},
		{"write hidden path", peer.ApprovalRequest{Kind: peer.ApprovalProfile, Caps: []string{"fs:write"},
			Detail: json.RawMessage(`{"path":"a\u202eb","content":"x"}`)},
			"default,deny", []string{`a\u202eb`, "Replace the file with 1 byte: \"x\""}},
		{"grant request", peer.ApprovalRequest{Kind: peer.ApprovalGrantRequest, Caps: []string{"exec"}, TTL: 86400, On: []key.PublicKey{selfKey},
			Reason: "run the tests", Detail: json.RawMessage(`{"caps":["exec"],"ttl":86400}`)},
			"default,deny", []string{"Capabilities: exec", "On: this peer", "How long: 24 h", "Reason: run the tests", "Open Approvals to choose how long to grant it."}},
		{"grant request anywhere", peer.ApprovalRequest{Kind: peer.ApprovalGrantRequest, Caps: []string{"exec"}, Sub: textKey("someoneelse")},
			"default,deny", []string{"For another key: someonee", "On: any peer that honors your grants", "How long: not said"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, action := range []string{"allow", "deny"} {
				h := newHarness(t, notify.Rules{})
				r := tc.req
				r.ID, r.From, r.FromName = "apr_1", aliceKey, "Alice"
				h.m.HandleEvent(peer.Event{Type: peer.EventApproval, Approval: &r})
				id, n := h.only(t)
				var keys []string
				for _, a := range n.Actions {
					keys = append(keys, a.Key)
				}
				if strings.Join(keys, ",") != tc.actions {
					t.Errorf("actions %v, want %s; body %q", keys, tc.actions, n.Body)
				}
				for _, b := range tc.body {
					if !strings.Contains(n.Body, b) {
						t.Errorf("body %q lacks %q", n.Body, b)
					}
				}
				h.fb.Invoke(id, action)
				h.mu.Lock()
				d, decided := h.decisions["apr_1"]
				h.mu.Unlock()
				offered := strings.Contains(tc.actions, action)
				want := notify.Deny()
				if action == "allow" {
					want = notify.AllowOnce()
				}
				switch {
				case offered && (!decided || d != want):
					t.Errorf("%s: decision %+v (%v), want %+v", action, d, decided, want)
				case !offered && decided:
					t.Errorf("%s was not offered, but decided %+v", action, d)
				case decided && d.For != 0:
					t.Errorf("%s from a notification signs a grant: %+v", action, d)
				}
			}
		})
	}
}

func TestApprovalWithdrawnWhenDoneElsewhere(t *testing.T) {
	h := newHarness(t, notify.Rules{})
	h.m.HandleEvent(approvalEvent("apr_1"))
	h.m.HandleEvent(approvalEvent("apr_2"))
	h.m.HandleEvent(approvalEvent("apr_1")) // published twice: still one
	if n := len(h.fb.Alive()); n != 2 {
		t.Fatalf("%d on screen, want 2", n)
	}
	// Decided in the window: the event carries the request.
	h.m.HandleEvent(peer.Event{Type: peer.EventApprovalDone, Approval: &peer.ApprovalRequest{ID: "apr_1"},
		Decision: &peer.Decision{Allow: true, By: "user"}})
	// Timed out: only Of names it.
	h.m.HandleEvent(peer.Event{Type: peer.EventApprovalDone, Of: "apr_2", Decision: &peer.Decision{By: "timeout"}})
	if a := h.fb.Alive(); len(a) != 0 {
		t.Errorf("still on screen: %+v", a)
	}
	if len(h.decisions) != 0 {
		t.Errorf("decided from here: %v", h.decisions)
	}
}

func TestApprovalsWaitTheirTurn(t *testing.T) {
	h := newHarness(t, notify.Rules{MaxApprovals: 2})
	for i := 1; i <= 3; i++ {
		h.m.HandleEvent(approvalEvent(fmt.Sprint("apr_", i)))
	}
	if n := len(h.fb.Alive()); n != 2 {
		t.Fatalf("%d on screen, want MaxApprovals 2", n)
	}
	h.m.HandleEvent(peer.Event{Type: peer.EventApprovalDone, Of: "apr_1"})
	if n := len(h.fb.Alive()); n != 2 || len(h.fb.Sent()) != 3 {
		t.Fatalf("after one done: %d on screen, %d sent; want 2 and 3", n, len(h.fb.Sent()))
	}
	// Dismissed: not shown again, and no one waits.
	for id := range h.fb.Alive() {
		h.fb.Dismiss(id)
	}
	if len(h.fb.Alive()) != 0 || len(h.fb.Sent()) != 3 {
		t.Errorf("dismissed requests came back: %d sent", len(h.fb.Sent()))
	}
}

func TestServerRestart(t *testing.T) {
	h := newHarness(t, notify.Rules{})
	h.m.HandleEvent(msgEvent("thr_1", "s", "one"))
	h.m.HandleEvent(approvalEvent("apr_1"))
	h.fb.Stop()
	h.fb.Start()
	// The request is shown again by the new server; the message is not.
	id, n := h.only(t)
	if n.Title != "Alice asks to exec" {
		t.Fatalf("after restart: %q", n.Title)
	}
	// The new server reuses id 1 (the old message's): reading that thread
	// must not withdraw the request.
	h.m.Read("thr_1", key.PublicKey{})
	if len(h.fb.Withdrawn()) != 0 {
		t.Errorf("withdrew a stale id: %v", h.fb.Withdrawn())
	}
	h.fb.Invoke(id, "deny")
	if d := h.decisions["apr_1"]; d != notify.Deny() {
		t.Errorf("decision after restart %+v", d)
	}
	h.m.HandleEvent(msgEvent("thr_2", "s", "two"))
	if _, n := h.only(t); n.Body != "two" {
		t.Errorf("message after restart: %+v", n)
	}
}

func TestFallback(t *testing.T) {
	for _, tc := range []struct {
		name    string
		backend func() notify.Backend
	}{
		{"no backend", func() notify.Backend { return nil }},
		{"no actions", func() notify.Backend { return notifytest.NewBackend("body", "body-markup") }},
		{"server gone", func() notify.Backend { fb := notifytest.NewBackend(); fb.Stop(); return fb }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var shown []string
			clk := notifytest.NewClock(t0)
			m := &notify.Manager{
				Backend:  tc.backend(),
				Clock:    clk,
				Rules:    notify.Rules{SummaryAfter: 2},
				Fallback: func(title, body string) { shown = append(shown, title+"|"+body) },
			}
			defer m.Close()
			for _, ev := range []peer.Event{
				msgEvent("thr_1", "s1", "one"),
				msgEvent("thr_1", "s1", "two"), // cannot replace: nothing
				msgEvent("thr_2", "s2", "three"),
				msgEvent("thr_3", "s3", "four"), // summary, once
				msgEvent("thr_4", "s4", "five"),
				approvalEvent("apr_1"),
			} {
				m.HandleEvent(ev)
				clk.Advance(2 * time.Second)
			}
			want := []string{"Alice: s1|one", "Alice: s2|three", "4 new messages in 3 threads|Alice: s3\nAlice: s2\nAlice: s1",
				"Alice asks to exec|$ make test"}
			if strings.Join(shown, "\n--\n") != strings.Join(want, "\n--\n") {
				t.Errorf("fallback got\n%q\nwant\n%q", shown, want)
			}
		})
	}
}

// TestBurst: 500 messages in 20 threads never flood the screen: at most 20
// notifications at any time, one summary (one id), and few updates.
func TestBurst(t *testing.T) {
	h := newHarness(t, notify.Rules{})
	const msgs, threads = 500, 20
	for i := range msgs {
		th := fmt.Sprintf("thr_%02d", i%threads)
		h.m.HandleEvent(msgEvent(th, "Subject "+th, fmt.Sprint("message ", i)))
		if n := len(h.fb.Alive()); n > threads {
			t.Fatalf("after message %d: %d on screen", i, n)
		}
		h.clk.Advance(10 * time.Millisecond)
	}
	h.clk.Advance(time.Second) // the last held-back update
	if h.fb.MaxAlive() > threads {
		t.Errorf("max on screen %d > %d", h.fb.MaxAlive(), threads)
	}
	summaries := map[uint32]bool{}
	for _, s := range h.fb.Sent() {
		if strings.Contains(s.Notification.Title, " in ") {
			summaries[s.ID] = true
		}
	}
	if len(summaries) != 1 {
		t.Errorf("summary ids %v, want exactly one", summaries)
	}
	_, n := h.only(t)
	if n.Title != "500 new messages in 20 threads" {
		t.Errorf("final summary %q", n.Title)
	}
	// 3 threads, then the summary updated at most once a second for 5s.
	if s := len(h.fb.Sent()); s > 3+1+6 {
		t.Errorf("%d sends for a 5s burst: a flood", s)
	}
	if h.clk.Pending() != 0 {
		t.Errorf("%d timers left", h.clk.Pending())
	}
}

// TestSignalLoop runs Start's loop on the fake server's channel.
func TestSignalLoop(t *testing.T) {
	fb := notifytest.NewBackend()
	got := make(chan peer.Decision, 1)
	m := &notify.Manager{
		Backend: fb,
		Logger:  testLogger(t),
		Decide: func(id string, d peer.Decision) error {
			got <- d
			return nil
		},
	}
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	if err := m.Start(); err != notify.ErrStarted {
		t.Errorf("second Start: %v", err)
	}
	m.HandleEvent(approvalEvent("apr_1"))
	id, _ := onlyOf(t, fb)
	fb.Invoke(id, "allow")
	select {
	case d := <-got:
		if d != notify.AllowOnce() {
			t.Errorf("decision %+v", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no decision from the action")
	}
	m.HandleEvent(approvalEvent("apr_2"))
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if a := fb.Alive(); len(a) != 0 {
		t.Errorf("Close left %+v on screen", a)
	}
	if err := m.Start(); err != notify.ErrClosed {
		t.Errorf("Start after Close: %v", err)
	}
}

func onlyOf(t *testing.T, fb *notifytest.Backend) (uint32, notify.Notification) {
	t.Helper()
	for id, n := range fb.Alive() {
		return id, n
	}
	t.Fatal("nothing on screen")
	panic("unreachable")
}

// The fake notifier satisfies the interface other packages use.
var _ notify.Notifier = (*notifytest.Notifier)(nil)
var _ notify.Notifier = (*notify.Manager)(nil)
var _ notify.Backend = (*notifytest.Backend)(nil)
var _ notify.Backend = (*notify.DBusBackend)(nil)
