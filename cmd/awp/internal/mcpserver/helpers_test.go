package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/awp-tray/awp-tray/internal/nodetest"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/localapi"
	"github.com/awp-tray/awp-tray/peer/localapi/localapitest"
)

// These tests run the server against real nodes (peer.Node on temporary
// stores, linked over tcp://127.0.0.1:0, each serving its local API on a
// real socket) and talk to it with the SDK's own client over in-memory
// transports.

// node is a running peer and a local API client for it.
type node struct {
	*peer.Node
	dir string
	c   *localapi.Client
}

// startNode starts a node (nodetest.New) with a key of its own, on a
// fresh data directory (short enough for its socket), with its workspace
// in a temporary directory, and serves its local API until the test ends.
func startNode(t testing.TB, name string, mod ...func(*peer.Config)) *node {
	t.Helper()
	mods := append([]func(*peer.Config){nodetest.RandomKey(t), func(c *peer.Config) {
		c.DataDir, c.Workspace = localapitest.ShortTempDir(t), t.TempDir()
		c.Approver = peer.DenyAll{}
		c.PresenceDebounce = 20 * time.Millisecond
	}}, mod...)
	n := nodetest.New(t, name, 0, mods...)
	dir := n.DataDir() // a mod may choose it
	l, err := localapi.Listen(localapi.SocketPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	srv := &localapi.Server{Backend: n}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	t.Cleanup(func() { // before nodetest's Close of the node
		srv.Close()
		if err := <-served; err != nil {
			t.Errorf("%s: serve: %v", name, err)
		}
	})
	return &node{Node: n, dir: dir, c: localapi.NewClient(localapi.SocketPath(dir))}
}

// link connects a to b and waits for the handshake (nodetest.Link).
func link(t testing.TB, a, b *node) { nodetest.Link(t, a.Node, b.Node) }

// pair starts alice and bob, linked.
func pair(t testing.TB, modBob ...func(*peer.Config)) (alice, bob *node) {
	alice = startNode(t, "alice")
	bob = startNode(t, "bob", modBob...)
	link(t, alice, bob)
	return alice, bob
}

// session is an MCP client session with a Server for a node's data
// directory.
type session struct {
	*mcp.ClientSession
	s *Server
}

// connect serves a Server for the peer of dir to an SDK client over
// in-memory transports; opts configure the client (handlers), o the
// server.
func connect(t testing.TB, dir string, copts *mcp.ClientOptions, o Options, version string) *session {
	t.Helper()
	o.DataDir = dir
	if o.ProgressInterval == 0 {
		o.ProgressInterval = 20 * time.Millisecond
	}
	s := New(localapi.NewClient(localapi.SocketPath(dir)), o)
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		s.Close()
	})
	return &session{ClientSession: cs, s: s}
}

// open is connect with default options.
func open(t testing.TB, n *node) *session {
	return connect(t, n.dir, nil, Options{}, "")
}

// callTool calls tool name with args and fails the test on a protocol error.
func callTool(t testing.TB, s *session, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// structured decodes a tool's structured output into T.
func structured[T any](res *mcp.CallToolResult) (T, error) {
	var out T
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return out, err
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return out, fmt.Errorf("structured output %s: %w", b, err)
	}
	return out, nil
}

// callOK calls tool name with args, fails the test on a protocol error or
// a tool error, and decodes the structured output into T.
func callOK[T any](t testing.TB, s *session, name string, args any) (T, string) {
	t.Helper()
	res := callTool(t, s, name, args)
	txt := textOf(res)
	if res.IsError {
		t.Fatalf("%s: tool error: %s", name, txt)
	}
	out, err := structured[T](res)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out, txt
}

// try calls tool name with args and reports whether it answered without
// a tool error, with the structured output decoded into T.
func try[T any](t testing.TB, s *session, name string, args any) (T, bool) {
	t.Helper()
	res := callTool(t, s, name, args)
	if res.IsError {
		var zero T
		return zero, false
	}
	out, err := structured[T](res)
	return out, err == nil
}

// callErr calls tool name with args and returns the text of the tool
// error it must answer with.
func callErr(t testing.TB, s *session, name string, args any) string {
	t.Helper()
	res := callTool(t, s, name, args)
	if !res.IsError {
		t.Fatalf("%s: no tool error; answer %s", name, textOf(res))
	}
	return textOf(res)
}

func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// args is a tool's arguments.
type args = map[string]any

// decode reads a result's structured output into v.
func decode(t testing.TB, res *mcp.CallToolResult, v any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", textOf(res))
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structured output %s: %v", b, err)
	}
}

func callParams(name string, a any) *mcp.CallToolParams {
	return &mcp.CallToolParams{Name: name, Arguments: a}
}

// decodeAny reads a result's structured output into v, tool error or not.
func decodeAny(t testing.TB, res *mcp.CallToolResult, v any) {
	t.Helper()
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structured output %s: %v", b, err)
	}
}
