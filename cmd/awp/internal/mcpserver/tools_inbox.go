package mcpserver

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/localapi"
)

// awp_inbox and awp_show: what is unread, and one thread.

// InboxIn is awp_inbox's input.
type InboxIn struct {
	Th   string `json:"th,omitempty" jsonschema:"only this thread"`
	From string `json:"from,omitempty" jsonschema:"only threads with this peer (key, key prefix or name)"`
	Peek bool   `json:"peek,omitempty" jsonschema:"leave the lines unread"`
}

// InboxOut is awp_inbox's and awp_wait's answer.
type InboxOut struct {
	Threads []ThreadLines `json:"threads" jsonschema:"threads with unread lines, newest first, each with those lines"`
	More    bool          `json:"more,omitempty" jsonschema:"more threads have unread lines than one answer holds: call again"`
	Peeked  bool          `json:"peeked,omitempty" jsonschema:"the lines were left unread"`
}

func (s *Server) inbox(ctx context.Context, _ *mcp.CallToolRequest, in InboxIn) (*mcp.CallToolResult, InboxOut, error) {
	f, err := s.filter(ctx, in.Th, in.From)
	if err != nil {
		return nil, InboxOut{}, err
	}
	ths, more, err := s.unread(ctx, f, in.Peek)
	if err != nil {
		return nil, InboxOut{}, err
	}
	out := InboxOut{Threads: nonNil(ths), More: more, Peeked: in.Peek}
	return text(renderInbox(out, "Nothing unread.")), out, nil
}

// filter checks and resolves the th and from arguments of awp_inbox and
// awp_wait.
func (s *Server) filter(ctx context.Context, th, from string) (filter, error) {
	if err := checkTh("th", th); err != nil {
		return filter{}, err
	}
	f := filter{th: th}
	if strings.TrimSpace(from) != "" {
		k, err := s.resolve(ctx, from)
		if err != nil {
			return filter{}, err
		}
		f.from = k
	}
	return f, nil
}

// ShowIn is awp_show's input.
type ShowIn struct {
	Th     string `json:"th" jsonschema:"the thread"`
	Limit  int    `json:"limit,omitempty" jsonschema:"at most this many lines"`
	After  uint64 `json:"after,omitempty" jsonschema:"only lines after this seq, oldest first (default: the newest lines)"`
	Sharer string `json:"sharer,omitempty" jsonschema:"for a thread another peer mirrors to this one: that peer"`
	Full   bool   `json:"full,omitempty" jsonschema:"every part whole, however large"`
}

// ShowOut is awp_show's answer.
type ShowOut struct {
	ThreadHead
	Unread  int    `json:"unread" jsonschema:"lines not yet read (awp_show does not mark them)"`
	Total   int    `json:"total" jsonschema:"lines in the thread"`
	Earlier int    `json:"earlier" jsonschema:"lines before the first one shown"`
	Later   int    `json:"later" jsonschema:"lines after the last one shown"`
	Lines   []Line `json:"lines"`
}

func (s *Server) show(ctx context.Context, _ *mcp.CallToolRequest, in ShowIn) (*mcp.CallToolResult, ShowOut, error) {
	if in.Th == "" {
		return nil, ShowOut{}, badArg("th is required: take it from awp_inbox, awp_wait or a line you sent")
	}
	if err := checkTh("th", in.Th); err != nil {
		return nil, ShowOut{}, err
	}
	limit := in.Limit
	if limit == 0 {
		limit = DefaultShowLimit
	}
	var sharer key.PublicKey
	if strings.TrimSpace(in.Sharer) != "" {
		k, err := s.resolve(ctx, in.Sharer)
		if err != nil {
			return nil, ShowOut{}, err
		}
		sharer = k
	}
	out, err := s.thread(ctx, in.Th, sharer, in.After, limit, in.Full)
	if err != nil {
		return nil, ShowOut{}, err
	}
	return text(renderShow(out)), out, nil
}

// thread reads up to limit lines of thread th (mirrored from sharer, the
// zero key for this peer's own): the first ones after seq after, or with
// after 0 the newest ones.
func (s *Server) thread(ctx context.Context, th string, sharer key.PublicKey, after uint64, limit int, full bool) (ShowOut, error) {
	lines, err := call(s, ctx, func(ctx context.Context) ([]peer.LineInfo, error) { return s.c.Lines(ctx, th, sharer) })
	if err != nil {
		return ShowOut{}, err
	}
	ths, err := call(s, ctx, s.c.Threads)
	if err != nil {
		return ShowOut{}, err
	}
	id, err := call(s, ctx, s.c.Identity)
	if err != nil {
		return ShowOut{}, err
	}
	out := ShowOut{ThreadHead: ThreadHead{Th: th}, Total: len(lines), Lines: []Line{}}
	var other key.PublicKey
	for _, t := range ths {
		if t.Th == th && t.MirroredFrom == sharer {
			other = t.Peer
			out.ThreadHead, out.Unread = threadHead(t), t.Unread
			break
		}
	}
	names := namer(id, other, out.PeerName)
	lo, hi := 0, len(lines) // the window shown: lines[lo:hi]
	if after > 0 {
		for lo < len(lines) && lines[lo].Seq <= after {
			lo++
		}
		hi = min(lo+limit, len(lines))
	} else {
		lo = max(hi-limit, 0)
	}
	for _, li := range lines[lo:hi] {
		out.Lines = append(out.Lines, lineView(th, li, names, full))
	}
	out.Earlier, out.Later = lo, len(lines)-hi
	return out, nil
}

// namer names this peer and the other party of a thread.
func namer(id localapi.Identity, other key.PublicKey, otherName string) func(key.PublicKey) string {
	return func(k key.PublicKey) string {
		switch k {
		case id.Key:
			return id.Name
		case other:
			return otherName
		}
		return ""
	}
}
