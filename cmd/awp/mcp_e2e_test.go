package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/awp-tray/awp-tray/cmd/awp/internal/mcpserver"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/localapi/localapitest"
)

// agent is one `awp mcp --run` process and an MCP client session with it.
type agent struct {
	name, dir string
	cs        *mcp.ClientSession
	mu        sync.Mutex
	log       strings.Builder // mu guards
	logs      sync.WaitGroup
	closed    bool
}

// startAgent runs `awp mcp --run --keyring file` on dir (plus extra run
// flags) as a coding agent's harness would, and connects the SDK's client
// to it over the process's stdin and stdout.
func startAgent(t *testing.T, name, dir string, extra ...string) *agent {
	t.Helper()
	a := &agent{name: name, dir: dir}
	args := append([]string{"mcp", "--run", "--keyring", "file", "--data", dir, "--name", name, "--workspace", t.TempDir()}, extra...)
	cmd := exec.Command(awpBinary(t), args...)
	cmd.Env = append(os.Environ(), "AWP_DATA=", "AWP_KEYRING=")
	// Our own pipe, not StderrPipe: the SDK's Close waits for the process
	// (cmd.Wait), which would close a StderrPipe before the scanner has
	// read the last lines ("stopped"). This one ends when the process does.
	stderr, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = w
	a.logs.Add(1)
	go func() {
		defer a.logs.Done()
		defer stderr.Close()
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			t.Logf("%s: %s", name, sc.Text())
			a.mu.Lock()
			a.log.WriteString(sc.Text() + "\n")
			a.mu.Unlock()
		}
	}()
	// A long TerminateDuration: the process must end by itself on stdin EOF.
	tr := &mcp.CommandTransport{Command: cmd, TerminateDuration: 30 * time.Second}
	a.cs, err = mcp.NewClient(&mcp.Implementation{Name: "e2e-" + name, Version: "1"}, nil).Connect(context.Background(), tr, nil)
	w.Close() // the process has its copy
	if err != nil {
		t.Fatalf("%s: connect: %v", name, err)
	}
	t.Cleanup(func() {
		if !a.closed {
			a.close(t)
		}
	})
	return a
}

// close ends the session (stdin EOF) and checks the process stopped its
// peer cleanly and exited 0.
func (a *agent) close(t *testing.T) {
	t.Helper()
	a.closed = true
	if err := a.cs.Close(); err != nil {
		t.Errorf("%s: awp mcp ended with %v, want status 0", a.name, err)
	}
	a.logs.Wait()
	a.mu.Lock()
	log := a.log.String()
	a.mu.Unlock()
	checkStoppedCleanly(t, a.name, a.dir, log)
}

// call calls a tool and decodes its structured output; a tool error fails
// the test.
func agentCall[T any](t *testing.T, a *agent, tool string, args map[string]any) T {
	t.Helper()
	var out T
	res, err := a.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %s: %v", a.name, tool, err)
	}
	if res.IsError {
		t.Fatalf("%s %s: tool error: %v", a.name, tool, res.Content)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s %s: %s: %v", a.name, tool, b, err)
	}
	return out
}

