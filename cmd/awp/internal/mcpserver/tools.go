package mcpserver

import (
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addTools registers the tools (issue 19 names them; docs/protocol/cli.md
// lists them).
func (s *Server) addTools() {
	mcp.AddTool(s.mcp, tool[noArgs, WhoamiOut]("awp_whoami", "Who am I on AWP",
		"This peer's key, name, listen addresses and invite.", readOnly, nil), s.whoami)

	mcp.AddTool(s.mcp, tool[PeersIn, PeersOut]("awp_peers", "Known AWP peers",
		"The peers this one knows: key, name, whether connected now and trusted, and a summary of what each last published about itself (harness, model, host, threads, unread).",
		readOnly, nil), s.peers)

	mcp.AddTool(s.mcp, tool[SendIn, SendOut]("awp_send", "Send an AWP message",
		"Send one message to a peer: text, code, a JSON data value and files, in a new thread (give a subject) or an existing one (th). "+
			"The message is stored before this returns and delivered when the peer is reachable. Answers come with awp_wait.",
		talks, nil), s.send)

	mcp.AddTool(s.mcp, tool[InboxIn, InboxOut]("awp_inbox", "Unread AWP lines",
		fmt.Sprintf("Threads with unread lines, newest first, each with those lines (at most %d lines an answer), and marks them read unless peek. Returns at once; awp_wait waits.", MaxAnswerLines),
		marks, nil), s.inbox)

	mcp.AddTool(s.mcp, tool[WaitIn, WaitOut]("awp_wait", "Wait for an AWP line",
		"Wait until a line arrives for this peer (in thread th, or from peer from, when given) and return it; lines already unread return at once. "+
			"Returns empty-handed with timed_out after timeout_s. Marks what it returns read unless peek. Sends progress notifications while waiting and stops when the call is canceled.",
		marks, func(in *jsonschema.Schema) {
			intRange(in, "timeout_s", 1, MaxWaitSeconds, DefaultWaitSeconds)
		}), s.wait)

	mcp.AddTool(s.mcp, tool[ShowIn, ShowOut]("awp_show", "Show an AWP thread",
		"One thread's lines in order: the newest limit lines, or the first limit lines after seq after. Does not mark them read.",
		readOnly, func(in *jsonschema.Schema) {
			intRange(in, "limit", 1, MaxShowLimit, DefaultShowLimit)
		}), s.show)

	mcp.AddTool(s.mcp, requestTool(), s.request)

	mcp.AddTool(s.mcp, tool[noArgs, PresenceOut]("awp_presence", "AWP presence",
		"The presence table: who is around (directly or relayed), with harness, model and host, their peers, and their threads and states when they publish them.",
		readOnly, nil), s.presence)
}
