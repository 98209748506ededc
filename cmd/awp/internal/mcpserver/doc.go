// Package mcpserver is `awp mcp`: AWP as Model Context Protocol tools and
// resources for a coding agent, served with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk) over whatever transport the
// caller gives (stdio for `awp mcp`, in-memory pipes in tests).
//
// The server holds no AWP state of its own. Every tool call goes to the
// running peer of a data directory over its local API
// (peer/localapi.Client): the peer keeps threads, unread counts, grants and
// the event stream, so an agent sees what `awp threads` and the tray see.
// When nothing runs, a tool call is a tool error saying how to start one;
// Options.Ensure lets `awp mcp --run` start the peer instead.
//
// # Tools
//
//	awp_whoami    this peer's key, name, listen addresses, invite
//	awp_peers     known peers with a presence summary
//	awp_send      one msg: text, code, data, files (as blobs)
//	awp_inbox     unread lines of every thread, marked read unless peek
//	awp_wait      blocks until an unread line is there (progress while waiting)
//	awp_show      one thread's lines
//	awp_request   exec / fs:read / fs:write on a peer, with exp; asks for a grant when refused
//	awp_presence  the presence table
//
// Every tool has a JSON input schema and an output schema; a result
// carries the structured output and a text rendering for clients that show
// only text. Failures an agent can act on (bad arguments, unknown peers,
// forbidden, expired, no answer in time, no peer running) are tool errors
// (isError) whose text says what to do next; the server never exits on a
// bad call.
//
// # Resources
//
// awp://inbox is the unread lines (read without marking them read), and
// the template awp://thread/{th} one thread. Both are subscribable: a line
// stored in a thread sends notifications/resources/updated for that
// thread and for the inbox to the sessions subscribed to them.
//
// # Unread lines
//
// The peer counts unread inbound lines per thread and marks a whole thread
// read at once. awp_inbox and awp_wait hand out exactly the lines that were
// unread: they read the thread list again after marking, so a line that
// arrives between reading the lines and marking the thread read is handed
// out in the same answer, and one that arrives after stays unread for the
// next call (unread.go).
package mcpserver