// TestMCPAgentsThroughApproval: two agents, each with its own `awp mcp
// --run`, exchange a request and its result through their tools, while a
// third node (`awp run --approve ask`) holds the request the second agent
// sends it until `awp decide` allows it.
func TestMCPAgentsThroughApproval(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs three peers")
	}
	dirA, dirB, dirC := localapitest.ShortTempDir(t), localapitest.ShortTempDir(t), localapitest.ShortTempDir(t)
	c := startPeer(t, "node-c", dirC, "--approve", "ask", "--approval-timeout", "5m", "--workspace", t.TempDir())
	b := startAgent(t, "agent-b", dirB, "--dial", c.listen[0])
	a := startAgent(t, "agent-a", dirA)

	meB := agentCall[mcpserver.WhoamiOut](t, b, "awp_whoami", nil)
	meA := agentCall[mcpserver.WhoamiOut](t, a, "awp_whoami", nil)
	if meA.Name != "agent-a" || len(meB.Listen) != 1 {
		t.Fatalf("whoami: %+v, %+v", meA, meB)
	}
	// The in-process peer serves the local API: the command line drives it.
	if got := strings.TrimSpace(cli(t, "connect", "--data", dirA, meB.Listen[0])); got != meB.Key {
		t.Fatalf("connect printed %q, want agent-b's key", got)
	}

	// 1. agent-a asks agent-b for something only node-c can do.
	ask := agentCall[mcpserver.SendOut](t, a, "awp_send", map[string]any{"to": "agent-b", "subject": "echo on node-c",
		"text": "Please run `echo from-c` on node-c and send me what it prints."})
	// 2. agent-b hears it.
	heard := agentCall[mcpserver.WaitOut](t, b, "awp_wait", map[string]any{"timeout_s": 60})
	if len(heard.Threads) != 1 || heard.Threads[0].Lines[0].ID != ask.ID || heard.Threads[0].PeerName != "agent-a" {
		t.Fatalf("agent-b heard %+v", heard)
	}
	// 3. agent-b sends the request to node-c, which holds it for a person.
	type result struct {
		out mcpserver.RequestOut
		err error
	}
	done := make(chan result, 1)
	sentAt := time.Now()
	go func() {
		res, err := b.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "awp_request", Arguments: map[string]any{
			"to": "node-c", "kind": "exec", "cmd": []string{"echo", "from-c"}, "timeout_s": 300}})
		var r result
		if err == nil && res.IsError {
			err = &toolErr{res}
		}
		if err == nil {
			bs, _ := json.Marshal(res.StructuredContent)
			err = json.Unmarshal(bs, &r.out)
		}
		r.err = err
		done <- r
	}()
	var pend []peer.ApprovalRequest
	eventually(t, "the request held at node-c", func() (bool, string) {
		pend = awpJSON[[]peer.ApprovalRequest](t, "pending", "--data", dirC, "--json")
		return len(pend) == 1, "pending: " + strings.Repeat("*", len(pend))
	})
	if pend[0].From.String() != meB.Key || pend[0].Kind != peer.ApprovalProfile || pend[0].Caps[0] != "exec" {
		t.Fatalf("held request = %+v", pend[0])
	}
	var detail struct {
		Exp string `json:"exp"`
	}
	if err := json.Unmarshal(pend[0].Detail, &detail); err != nil || detail.Exp == "" {
		t.Fatalf("held request without exp: %s", pend[0].Detail)
	}
	if exp, err := time.Parse(time.RFC3339, detail.Exp); err != nil || exp.Before(sentAt.Add(299*time.Second)) || exp.After(time.Now().Add(300*time.Second)) {
		t.Fatalf("exp %q (%v) is not the request's sending time + timeout_s", detail.Exp, err)
	}
	select {
	case r := <-done:
		t.Fatalf("awp_request returned before the decision: %+v", r)
	default:
	}
	cli(t, "decide", "--data", dirC, pend[0].ID, "allow")
	r := <-done
	if r.err != nil {
		t.Fatalf("awp_request: %v", r.err)
	}
	var exec struct {
		Exit   int    `json:"exit"`
		Stdout string `json:"stdout"`
	}
	if err := json.Unmarshal(r.out.Result, &exec); err != nil || exec.Exit != 0 || exec.Stdout != "from-c\n" {
		t.Fatalf("result = %s (%v)", r.out.Result, err)
	}

	// 4. agent-b answers agent-a in the same thread; 5. agent-a hears it.
	agentCall[mcpserver.SendOut](t, b, "awp_send", map[string]any{"to": "agent-a", "th": ask.Th, "re": ask.ID,
		"text": "node-c printed: " + exec.Stdout, "data": json.RawMessage(r.out.Result)})
	answer := agentCall[mcpserver.WaitOut](t, a, "awp_wait", map[string]any{"th": ask.Th, "timeout_s": 60})
	if len(answer.Threads) != 1 || len(answer.Threads[0].Lines) != 1 {
		t.Fatalf("agent-a heard %+v", answer)
	}
	l := answer.Threads[0].Lines[0]
	if l.Re != ask.ID || l.Text != "node-c printed: from-c\n" || l.FromName != "agent-b" || len(l.Parts) != 1 || l.Parts[0].K != "data" {
		t.Fatalf("the answer = %+v", l)
	}

	// The sessions end; each agent's peer stops cleanly with it.
	a.close(t)
	b.close(t)
	if _, code, errs := cliCode(t, "threads", "--data", dirA, "--json"); code != 1 || !strings.Contains(errs, "no peer is running") {
		t.Fatalf("agent-a's peer still answers after the session: exit %d %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dirA, "identity.key")); err != nil {
		t.Fatalf("agent-a's identity: %v", err)
	}
}

type toolErr struct{ res *mcp.CallToolResult }

func (e *toolErr) Error() string {
	b, _ := json.Marshal(e.res.Content)
	return "tool error: " + string(b)
}
