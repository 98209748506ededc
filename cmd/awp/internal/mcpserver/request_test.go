package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// policy is an Approver made of a function.
type policy func(peer.ApprovalRequest) peer.Decision

func (p policy) Approve(_ context.Context, r peer.ApprovalRequest) (peer.Decision, bool) {
	return p(r), true
}

// grantTo has b issue a grant of caps to a and waits until a stored it.
func grantTo(t *testing.T, b, a *node, caps ...string) {
	t.Helper()
	if _, err := b.Grant(context.Background(), a.Key(), caps, time.Hour, nil, "test"); err != nil {
		t.Fatal(err)
	}
	testsync.Eventually(t, "the grant at alice", func() bool {
		gs, _ := a.Grants()
		return len(gs) > 0
	})
}

// requestData finds the data of the request line in thread th at n.
func storedRequest(t *testing.T, n *node, th string) map[string]any {
	t.Helper()
	lines, err := n.Lines(th, key.PublicKey{})
	if err != nil {
		t.Fatal(err)
	}
	for _, li := range lines {
		f, err := wire.Decode(li.Line)
		if err != nil {
			continue
		}
		if m, ok := f.(*wire.Msg); ok {
			for _, p := range m.DecodeParts() {
				if p.K == wire.PartData && strings.HasSuffix(p.Mime, "exec+json") || strings.HasSuffix(p.Mime, "fs-read+json") {
					var d map[string]any
					if err := json.Unmarshal(p.Data, &d); err != nil {
						t.Fatal(err)
					}
					return d
				}
			}
		}
	}
	t.Fatalf("no request line in %s at %s", th, n.Name())
	return nil
}

// checkExp checks that a request's exp is the answer's exp and lies
// timeout from when it was sent.
func checkExp(t *testing.T, d map[string]any, out RequestOut, sent time.Time, timeout time.Duration) {
	t.Helper()
	exp, _ := d["exp"].(string)
	if exp == "" || exp != out.Exp {
		t.Fatalf("request exp %q, answer exp %q", exp, out.Exp)
	}
	e, err := wire.ParseTime(exp)
	if err != nil {
		t.Fatal(err)
	}
	if lo, hi := sent.Add(timeout-time.Second), time.Now().Add(timeout); e.Before(lo) || e.After(hi) {
		t.Fatalf("exp %v not within [%v, %v]", e, lo, hi)
	}
}

func TestRequestExecWithGrant(t *testing.T) {
	a, b := pair(t)
	grantTo(t, b, a, "exec", "fs:read", "fs:write")
	s := open(t, a)
	sent := time.Now()
	out, txt := callOK[RequestOut](t, s, "awp_request", args{"to": "bob", "kind": "exec",
		"cmd": []string{"sh", "-c", "echo hello; echo oops >&2; exit 3"}, "timeout_s": 60})
	var r struct {
		Exit   int    `json:"exit"`
		Stdout string `json:"stdout"`
		Stderr string `json:"stderr"`
	}
	if err := json.Unmarshal(out.Result, &r); err != nil {
		t.Fatal(err)
	}
	if r.Exit != 3 || r.Stdout != "hello\n" || r.Stderr != "oops\n" || out.Error != "" || out.To != b.Key().String() {
		t.Fatalf("exec answer = %+v, result %+v", out, r)
	}
	if !strings.Contains(txt, "exit 3") || !strings.Contains(txt, "hello") {
		t.Errorf("text = %q", txt)
	}
	checkExp(t, storedRequest(t, b, out.Th), out, sent, 60*time.Second)

	// fs:write then fs:read round trip, and a shell string command.
	w, _ := callOK[RequestOut](t, s, "awp_request", args{"to": "bob", "kind": "fs:write", "path": "dir/f.txt", "content": "written", "mkdir": true})
	if !strings.Contains(string(w.Result), `"written":7`) {
		t.Fatalf("fs:write = %s", w.Result)
	}
	rd, txt := callOK[RequestOut](t, s, "awp_request", args{"to": "bob", "kind": "fs:read", "path": "dir/f.txt"})
	if !strings.Contains(string(rd.Result), `"content":"written"`) || !strings.Contains(txt, "written") {
		t.Fatalf("fs:read = %s", rd.Result)
	}
	sh, _ := callOK[RequestOut](t, s, "awp_request", args{"to": "bob", "kind": "exec", "cmd": "cat dir/f.txt"})
	if !strings.Contains(string(sh.Result), `"stdout":"written"`) {
		t.Fatalf("exec string = %s", sh.Result)
	}
	// A failed request is a tool error that still says what came back.
	msg := callErr(t, s, "awp_request", args{"to": "bob", "kind": "fs:read", "path": "../outside"})
	if !strings.Contains(msg, "outside workspace") {
		t.Fatalf("outside the workspace: %q", msg)
	}
}

