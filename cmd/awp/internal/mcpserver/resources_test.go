package mcpserver

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/awp-tray/awp-tray/peer/wire"
)

// TestResources reads awp://inbox and awp://thread/{th} and checks that a
// line stored in a subscribed thread sends notifications/resources/updated
// for the thread and the inbox, under the 2025-11-25 protocol (resources/
// subscribe, what today's clients speak) and the SDK's newest
// (subscriptions/listen).
func TestResources(t *testing.T) {
	for _, version := range []string{"2025-11-25", ""} {
		name := version
		if name == "" {
			name = "latest"
		}
		t.Run(name, func(t *testing.T) { testResources(t, version) })
	}
}

func testResources(t *testing.T, version string) {
	a, b := pair(t)
	updated := make(chan string, 64)
	sa := connect(t, a.dir, &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
		updated <- r.Params.URI
	}}, Options{}, version)
	sb := open(t, b)
	ctx := context.Background()

	// Subscribe before the thread's first line: every notification after
	// this comes from a line sent below.
	th := wire.NewThread()
	for _, uri := range []string{ThreadURI(th), InboxURI} {
		if err := sa.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatalf("subscribe %s: %v", uri, err)
		}
	}
	if err := sa.Subscribe(ctx, &mcp.SubscribeParams{URI: "awp://nothing"}); err == nil && version != "" {
		t.Error("subscribed to a resource that does not exist")
	}
	// Both updates for one line, in either order.
	expectBoth := func(what string) {
		t.Helper()
		got := map[string]bool{}
		deadline := time.After(20 * time.Second)
		for !got[ThreadURI(th)] || !got[InboxURI] {
			select {
			case uri := <-updated:
				got[uri] = true
			case <-deadline:
				t.Fatalf("%s: updates seen: %v", what, got)
			}
		}
	}
	first, _ := callOK[SendOut](t, sb, "awp_send", args{"to": "alice", "th": th, "subject": "res", "text": "one"})
	expectBoth("the first line")

	res, err := sa.ReadResource(ctx, &mcp.ReadResourceParams{URI: InboxURI})
	if err != nil {
		t.Fatal(err)
	}
	var in InboxOut
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &in); err != nil || len(in.Threads) != 1 || in.Threads[0].Lines[0].Text != "one" ||
		res.Contents[0].MIMEType != "application/json" {
		t.Fatalf("inbox resource = %+v (%v)", res.Contents[0], err)
	}
	// Reading the inbox resource leaves the lines unread.
	if in2, _ := callOK[InboxOut](t, sa, "awp_inbox", args{"peek": true}); len(in2.Threads) != 1 {
		t.Fatal("reading awp://inbox marked lines read")
	}
	res, err = sa.ReadResource(ctx, &mcp.ReadResourceParams{URI: ThreadURI(first.Th)})
	if err != nil {
		t.Fatal(err)
	}
	var sh ShowOut
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &sh); err != nil || sh.Th != th || sh.Total != 1 || sh.Subject != "res" {
		t.Fatalf("thread resource = %s (%v)", res.Contents[0].Text, err)
	}
	if _, err := sa.ReadResource(ctx, &mcp.ReadResourceParams{URI: ThreadURI("thr_nosuchthread")}); err == nil {
		t.Error("a thread that does not exist was read")
	}
	tmpl, err := sa.ListResourceTemplates(ctx, nil)
	if err != nil || len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate != "awp://thread/{th}" {
		t.Fatalf("templates = %+v, %v", tmpl, err)
	}

	callOK[SendOut](t, sb, "awp_send", args{"to": "alice", "th": th, "text": "two"})
	expectBoth("the second line")
	// A line in another thread updates the inbox, not the subscribed thread.
	callOK[SendOut](t, sb, "awp_send", args{"to": "alice", "subject": "other", "text": "three"})
	select {
	case uri := <-updated:
		if uri != InboxURI {
			t.Fatalf("update for %s, want %s", uri, InboxURI)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no inbox update")
	}
}
