package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/awp-tray/awp-tray/internal/visible"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/localapi"
	"github.com/awp-tray/awp-tray/peer/profile"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// RequestIn is awp_request's input.
type RequestIn struct {
	To   string `json:"to" jsonschema:"the peer that runs the request: key, key prefix or name"`
	Kind string `json:"kind" jsonschema:"exec runs a command; fs:read reads a file or lists a directory; fs:write writes a file. Paths are relative to that peer's workspace."`

	Cmd          json.RawMessage   `json:"cmd,omitempty" jsonschema:"exec: the command, an argv array or a string run with /bin/sh -c"`
	Cwd          string            `json:"cwd,omitempty" jsonschema:"exec: working directory relative to the workspace"`
	Env          map[string]string `json:"env,omitempty" jsonschema:"exec: variables added to the environment"`
	Stdin        string            `json:"stdin,omitempty" jsonschema:"exec: text written to the command's standard input"`
	ExecTimeoutS int               `json:"exec_timeout_s,omitempty" jsonschema:"exec: seconds the command may run (default the peer's, 600)"`

	Path     string `json:"path,omitempty" jsonschema:"fs:read, fs:write: the path"`
	Offset   int64  `json:"offset,omitempty" jsonschema:"fs:read: byte offset"`
	Length   int64  `json:"length,omitempty" jsonschema:"fs:read: bytes to read (default and most: 65536)"`
	Content  string `json:"content,omitempty" jsonschema:"fs:write: the content"`
	Encoding string `json:"encoding,omitempty" jsonschema:"fs:write: utf-8 (default) or base64 (content is base64)"`
	Append   bool   `json:"append,omitempty" jsonschema:"fs:write: append instead of replacing"`
	Mkdir    bool   `json:"mkdir,omitempty" jsonschema:"fs:write: create missing parent directories"`

	Th       string `json:"th,omitempty" jsonschema:"send the request in this thread (default: a new one)"`
	TimeoutS int    `json:"timeout_s,omitempty" jsonschema:"stop waiting for the answer after this many seconds; the request expires then and never runs later"`

	AskGrant  bool   `json:"ask_grant,omitempty" jsonschema:"when the peer refuses (forbidden), send a grant request and, if it is granted in time, run the request again"`
	GrantFrom string `json:"grant_from,omitempty" jsonschema:"who to ask for the grant (default: the peer itself; often its owner's desktop)"`
	Reason    string `json:"reason,omitempty" jsonschema:"why you need it, shown to the person who decides"`
	GrantTTLS int    `json:"grant_ttl_s,omitempty" jsonschema:"how long the grant asked for lasts, in seconds"`
}

// RequestOut is awp_request's answer.
type RequestOut struct {
	To           string          `json:"to" jsonschema:"the full key of the peer asked"`
	Kind         string          `json:"kind"`
	Th           string          `json:"th" jsonschema:"the thread of the request"`
	Exp          string          `json:"exp" jsonschema:"when the request expires (RFC 3339): the peer does not start it after that"`
	Result       json.RawMessage `json:"result,omitempty" jsonschema:"the result's data as the peer sent it: exit, duration_ms, stdout, stderr… for exec; content, encoding, eof (or entries) for fs:read; written for fs:write"`
	Error        string          `json:"error,omitempty" jsonschema:"why it failed, when it did"`
	GrantRequest *GrantAsk       `json:"grant_request,omitempty" jsonschema:"the grant request sent, with ask_grant"`
}

// GrantAsk is a grant request awp_request sent (docs/protocol/grants.md
// "Asking for a grant").
type GrantAsk struct {
	To     string `json:"to" jsonschema:"who was asked"`
	Th     string `json:"th" jsonschema:"its thread: awp_wait th=… hears a late answer"`
	ID     string `json:"id"`
	Answer string `json:"answer" jsonschema:"granted, denied, or waiting (no answer in time)"`
	Reason string `json:"reason,omitempty" jsonschema:"the reason given with a denial"`
}

