package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/awp-tray/awp-tray/internal/visible"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/profile"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// askGrant follows a forbidden answer when ask_grant is set: it sends a
// grant request (docs/protocol/grants.md "Asking for a grant") to
// grant_from (default the peer asked),
// waits until the request's deadline for the answer, and when granted runs
// the request again under the same exp. The node stores a grant that
// arrives for it and attaches it to its next request, so the second try
// carries it.
func (s *Server) askGrant(ctx context.Context, in RequestIn, k key.PublicKey, mime string, data map[string]any, deadline time.Time, out RequestOut) (*mcp.CallToolResult, RequestOut, error) {
	from := k
	if strings.TrimSpace(in.GrantFrom) != "" {
		var err error
		if from, err = s.resolve(ctx, in.GrantFrom); err != nil {
			return nil, out, err
		}
	}
	id, err := call(s, ctx, s.c.Identity)
	if err != nil {
		return nil, out, err
	}
	ttl := in.GrantTTLS
	if ttl <= 0 {
		ttl = DefaultGrantTTLSeconds
	}
	reason := in.Reason
	if reason == "" {
		reason = describe(in)
	}
	gr := peer.GrantRequest{Caps: []string{profile.Cap(mime)}, Sub: id.Key.String(), On: []string{k.String()}, TTL: int64(ttl), Reason: reason}
	b, _ := json.Marshal(gr) // strings and numbers always marshal
	part, err := wire.DataPart(peer.MimeGrantRequest, b)
	if err != nil {
		return nil, out, err
	}
	dctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	// Subscribe before sending, so the answer cannot come first.
	stream, err := call(s, dctx, s.c.Watch)
	if err != nil {
		return nil, out, err
	}
	defer stream.Close()
	sent, err := call(s, dctx, func(ctx context.Context) (peer.SendResult, error) {
		return s.c.Send(ctx, peer.SendRequest{To: from, Subject: fmt.Sprintf("grant request: %s on %s", profile.Cap(mime), k.Short()),
			Parts: []json.RawMessage{part}})
	})
	if err != nil {
		return nil, out, err
	}
	ask := &GrantAsk{To: from.String(), Th: sent.Th, ID: sent.ID, Answer: "waiting"}
	out.GrantRequest = ask
	ev, err := watchFor(dctx, stream, func(ev peer.Event) bool {
		return ev.Type == peer.EventLine && ev.Th == sent.Th && ev.Line != nil && ev.Line.Dir == "in" && grantAnswer(ev.Line.Line, sent.ID) != ""
	})
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, out, ctx.Err()
	case err != nil && dctx.Err() != nil:
		label := s.labels(ctx)
		return toolError(out, fmt.Sprintf("forbidden: %s needs a grant for %s. A grant request went to %s (thread %s) and is not answered yet; the request has expired and will not run. Call awp_wait with th %q to hear the answer, then call awp_request again.",
			label(k), profile.Cap(mime), label(from), sent.Th, sent.Th))
	case err != nil:
		return nil, out, streamEnded(err)
	}
	if grantAnswer(ev.Line.Line, sent.ID) == peer.MimeGrantDenied {
		ask.Answer, ask.Reason = "denied", deniedReason(ev.Line.Line)
		label := s.labels(ctx)
		return toolError(out, fmt.Sprintf("forbidden: %s needs a grant for %s, and %s denied the grant request (%s). Nothing ran.",
			label(k), profile.Cap(mime), label(from), visible.String(ask.Reason)))
	}
	ask.Answer = "granted"
	res, err := s.runRequest(ctx, k, mime, data, out.Th, deadline)
	var we *wire.Err
	switch {
	case errors.As(err, &we) && we.Code == "forbidden":
		label := s.labels(ctx)
		return toolError(out, fmt.Sprintf("%s granted %s, but %s still refuses: it honors grants from itself and from keys it trusts. Ask its owner to trust %s, or call awp_request with ask_grant and no grant_from to ask %s itself.",
			label(from), profile.Cap(mime), label(k), from.Short(), k.Short()))
	case err != nil:
		return nil, out, s.requestError(ctx, err, k)
	}
	return s.requestResult(ctx, out, res)
}

// deniedReason returns the reason a grant-denied msg line gives (the last
// denial part's, when it has several).
func deniedReason(line []byte) string {
	var m wire.Msg
	_ = json.Unmarshal(line, &m)
	reason := ""
	for _, p := range m.DecodeParts() {
		var d peer.GrantDenied
		if p.Mime == peer.MimeGrantDenied && json.Unmarshal(p.Data, &d) == nil {
			reason = d.Reason
		}
	}
	return reason
}

// grantAnswer returns the mime of the grant or denial in a msg line that
// answers the grant request id, or "".
func grantAnswer(line json.RawMessage, id string) string {
	f, err := wire.Decode(line)
	if err != nil {
		return ""
	}
	m, ok := f.(*wire.Msg)
	if !ok || m.Re != id {
		return ""
	}
	for _, p := range m.DecodeParts() {
		if p.K == wire.PartData && (p.Mime == peer.MimeGrant || p.Mime == peer.MimeGrantDenied) {
			return p.Mime
		}
	}
	return ""
}

// toolError is a failed call that still carries its structured answer.
func toolError(out RequestOut, msg string) (*mcp.CallToolResult, RequestOut, error) {
	out.Error = msg
	r := text(msg)
	r.IsError = true
	return r, out, nil
}

// describe says what a request asks, for a grant request's reason.
func describe(in RequestIn) string {
	switch in.Kind {
	case "exec":
		cmd, _, _ := visible.Command(in.Cmd)
		return "awp_request: run " + visible.Cut(cmd, 200)
	case "fs:read":
		return "awp_request: read " + visible.Cut(visible.String(in.Path), 200)
	}
	return "awp_request: write " + visible.Cut(visible.String(in.Path), 200)
}