func TestRequestForbidden(t *testing.T) {
	a, _ := pair(t)
	s := open(t, a)
	msg := callErr(t, s, "awp_request", args{"to": "bob", "kind": "exec", "cmd": []string{"true"}})
	if !strings.Contains(msg, "forbidden") || !strings.Contains(msg, "ask_grant") {
		t.Fatalf("forbidden: %q", msg)
	}
	// The peer is named as awp_peers names it, not by a bare short key.
	if b := peerNamed(t, a, "bob"); !strings.Contains(msg, "bob ("+b.Short()+") holds no grant") {
		t.Fatalf("forbidden does not name bob: %q", msg)
	}
}

// peerNamed is the key of a's peer called name.
func peerNamed(t *testing.T, a *node, name string) key.PublicKey {
	t.Helper()
	ps, err := a.Peers()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.Name == name {
			return p.Key
		}
	}
	t.Fatalf("%s has no peer named %s", a.Name(), name)
	return key.PublicKey{}
}

// TestRequestAskGrant: bob refuses requests without a grant but grants
// what is asked; with ask_grant the request runs after the grant comes.
func TestRequestAskGrant(t *testing.T) {
	var asked peer.ApprovalRequest
	a, b := pair(t, func(c *peer.Config) {
		c.Approver = policy(func(r peer.ApprovalRequest) peer.Decision {
			if r.Kind == peer.ApprovalGrantRequest {
				asked = r
				return peer.Decision{Allow: true, By: "test"}
			}
			return peer.Decision{By: "test", Reason: "no grant"}
		})
	})
	s := open(t, a)
	out, _ := callOK[RequestOut](t, s, "awp_request", args{"to": "bob", "kind": "exec", "cmd": []string{"echo", "granted"},
		"ask_grant": true, "reason": "run the tests", "timeout_s": 60})
	if !strings.Contains(string(out.Result), `"stdout":"granted\n"`) {
		t.Fatalf("result after the grant = %s", out.Result)
	}
	g := out.GrantRequest
	if g == nil || g.Answer != "granted" || g.To != b.Key().String() || !strings.HasPrefix(g.Th, "thr_") {
		t.Fatalf("grant request = %+v", g)
	}
	if asked.Reason != "run the tests" || len(asked.Caps) != 1 || asked.Caps[0] != "exec" || asked.Sub != a.Key() ||
		len(asked.On) != 1 || asked.On[0] != b.Key() || asked.TTL != DefaultGrantTTLSeconds {
		t.Fatalf("bob was asked %+v", asked)
	}
}

func TestRequestAskGrantDenied(t *testing.T) {
	a, _ := pair(t, func(c *peer.Config) {
		c.Approver = policy(func(r peer.ApprovalRequest) peer.Decision {
			return peer.Decision{By: "test", Reason: "not today"}
		})
	})
	s := open(t, a)
	res, err := s.CallTool(context.Background(), callParams("awp_request", args{"to": "bob", "kind": "exec", "cmd": []string{"true"}, "ask_grant": true}))
	if err != nil || !res.IsError {
		t.Fatalf("denied grant: %v %+v", err, res)
	}
	var out RequestOut
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil || out.GrantRequest == nil || out.GrantRequest.Answer != "denied" || out.GrantRequest.Reason != "not today" {
		t.Fatalf("structured = %s (%v)", b, err)
	}
	if txt := textOf(res); !strings.Contains(txt, "bob ("+peerNamed(t, a, "bob").Short()+") denied") || !strings.Contains(txt, "not today") {
		t.Fatalf("text = %q", txt)
	}
}