func requestTool() *mcp.Tool {
	return tool[RequestIn, RequestOut]("awp_request", "Run on another peer",
		"Ask another peer to run a command (exec), read a file or directory (fs:read) or write a file (fs:write) in its workspace, and wait for the result. "+
			"The peer runs it only under a grant from its owner, or when its owner approves it now; otherwise the answer is forbidden, and with ask_grant a grant request goes out and the request runs once granted. "+
			"The request carries exp = now + timeout_s: when this call stops waiting the request has expired, and the peer never starts it later.",
		runs, func(in *jsonschema.Schema) {
			enum(in, "kind", "exec", "fs:read", "fs:write")
			enum(in, "encoding", "utf-8", "base64")
			cmd := prop(in, "cmd")
			cmd.AnyOf = []*jsonschema.Schema{{Type: "string"}, {Type: "array", Items: &jsonschema.Schema{Type: "string"}}}
			intRange(in, "timeout_s", 1, MaxRequestSeconds, DefaultRequestSeconds)
			intRange(in, "exec_timeout_s", 1, 24*3600, 0)
			intRange(in, "grant_ttl_s", 60, MaxGrantTTLSeconds, DefaultGrantTTLSeconds)
			zero := 0.0
			prop(in, "offset").Minimum = &zero
			prop(in, "length").Minimum = &zero
		})
}

func (s *Server) request(ctx context.Context, req *mcp.CallToolRequest, in RequestIn) (*mcp.CallToolResult, RequestOut, error) {
	mime, data, err := requestData(in)
	if err != nil {
		return nil, RequestOut{}, err
	}
	if err := checkTh("th", in.Th); err != nil {
		return nil, RequestOut{}, err
	}
	k, err := s.resolve(ctx, in.To)
	if err != nil {
		return nil, RequestOut{}, err
	}
	timeout := time.Duration(in.TimeoutS) * time.Second
	if timeout <= 0 {
		timeout = DefaultRequestSeconds * time.Second
	}
	// exp is the moment this call stops waiting (docs/protocol/profile.md
	// "Request expiry").
	deadline := time.Now().Add(timeout).Truncate(time.Millisecond)
	th := in.Th
	if th == "" {
		th = wire.NewThread()
	}
	out := RequestOut{To: k.String(), Kind: in.Kind, Th: th, Exp: wire.FormatTime(deadline)}
	defer s.progress(ctx, req, timeout, "waiting for the answer to "+in.Kind)()

	res, err := s.runRequest(ctx, k, mime, data, th, deadline)
	var we *wire.Err
	if errors.As(err, &we) && we.Code == "forbidden" && in.AskGrant {
		return s.askGrant(ctx, in, k, mime, data, deadline, out)
	}
	if err != nil {
		return nil, out, s.requestError(ctx, err, k)
	}
	return s.requestResult(ctx, out, res)
}

// runRequest sends the request with data.exp = deadline and waits for the
// answer until then.
func (s *Server) runRequest(ctx context.Context, k key.PublicKey, mime string, data map[string]any, th string, deadline time.Time) (json.RawMessage, error) {
	data["exp"] = wire.FormatTime(deadline)
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, badArg("%v", err)
	}
	dctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	res, err := call(s, dctx, func(ctx context.Context) (json.RawMessage, error) {
		return s.c.Request(ctx, localapi.ProfileRequest{To: k, Mime: mime, Data: raw, Th: th})
	})
	if err != nil && ctx.Err() == nil && dctx.Err() == context.DeadlineExceeded {
		return nil, &noAnswerError{exp: data["exp"].(string)}
	}
	return res, err
}

// noAnswerError is a request that got no answer before its exp.
type noAnswerError struct{ exp string }

func (e *noAnswerError) Error() string { return "no answer before " + e.exp }

// requestError explains a request that got no result.
func (s *Server) requestError(ctx context.Context, err error, k key.PublicKey) error {
	var we *wire.Err
	var na *noAnswerError
	switch {
	case errors.As(err, &we):
		return refusal(we, s.labels(ctx)(k))
	case errors.As(err, &na):
		who := s.labels(ctx)(k)
		return fmt.Errorf("no answer from %s in time. The request carried exp %s, so %s will not start it after that (peers that know exp). If its owner needs time to approve, call awp_request again with a longer timeout_s", who, na.exp, who)
	}
	return err
}

// labels names peers in a sentence: "name (short key)" when a peer has a
// name, else its short key. The peer list is read once, when labels is
// called, for all the names one answer needs.
func (s *Server) labels(ctx context.Context) func(key.PublicKey) string {
	names := s.c.PeerNames(ctx)
	return func(k key.PublicKey) string {
		if n := names[k]; n != "" {
			return visible.String(n) + " (" + k.Short() + ")"
		}
		return k.Short()
	}
}

