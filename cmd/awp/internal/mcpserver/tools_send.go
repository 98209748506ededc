package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/awp-tray/awp-tray/internal/visible"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// SendIn is awp_send's input.
type SendIn struct {
	To      string          `json:"to" jsonschema:"the recipient: a key, an unambiguous key prefix (6 or more characters after ed25519:) or a peer's unique name"`
	Subject string          `json:"subject,omitempty" jsonschema:"the thread's subject; give one when starting a thread"`
	Text    string          `json:"text,omitempty" jsonschema:"the message text"`
	Th      string          `json:"th,omitempty" jsonschema:"the thread to continue (default: a new thread)"`
	Re      string          `json:"re,omitempty" jsonschema:"id of the line this message answers"`
	Code    string          `json:"code,omitempty" jsonschema:"source code sent as a code part"`
	Lang    string          `json:"lang,omitempty" jsonschema:"the code part's language (go, python…)"`
	Data    json.RawMessage `json:"data,omitempty" jsonschema:"a JSON value sent as a data part"`
	Mime    string          `json:"mime,omitempty" jsonschema:"the data part's mime type (default application/json)"`
	Files   []string        `json:"files,omitempty" jsonschema:"files sent as blobs: paths on this machine, relative ones from the directory awp mcp runs in"`
}

// SendOut is awp_send's answer.
type SendOut struct {
	ID string `json:"id" jsonschema:"the line's id: an answer to it carries it as re"`
	Th string `json:"th" jsonschema:"the thread (a new one unless th was given)"`
	To string `json:"to" jsonschema:"the recipient's full key"`
}

// subjectMax bounds the subject made from a message's first line when a
// new thread has none: the tray's thread list shows about that much.
const subjectMax = 80

func (s *Server) send(ctx context.Context, _ *mcp.CallToolRequest, in SendIn) (*mcp.CallToolResult, SendOut, error) {
	r, err := sendRequest(in)
	if err != nil {
		return nil, SendOut{}, err
	}
	k, err := s.resolve(ctx, in.To)
	if err != nil {
		return nil, SendOut{}, err
	}
	r.To = k
	res, err := call(s, ctx, func(ctx context.Context) (peer.SendResult, error) { return s.c.Send(ctx, r) })
	if err != nil {
		return nil, SendOut{}, err
	}
	out := SendOut{ID: res.ID, Th: res.Th, To: r.To.String()}
	return text(fmt.Sprintf("Sent line %s in thread %s to %s. Its answers come with awp_wait (th %q).", out.ID, out.Th, out.To, out.Th)), out, nil
}

// sendRequest checks awp_send's arguments and builds the msg.
func sendRequest(in SendIn) (peer.SendRequest, error) {
	r := peer.SendRequest{Th: in.Th, Subject: in.Subject, Re: in.Re}
	if strings.TrimSpace(in.To) == "" {
		return r, badArg("to is empty: name the recipient by key, key prefix or name (awp_peers lists them)")
	}
	if err := checkTh("th", in.Th); err != nil {
		return r, err
	}
	if in.Re != "" && !wire.ValidID(in.Re) {
		return r, badArg("re %q is not a line id (26 characters, as in a line's id)", in.Re)
	}
	if in.Lang != "" && in.Code == "" {
		return r, badArg("lang goes with code; give the code too")
	}
	if in.Mime != "" && len(in.Data) == 0 {
		return r, badArg("mime goes with data; give the data too")
	}
	if in.Text == "" && in.Code == "" && len(in.Data) == 0 && len(in.Files) == 0 {
		return r, badArg("nothing to send: give text, code, data or files")
	}
	if in.Text != "" {
		r.Parts = append(r.Parts, wire.TextPart(in.Text))
	}
	if in.Code != "" {
		r.Parts = append(r.Parts, wire.CodePart(in.Code, in.Lang, ""))
	}
	if len(in.Data) > 0 {
		p, err := wire.DataPart(in.Mime, in.Data)
		if err != nil {
			return r, badArg("data: %v", err)
		}
		r.Parts = append(r.Parts, p)
	}
	for _, f := range in.Files {
		b, err := peer.LocalBlobFile(f)
		if err != nil {
			return r, badArg("files: %v", err)
		}
		r.Blobs = append(r.Blobs, b)
	}
	if r.Th == "" && r.Subject == "" {
		first, _, _ := strings.Cut(strings.TrimSpace(in.Text), "\n")
		r.Subject = visible.Cut(first, subjectMax)
	}
	return r, nil
}

// resolve turns what the agent wrote for a peer into its key.
func (s *Server) resolve(ctx context.Context, who string) (key.PublicKey, error) {
	return call(s, ctx, func(ctx context.Context) (key.PublicKey, error) { return s.c.ResolveKey(ctx, who) })
}