// TestRequestTimeoutCarriesExp: bob holds the request for a person; the
// request he holds carries, as its exp, the moment the agent stops
// waiting; the agent gives up then, and bob withdraws the request at its
// exp, so nothing runs later.
func TestRequestTimeoutCarriesExp(t *testing.T) {
	a, b := pair(t, func(c *peer.Config) { c.Approver = nil; c.ApprovalTimeout = time.Minute })
	s := open(t, a)
	sent := time.Now()
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := s.CallTool(context.Background(), callParams("awp_request", args{"to": "bob", "kind": "exec",
			"cmd": []string{"touch", "ran"}, "timeout_s": 3}))
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	var pend []peer.ApprovalRequest
	testsync.Eventually(t, "the request held at bob", func() bool { pend = b.Pending(); return len(pend) == 1 })
	var d map[string]any
	if err := json.Unmarshal(pend[0].Detail, &d); err != nil {
		t.Fatal(err)
	}
	exp, _ := d["exp"].(string)
	e, err := wire.ParseTime(exp)
	if err != nil || e.Before(sent.Add(3*time.Second-10*time.Millisecond)) || e.After(time.Now().Add(3*time.Second)) {
		t.Fatalf("held request's exp %q (%v), sent at %v with timeout_s 3", exp, err, sent)
	}
	res := <-done
	if res == nil || !res.IsError {
		t.Fatalf("timed out request: %+v", res)
	}
	if txt := textOf(res); !strings.Contains(txt, "no answer") || !strings.Contains(txt, exp) {
		t.Fatalf("text = %q, want the exp %s in it", txt, exp)
	}
	testsync.Eventually(t, "bob to withdraw the request at its exp", func() bool { return len(b.Pending()) == 0 })
	if _, err := os.Stat(filepath.Join(b.Workspace(), "ran")); !os.IsNotExist(err) {
		t.Fatalf("the expired request ran: %v", err)
	}
}

// TestRequestExpiredResult: a peer that finds the request past its exp
// (here bob's clock runs an hour ahead) answers "expired"; the agent gets
// a tool error that says nothing ran, with the result.
func TestRequestExpiredResult(t *testing.T) {
	a, b := pair(t, func(c *peer.Config) { c.Now = func() time.Time { return time.Now().Add(time.Hour) } })
	grantTo(t, b, a, "exec")
	s := open(t, a)
	res, err := s.CallTool(context.Background(), callParams("awp_request", args{"to": "bob", "kind": "exec", "cmd": []string{"touch", "ran"}, "timeout_s": 60}))
	if err != nil || !res.IsError {
		t.Fatalf("expired request: %v %+v", err, res)
	}
	var out RequestOut
	decodeAny(t, res, &out)
	if out.Error != "expired" || !strings.Contains(textOf(res), "nothing ran") {
		t.Fatalf("answer %+v, text %q", out, textOf(res))
	}
	if _, err := os.Stat(filepath.Join(b.Workspace(), "ran")); !os.IsNotExist(err) {
		t.Fatalf("the expired request ran: %v", err)
	}
}

func TestRequestBadArguments(t *testing.T) {
	a, _ := pair(t)
	s := open(t, a)
	f := filepath.Join(t.TempDir(), "x")
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args args
		want string
	}{
		{args{"to": "bob", "kind": "exec"}, "needs cmd"},
		{args{"to": "bob", "kind": "exec", "cmd": []string{""}}, "cmd is empty"},
		{args{"to": "bob", "kind": "exec", "cmd": "ls", "path": "x"}, "path does not go with kind exec"},
		{args{"to": "bob", "kind": "fs:read"}, "needs path"},
		{args{"to": "bob", "kind": "fs:read", "path": "x", "content": "y"}, "content does not go with kind fs:read"},
		{args{"to": "bob", "kind": "rm", "path": "x"}, "kind"},
		{args{"to": "nobody-here", "kind": "fs:read", "path": "x"}, "awp_peers"},
		{args{"to": "bob", "kind": "fs:read", "path": "x", "th": "nope"}, "not a thread id"},
		{args{"to": "bob", "kind": "fs:read", "path": "x", "timeout_s": MaxRequestSeconds + 1}, "timeout_s"},
	} {
		if msg := callErr(t, s, "awp_request", c.args); !strings.Contains(msg, c.want) {
			t.Errorf("%v: %q, want %q in it", c.args, msg, c.want)
		}
	}
}