// requestResult turns the result's data into the answer: a result with
// "error" (expired, path outside workspace, timeout…) is a tool error that
// still carries the result.
func (s *Server) requestResult(ctx context.Context, out RequestOut, res json.RawMessage) (*mcp.CallToolResult, RequestOut, error) {
	out.Result = res
	var r struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(res, &r)
	out.Error = r.Error
	if r.Error == "" {
		return text(renderResult(out)), out, nil
	}
	why := fmt.Sprintf("The request failed on %s: %s.", s.labels(ctx)(key.MustParsePublic(out.To)), r.Error)
	if r.Error == "expired" {
		why += " It reached the peer after its exp (the peer was offline, or the request waited for approval too long), and nothing ran. Call awp_request again if it is still wanted."
	}
	res2 := text(why + "\n" + renderResult(out))
	res2.IsError = true
	return res2, out, nil
}

// requestData checks the arguments of kind and builds the request's data
// (docs/protocol/profile.md) without exp.
func requestData(in RequestIn) (mime string, data map[string]any, err error) {
	if strings.TrimSpace(in.To) == "" {
		return "", nil, badArg("to is empty: name the peer that runs the request (awp_peers lists them)")
	}
	if err := otherKindsArgs(in); err != nil {
		return "", nil, err
	}
	data = map[string]any{}
	switch in.Kind {
	case "exec":
		if in.Path != "" {
			return "", nil, badArg("path does not go with kind exec (give cwd for the working directory)")
		}
		var argv []string
		var line string
		switch {
		case len(in.Cmd) == 0:
			return "", nil, badArg("exec needs cmd: an argv array such as [\"make\",\"test\"], or a shell command line")
		case json.Unmarshal(in.Cmd, &line) == nil:
			if strings.TrimSpace(line) == "" {
				return "", nil, badArg("cmd is empty")
			}
		case json.Unmarshal(in.Cmd, &argv) == nil:
			if len(argv) == 0 || argv[0] == "" {
				return "", nil, badArg("cmd is empty: its first element is the program")
			}
		default:
			return "", nil, badArg("cmd must be a string or an array of strings")
		}
		data["cmd"] = in.Cmd
		setIf(data, "cwd", in.Cwd, in.Cwd != "")
		setIf(data, "env", in.Env, len(in.Env) > 0)
		setIf(data, "stdin", in.Stdin, in.Stdin != "")
		setIf(data, "timeout", in.ExecTimeoutS, in.ExecTimeoutS > 0)
		return profile.MimeExec, data, nil
	case "fs:read":
		if in.Path == "" {
			return "", nil, badArg("fs:read needs path (relative to the peer's workspace; \".\" lists its root)")
		}
		data["path"] = in.Path
		setIf(data, "offset", in.Offset, in.Offset > 0)
		setIf(data, "length", in.Length, in.Length > 0)
		return profile.MimeRead, data, nil
	case "fs:write":
		if in.Path == "" {
			return "", nil, badArg("fs:write needs path (relative to the peer's workspace)")
		}
		data["path"], data["content"] = in.Path, in.Content
		setIf(data, "encoding", in.Encoding, in.Encoding != "")
		setIf(data, "append", true, in.Append)
		setIf(data, "mkdir", true, in.Mkdir)
		return profile.MimeWrite, data, nil
	}
	return "", nil, badArg("kind %q: want exec, fs:read or fs:write", in.Kind)
}

// otherKindsArgs refuses, for a known kind, the arguments of the other
// kinds (one named for each kind they belong to); path, which fs:read and
// fs:write share, is checked with the kind.
func otherKindsArgs(in RequestIn) error {
	kinds := []struct {
		kind string
		args map[string]bool // the argument's name: given
	}{
		{"exec", map[string]bool{"cmd": len(in.Cmd) > 0, "cwd": in.Cwd != "", "env": len(in.Env) > 0, "stdin": in.Stdin != "", "exec_timeout_s": in.ExecTimeoutS != 0}},
		{"fs:read", map[string]bool{"offset": in.Offset != 0, "length": in.Length != 0}},
		{"fs:write", map[string]bool{"content": in.Content != "", "encoding": in.Encoding != "", "append": in.Append, "mkdir": in.Mkdir}},
	}
	var errs []error
	known := false
	for _, k := range kinds {
		if k.kind == in.Kind {
			known = true
			continue
		}
		for name, given := range k.args {
			if given {
				errs = append(errs, badArg("%s does not go with kind %s", name, in.Kind))
				break
			}
		}
	}
	if !known {
		return nil // requestData refuses the kind
	}
	return errors.Join(errs...)
}

func setIf(m map[string]any, k string, v any, ok bool) {
	if ok {
		m[k] = v
	}
}
