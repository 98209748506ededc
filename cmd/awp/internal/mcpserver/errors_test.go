package mcpserver

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/localapi/localapitest"
)

// TestNotRunning: with no peer, every tool answers with a tool error that
// says how to start one, and the server keeps answering.
func TestNotRunning(t *testing.T) {
	dir := localapitest.ShortTempDir(t)
	s := connect(t, dir, nil, Options{}, "")
	calls := map[string]args{
		"awp_whoami": nil, "awp_peers": nil, "awp_presence": nil, "awp_inbox": nil,
		"awp_wait":    {"timeout_s": 5},
		"awp_show":    {"th": "thr_abc"},
		"awp_send":    {"to": "ed25519:" + strings.Repeat("A", 43), "text": "hi"},
		"awp_request": {"to": "bob", "kind": "exec", "cmd": "true"},
	}
	for round := 0; round < 2; round++ {
		for name, a := range calls {
			msg := callErr(t, s, name, a)
			if !strings.Contains(msg, "no AWP peer is running for "+dir) || !strings.Contains(msg, "awp run --data "+dir) || !strings.Contains(msg, "--run") {
				t.Errorf("%s: %q", name, msg)
			}
		}
	}
	if len(calls) != len(wantTools) {
		t.Fatalf("%d tools checked, want all %d", len(calls), len(wantTools))
	}
	if _, err := s.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: InboxURI}); err == nil || !strings.Contains(err.Error(), "awp run") {
		t.Errorf("inbox resource without a peer: %v", err)
	}
	// Still serving.
	if _, err := s.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
}

// TestEnsureStartsPeer: with Ensure (awp mcp --run), a call that finds no
// peer has Ensure start one and is answered.
func TestEnsureStartsPeer(t *testing.T) {
	dir := localapitest.ShortTempDir(t)
	var ensured atomic.Int32
	s := connect(t, dir, nil, Options{Ensure: func(ctx context.Context) error {
		ensured.Add(1)
		startNode(t, "late", func(c *peer.Config) { c.DataDir = dir })
		return nil
	}}, "")
	me, _ := callOK[WhoamiOut](t, s, "awp_whoami", nil)
	if me.Name != "late" || ensured.Load() != 1 {
		t.Fatalf("whoami %+v after %d Ensure calls", me, ensured.Load())
	}
	callOK[WhoamiOut](t, s, "awp_whoami", nil)
	if ensured.Load() != 1 {
		t.Fatalf("Ensure called again with the peer running")
	}
	// Ensure failing is said as such.
	dir2 := localapitest.ShortTempDir(t)
	s2 := connect(t, dir2, nil, Options{Ensure: func(context.Context) error { return errTest }}, "")
	if msg := callErr(t, s2, "awp_peers", nil); !strings.Contains(msg, "starting one failed: test failure") {
		t.Fatalf("failing Ensure: %q", msg)
	}
}

type testError string

func (e testError) Error() string { return string(e) }

const errTest = testError("test failure")

func TestBadArguments(t *testing.T) {
	a, _ := pair(t)
	twin1 := startNode(t, "twin")
	twin2 := startNode(t, "twin")
	link(t, a, twin1)
	link(t, a, twin2)
	s := open(t, a)
	for _, c := range []struct {
		tool string
		args args
		want string
	}{
		{"awp_send", args{"to": "bob"}, "nothing to send"},
		{"awp_send", args{"to": "", "text": "x"}, "to is empty"},
		{"awp_send", args{"to": "bob", "text": "x", "th": "thread-1"}, "not a thread id"},
		{"awp_send", args{"to": "bob", "text": "x", "re": "abc"}, "not a line id"},
		{"awp_send", args{"to": "bob", "lang": "go", "text": "x"}, "lang goes with code"},
		{"awp_send", args{"to": "bob", "mime": "text/csv", "text": "x"}, "mime goes with data"},
		{"awp_send", args{"to": "bob", "files": []string{"/nonexistent/file"}}, "no such file"},
		{"awp_send", args{"to": "bob", "files": []string{t.TempDir()}}, "not a regular file"},
		{"awp_send", args{"to": "nobody", "text": "x"}, "awp_peers"},
		{"awp_send", args{"to": "twin", "text": "x"}, "matches 2 peers"},
		{"awp_send", args{"text": "x"}, "to"},
		{"awp_send", args{"to": "bob", "text": "x", "colour": "red"}, "colour"},
		{"awp_show", args{}, "th"},
		{"awp_show", args{"th": "thr_nothere"}, "no such thread"},
		{"awp_show", args{"th": "x"}, "not a thread id"},
		{"awp_inbox", args{"from": "nobody"}, "awp_peers"},
		{"awp_wait", args{"th": "bad", "timeout_s": 1}, "not a thread id"},
	} {
		msg := callErr(t, s, c.tool, c.args)
		t.Logf("%s: %s", c.tool, msg)
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s %v: %q, want %q in it", c.tool, c.args, msg, c.want)
		}
	}
	// An unknown tool is a protocol error, and the session goes on.
	if _, err := s.CallTool(context.Background(), callParams("awp_nope", nil)); err == nil {
		t.Error("unknown tool answered")
	}
	callOK[WhoamiOut](t, s, "awp_whoami", nil)
}
