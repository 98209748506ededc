package peer

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer/profile"
)

// threadOf returns n's thread th (fails when it has none).
func threadOf(t *testing.T, n *testNode, th string) ThreadInfo {
	t.Helper()
	ti, ok := findThread(t, n, th)
	if !ok {
		t.Fatalf("no thread %s", th)
	}
	return ti
}

// findThread returns n's own thread th, if it has it yet.
func findThread(t *testing.T, n *testNode, th string) (ThreadInfo, bool) {
	t.Helper()
	ts, err := n.Threads()
	if err != nil {
		t.Fatal(err)
	}
	for _, ti := range ts {
		if ti.Th == th && ti.MirroredFrom.IsZero() {
			return ti, true
		}
	}
	return ThreadInfo{}, false
}

// threadHas reports whether n has thread th and ok holds of it: for
// eventually, while the thread may not have arrived yet.
func threadHas(t *testing.T, n *testNode, th string, ok func(ThreadInfo) bool) bool {
	ti, found := findThread(t, n, th)
	return found && ok(ti)
}

// State lines are shown as the sender's state, not read: they do not
// count as unread; the preview's author is listed.
func TestStateLinesNotUnread(t *testing.T) {
	a, b := connectedPair(t)
	r := sendText(t, a, b.Key(), "", "hello b")
	if _, err := a.SetState(context.Background(), r.Th, "working", "on it"); err != nil {
		t.Fatal(err)
	}
	testsync.Eventually(t, "b has both lines", func() bool {
		return threadHas(t, b, r.Th, func(ti ThreadInfo) bool { return ti.Lines == 2 })
	})
	got := threadOf(t, b, r.Th)
	if got.Unread != 1 || got.Theirs != "working" {
		t.Errorf("after a msg and a state: unread %d, theirs %q; want 1, working", got.Unread, got.Theirs)
	}
	if got.LastFrom != a.Key() {
		t.Errorf("last_from %q, want a's key", got.LastFrom)
	}
	if mine := threadOf(t, a, r.Th); mine.LastFrom != a.Key() || mine.Unread != 0 {
		t.Errorf("a's own thread: last_from %q unread %d", mine.LastFrom, mine.Unread)
	}
	// last_from names who wrote the preview, not who sent the newest
	// line: b's text stays b's after a's next state line.
	sendText(t, b, a.Key(), r.Th, "hi a")
	testsync.Eventually(t, "a has b's text", func() bool {
		return threadHas(t, a, r.Th, func(ti ThreadInfo) bool { return ti.LastText == "hi a" })
	})
	if _, err := a.SetState(context.Background(), r.Th, "done", ""); err != nil {
		t.Fatal(err)
	}
	if got := threadOf(t, a, r.Th); got.LastFrom != b.Key() || got.LastText != "hi a" {
		t.Errorf("after a's state: last_from %q, last_text %q; want b's", got.LastFrom, got.LastText)
	}
}

// Requests and grants that name no thread go to one thread per peer,
// "Requests and grants", not to a thread each.
func TestRequestsShareThread(t *testing.T) {
	a, b := connectedPair(t)
	ctx := context.Background()
	// Nobody answers (b holds it for a person): each request is sent,
	// then given up on.
	request := func(from, to *testNode) {
		t.Helper()
		ctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		if _, err := from.Request(ctx, to.Key(), profile.MimeExec, json.RawMessage(`{"cmd":"true"}`), ""); err == nil {
			t.Fatal("a request ran without a grant")
		}
	}
	request(a, b)
	request(a, b)
	if _, err := a.Grant(ctx, b.Key(), []string{"fs:read"}, time.Hour, nil, "logs"); err != nil {
		t.Fatal(err)
	}
	ts, _ := a.Threads()
	if len(ts) != 1 || ts[0].Subject != RequestsSubject {
		t.Fatalf("a's threads: %+v, want one %q", ts, RequestsSubject)
	}
	th := ts[0].Th
	testsync.Eventually(t, "b has the two requests and the grant", func() bool {
		ts, _ := b.Threads()
		return len(ts) == 1 && ts[0].Th == th && ts[0].Lines >= 3
	})
	// b's requests to a go to the same thread.
	request(b, a)
	if ts, _ := b.Threads(); len(ts) != 1 || ts[0].Th != th {
		t.Errorf("b's threads after its request: %+v", ts)
	}
	// A thread named anything else is not reused.
	sendText(t, a, b.Key(), "", "a conversation")
	request(a, b)
	if ts, _ := a.Threads(); len(ts) != 2 {
		t.Errorf("a's threads: %d, want 2", len(ts))
	}
}
