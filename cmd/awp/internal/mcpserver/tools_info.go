package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/awp-tray/awp-tray/peer/presence"
)

// awp_whoami, awp_peers and awp_presence: who is here and who is around.

type noArgs struct{}

// WhoamiOut is awp_whoami's answer.
type WhoamiOut struct {
	Key    string   `json:"key" jsonschema:"this peer's key"`
	Name   string   `json:"name"`
	Listen []string `json:"listen" jsonschema:"addresses this peer listens on"`
	Invite string   `json:"invite" jsonschema:"this peer's invite (awp:…): another peer's owner adds it with awp add"`
}

func (s *Server) whoami(ctx context.Context, _ *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, WhoamiOut, error) {
	id, err := call(s, ctx, s.c.Identity)
	if err != nil {
		return nil, WhoamiOut{}, err
	}
	inv, err := call(s, ctx, s.c.Invite)
	if err != nil {
		return nil, WhoamiOut{}, err
	}
	out := WhoamiOut{Key: id.Key.String(), Name: id.Name, Listen: nonNil(id.Listen), Invite: inv}
	return text(renderWhoami(out)), out, nil
}

// PeersIn is awp_peers' input.
type PeersIn struct {
	Up bool `json:"up,omitempty" jsonschema:"list only peers connected now"`
}

// PeerOut is one known peer.
type PeerOut struct {
	Key          string           `json:"key"`
	Name         string           `json:"name,omitempty"`
	About        string           `json:"about,omitempty"`
	Up           bool             `json:"up" jsonschema:"connected now"`
	Trusted      bool             `json:"trusted" jsonschema:"on this peer's trust list"`
	RTTms        int64            `json:"rtt_ms,omitempty" jsonschema:"round trip time in milliseconds"`
	LastSeen     string           `json:"last_seen,omitempty"`
	IntroducedBy string           `json:"introduced_by,omitempty"`
	Listen       []string         `json:"listen,omitempty"`
	Presence     *PresenceSummary `json:"presence,omitempty" jsonschema:"what the peer last published about itself"`
}

// PresenceSummary is the gist of a peer's presence document.
type PresenceSummary struct {
	Harness  string `json:"harness,omitempty" jsonschema:"the agent harness (claude-code, codex…)"`
	Model    string `json:"model,omitempty"`
	Host     string `json:"host,omitempty"`
	Threads  int    `json:"threads" jsonschema:"threads it publishes"`
	Unread   int    `json:"unread" jsonschema:"lines it has not read"`
	Received string `json:"received" jsonschema:"when this peer received the document"`
}

// PeersOut is awp_peers' answer.
type PeersOut struct {
	Peers []PeerOut `json:"peers"`
}

func (s *Server) peers(ctx context.Context, _ *mcp.CallToolRequest, in PeersIn) (*mcp.CallToolResult, PeersOut, error) {
	ps, err := call(s, ctx, s.c.Peers)
	if err != nil {
		return nil, PeersOut{}, err
	}
	pres, err := call(s, ctx, s.c.Presence)
	if err != nil {
		return nil, PeersOut{}, err
	}
	summaries := map[string]*PresenceSummary{}
	for _, p := range pres {
		var d presence.Doc
		if json.Unmarshal(p.Doc, &d) != nil {
			continue
		}
		summaries[d.Origin] = &PresenceSummary{Harness: d.Harness, Model: d.Model, Host: d.Host,
			Threads: len(d.Threads), Unread: d.Unread, Received: p.Received}
	}
	out := PeersOut{Peers: []PeerOut{}}
	for _, p := range ps {
		if in.Up && !p.Up {
			continue
		}
		out.Peers = append(out.Peers, PeerOut{Key: p.Key.String(), Name: p.Name, About: p.About, Up: p.Up, Trusted: p.Trusted,
			RTTms: p.RTTms, LastSeen: p.LastSeen, IntroducedBy: p.IntroducedBy.String(), Listen: p.Listen, Presence: summaries[p.Key.String()]})
	}
	return text(renderPeers(out)), out, nil
}

// PresenceEntry is one origin's newest presence document.
type PresenceEntry struct {
	Origin   string                 `json:"origin" jsonschema:"the key that published it"`
	Name     string                 `json:"name,omitempty"`
	Harness  string                 `json:"harness,omitempty"`
	Model    string                 `json:"model,omitempty"`
	Host     string                 `json:"host,omitempty"`
	Version  string                 `json:"version,omitempty"`
	Unread   int                    `json:"unread"`
	Hops     int                    `json:"hops" jsonschema:"1: from the origin itself; more: relayed"`
	Received string                 `json:"received"`
	Peers    []presence.PeerEntry   `json:"peers" jsonschema:"the origin's peers"`
	Threads  []presence.ThreadEntry `json:"threads" jsonschema:"the origin's threads with their states (only when it publishes them)"`
}

// PresenceOut is awp_presence's answer.
type PresenceOut struct {
	Entries    []PresenceEntry `json:"entries"`
	Publishing string          `json:"publishing" jsonschema:"what this peer publishes: full, peers or none"`
}

func (s *Server) presence(ctx context.Context, _ *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, PresenceOut, error) {
	pres, err := call(s, ctx, s.c.Presence)
	if err != nil {
		return nil, PresenceOut{}, err
	}
	detail, err := call(s, ctx, s.c.PresenceDetail)
	if err != nil {
		return nil, PresenceOut{}, err
	}
	out := PresenceOut{Entries: []PresenceEntry{}, Publishing: detail}
	for _, p := range pres {
		var d presence.Doc
		if json.Unmarshal(p.Doc, &d) != nil {
			continue
		}
		out.Entries = append(out.Entries, PresenceEntry{Origin: d.Origin, Name: d.Name, Harness: d.Harness, Model: d.Model,
			Host: d.Host, Version: d.Version, Unread: d.Unread, Hops: p.Hops, Received: p.Received,
			Peers: nonNil(d.Peers), Threads: nonNil(d.Threads)})
	}
	return text(renderPresence(out)), out, nil
}

// text is a result whose content is s (the structured output is added by
// the SDK).
func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// nonNil makes an empty list encode as [] (the output schemas want arrays).
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
