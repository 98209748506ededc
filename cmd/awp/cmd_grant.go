package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/grant"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/localapi"
	"github.com/awp-tray/awp-tray/peer/profile"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// defaultRequestTimeout bounds `awp request`: long enough for an approval
// (the node's default deadline is 5 minutes) and a command after it.
const defaultRequestTimeout = 10 * time.Minute

func runGrant(e *env, args []string) error {
	fs := newFlags("grant")
	to := fs.String("to", "", "the subject: a key, a key prefix or a peer's name (required)")
	caps := fs.String("caps", "", "capabilities, comma-separated: "+strings.Join(knownCaps, ", ")+" (required)")
	ttl := fs.duration("ttl", 0, "how long the grant is valid, e.g. 1h or 7d (required)")
	var on stringList
	fs.Var(&on, "on", "a peer the grant is valid on, this one included (repeatable; default any)")
	note := fs.String("note", "", "a note signed into the grant")
	fs.jsonFlag(true)
	if err := fs.parseNoArgs(args); err != nil {
		return err
	}
	if *to == "" {
		return usagef("--to is required")
	}
	cs, err := parseCaps(*caps)
	if err != nil {
		return err
	}
	if *ttl <= 0 {
		return usagef("--ttl is required and must be positive")
	}
	c, toKey, err := e.clientTo(fs, *to)
	if err != nil {
		return err
	}
	onKeys, err := resolveKeys(e.ctx, c, "--on", on)
	if err != nil {
		return err
	}
	g, err := c.Grant(e.ctx, localapi.GrantRequest{To: toKey, Caps: cs, TTL: ttl.String(), On: onKeys, Note: *note})
	if err != nil {
		return e.wrap("grant", err)
	}
	return writeRaw(e, g)
}

// writeRaw prints a JSON value as the peer gave it, on one line.
func writeRaw(e *env, v json.RawMessage) error {
	if _, err := fmt.Fprintf(e.stdout, "%s\n", bytes.TrimSpace(v)); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

func runGrants(e *env, args []string) error {
	return runList(e, args, "grants", (*localapi.Client).Grants, "ID\tDIR\tISS\tSUB\tCAPS\tEXP\tSTATE", func(g peer.GrantInfo) []string {
		body, _ := grant.DecodeObject(g.Grant)
		dir, state := "received", "valid"
		if g.Issued {
			dir = "issued"
		}
		switch {
		case g.Revoked:
			state = "revoked"
		case g.Expired:
			state = "expired"
		}
		return []string{g.ID, dir, key.ShortText(body.Iss), key.ShortText(body.Sub), strings.Join(body.Caps, ","), g.Exp, state}
	})
}

func runRevoke(e *env, args []string) error {
	c, id, err := e.clientOneArg(newFlags("revoke"), args, "ID")
	if err != nil {
		return err
	}
	return e.wrap("revoke", c.RevokeGrant(e.ctx, id))
}

// requestMimes maps `awp request` verbs to request mimes.
var requestMimes = map[string]string{
	"exec":     profile.MimeExec,
	"fs:read":  profile.MimeRead,
	"fs:write": profile.MimeWrite,
}

// requestOptions are the flags of `awp request`.
type requestOptions struct {
	to, th   string
	grants   stringList
	timeout  time.Duration
	dataJSON string
	// exec
	cmd, cwd, stdin, stdinFile string
	env                        stringList
	execTimeout                int
	// fs:read and fs:write
	path                 string
	offset, length       int64
	content, contentFile string
	base64, append       bool
	mkdir                bool
}

func (o *requestOptions) flags(fs *flagSet) {
	fs.StringVar(&o.to, "to", "", "the peer that runs the request: a key, a key prefix or a peer's name (required)")
	fs.StringVar(&o.th, "th", "", "thread to send the request in (default: a new thread)")
	fs.Var(&o.grants, "grant", "a file holding a grant to attach (repeatable)")
	fs.durationVar(&o.timeout, "timeout", defaultRequestTimeout, "give up waiting for the answer after this long; the request expires then and never runs later (0: no limit, no expiry)")
	fs.StringVar(&o.dataJSON, "data-json", "", "the whole request data object, instead of the flags below")
	fs.StringVar(&o.cmd, "cmd", "", "exec: a command line run with /bin/sh -c (or give argv after --)")
	fs.StringVar(&o.cwd, "cwd", "", "exec: working directory relative to the workspace")
	fs.Var(&o.env, "env", "exec: K=V added to the environment (repeatable)")
	fs.StringVar(&o.stdin, "stdin", "", "exec: text written to the command's standard input")
	fs.StringVar(&o.stdinFile, "stdin-file", "", "exec: a UTF-8 file written to the command's standard input")
	fs.IntVar(&o.execTimeout, "exec-timeout", 0, "exec: seconds the command may run (0: the peer's default)")
	fs.StringVar(&o.path, "path", "", "fs:read, fs:write: path relative to the workspace (required)")
	fs.Int64Var(&o.offset, "offset", 0, "fs:read: byte offset")
	fs.Int64Var(&o.length, "length", 0, "fs:read: bytes to read (default: the peer's inline maximum)")
	fs.StringVar(&o.content, "content", "", "fs:write: the content")
	fs.StringVar(&o.contentFile, "content-file", "", "fs:write: a file whose bytes are the content")
	fs.BoolVar(&o.base64, "base64", false, "fs:write: --content is base64 (a --content-file goes as base64)")
	fs.BoolVar(&o.append, "append", false, "fs:write: append instead of replacing")
	fs.BoolVar(&o.mkdir, "mkdir", false, "fs:write: create missing parent directories")
}

// verbFlags are the data flags each verb takes.
var verbFlags = map[string][]string{
	"exec":     {"cmd", "cwd", "env", "stdin", "stdin-file", "exec-timeout"},
	"fs:read":  {"path", "offset", "length"},
	"fs:write": {"path", "content", "content-file", "base64", "append", "mkdir"},
}

// Request data as sent: the profile's request with the grants attached.
type (
	execData struct {
		profile.ExecRequest
		profile.Grants
	}
	readData struct {
		profile.ReadRequest
		profile.Grants
	}
	writeData struct {
		profile.WriteRequest
		profile.Grants
	}
)

// request builds the ProfileRequest for verb. set holds the flags given;
// argv the words after "--". Usage errors (exit 2) come before reading
// files (exit 1 when unreadable).
func (o *requestOptions) request(verb string, set map[string]bool, argv []string, dash bool) (localapi.ProfileRequest, error) {
	var r localapi.ProfileRequest
	mime, ok := requestMimes[verb]
	if !ok {
		return r, usagef("%q: want exec, fs:read or fs:write", verb)
	}
	r.Mime, r.Th = mime, o.th // r.To: the caller resolves o.to
	if err := checkAddress(o.to, o.th); err != nil {
		return r, err
	}
	if o.timeout < 0 {
		return r, usagef("--timeout must not be negative")
	}
	// Flags of another verb are mistakes, and --data-json excludes them all.
	for _, v := range []string{"exec", "fs:read", "fs:write"} {
		for _, n := range verbFlags[v] {
			switch {
			case !set[n]:
			case set["data-json"]:
				return r, usagef("--%s and --data-json exclude each other", n)
			case !slices.Contains(verbFlags[verb], n):
				return r, usagef("--%s does not go with %s", n, verb)
			}
		}
	}
	if dash && (verb != "exec" || set["data-json"]) {
		return r, usagef("arguments after -- are the command of exec")
	}

	grants, err := o.readGrants()
	if err != nil {
		return r, err
	}
	if set["data-json"] {
		data, err := dataObject(o.dataJSON, grants)
		if err != nil {
			return r, err
		}
		r.Data = data
		return r, nil
	}
	var v any
	switch verb {
	case "exec":
		v, err = o.execData(set, argv, dash, grants)
	case "fs:read":
		v, err = o.readData(set, grants)
	case "fs:write":
		v, err = o.writeData(set, grants)
	}
	if err != nil {
		return r, err
	}
	r.Data = wire.MustMarshal(v)
	return r, nil
}

// readGrants reads the --grant files: the first goes in "grant", the rest
// in "grants".
func (o *requestOptions) readGrants() (profile.Grants, error) {
	var a profile.Grants
	for i, f := range o.grants {
		b, err := os.ReadFile(f)
		if err != nil {
			return a, fmt.Errorf("--grant: %w", err)
		}
		b = bytes.TrimSpace(b)
		var obj map[string]json.RawMessage
		if json.Unmarshal(b, &obj) != nil || obj == nil {
			return a, fmt.Errorf("--grant %s: not a JSON object (save the output of `awp grant`)", f)
		}
		if i == 0 {
			a.Grant = b
		} else {
			a.Grants = append(a.Grants, b)
		}
	}
	return a, nil
}

// dataObject checks --data-json is an object and adds the grants to it.
func dataObject(s string, a profile.Grants) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &obj); err != nil || obj == nil {
		return nil, usagef("--data-json: want a JSON object")
	}
	if a.Grant == nil {
		var b bytes.Buffer
		if err := json.Compact(&b, []byte(s)); err != nil {
			return nil, usagef("--data-json: %v", err)
		}
		return b.Bytes(), nil
	}
	if _, ok := obj["grant"]; ok {
		return nil, usagef("--grant and a --data-json with \"grant\" exclude each other")
	}
	if _, ok := obj["grants"]; ok {
		return nil, usagef("--grant and a --data-json with \"grants\" exclude each other")
	}
	obj["grant"] = a.Grant
	if len(a.Grants) > 0 {
		obj["grants"] = wire.MustMarshal(a.Grants)
	}
	return wire.MustMarshal(obj), nil
}

func (o *requestOptions) execData(set map[string]bool, argv []string, dash bool, a profile.Grants) (any, error) {
	d := execData{profile.ExecRequest{Cwd: o.cwd, Timeout: o.execTimeout, Stdin: o.stdin}, a}
	switch {
	case set["cmd"] && dash:
		return nil, usagef("give --cmd or a command after --, not both")
	case set["cmd"]:
		if o.cmd == "" {
			return nil, usagef("--cmd is empty")
		}
		d.Cmd = wire.MustMarshal(o.cmd)
	case dash:
		if len(argv) == 0 || argv[0] == "" {
			return nil, usagef("no command after --")
		}
		d.Cmd = wire.MustMarshal(argv)
	default:
		return nil, usagef("exec needs --cmd STRING or a command after --")
	}
	if o.execTimeout < 0 {
		return nil, usagef("--exec-timeout must not be negative")
	}
	for _, kv := range o.env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usagef("--env %q: want K=V", kv)
		}
		if d.Env == nil {
			d.Env = map[string]string{}
		}
		d.Env[k] = v
	}
	if set["stdin"] && set["stdin-file"] {
		return nil, usagef("give --stdin or --stdin-file, not both")
	}
	if o.stdinFile != "" {
		b, err := os.ReadFile(o.stdinFile)
		if err != nil {
			return nil, fmt.Errorf("--stdin-file: %w", err)
		}
		if !utf8.Valid(b) {
			return nil, fmt.Errorf("--stdin-file %s: not UTF-8 text", o.stdinFile)
		}
		d.Stdin = string(b)
	}
	return d, nil
}

func (o *requestOptions) readData(set map[string]bool, a profile.Grants) (any, error) {
	if o.path == "" {
		return nil, usagef("fs:read needs --path")
	}
	if o.offset < 0 || o.length < 0 {
		return nil, usagef("--offset and --length must not be negative")
	}
	d := readData{profile.ReadRequest{Path: o.path, Offset: o.offset}, a}
	if set["length"] {
		n := o.length
		d.Length = &n
	}
	return d, nil
}

func (o *requestOptions) writeData(set map[string]bool, a profile.Grants) (any, error) {
	if o.path == "" {
		return nil, usagef("fs:write needs --path")
	}
	d := writeData{profile.WriteRequest{Path: o.path, Append: o.append, Mkdir: o.mkdir}, a}
	switch {
	case set["content"] && set["content-file"]:
		return nil, usagef("give --content or --content-file, not both")
	case set["content"]:
		d.Content = o.content
		if o.base64 {
			if _, err := base64.StdEncoding.DecodeString(o.content); err != nil {
				return nil, usagef("--content is not base64: %v", err)
			}
			d.Encoding = "base64"
		}
	case set["content-file"]:
		b, err := os.ReadFile(o.contentFile)
		if err != nil {
			return nil, fmt.Errorf("--content-file: %w", err)
		}
		if o.base64 || !utf8.Valid(b) {
			d.Content, d.Encoding = base64.StdEncoding.EncodeToString(b), "base64"
		} else {
			d.Content = string(b)
		}
	default:
		return nil, usagef("fs:write needs --content or --content-file")
	}
	return d, nil
}

// parseDash is parse for commands that take words after "--" as data
// (`awp request exec --to K -- make test`): it returns the positional
// arguments before "--", the words after it and whether there was one.
func (fs *flagSet) parseDash(args []string) (pos, after []string, dash bool, err error) {
	before := args
	if i := slices.Index(args, "--"); i >= 0 {
		before, after, dash = args[:i], args[i+1:], true
	}
	pos, err = fs.parse(before)
	return pos, after, dash, err
}

func runRequest(e *env, args []string) error {
	fs := newFlags("request")
	var o requestOptions
	o.flags(fs)
	fs.jsonFlag(true)
	pos, argv, dash, err := fs.parseDash(args)
	if err != nil {
		return err
	}
	if err := nArgs(pos, 1, "exec, fs:read or fs:write"); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	req, err := o.request(pos[0], set, argv, dash)
	if err != nil {
		return err
	}
	c, to, err := e.clientTo(fs, o.to)
	if err != nil {
		return err
	}
	req.To = to
	ctx := e.ctx
	if o.timeout > 0 {
		// What this command stops waiting for must never run later: the
		// request carries exp = now + timeout (docs/protocol/profile.md,
		// "Request expiry"; an earlier exp in --data-json is kept).
		deadline := time.Now().Add(o.timeout)
		if req.Data, err = profile.WithExp(req.Data, deadline); err != nil {
			return usagef("%v", strings.TrimPrefix(err.Error(), "profile: "))
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	e.notConnectedNote(ctx, c, req.To, "request")
	data, err := c.Request(ctx, req)
	if err != nil {
		var we *wire.Err
		switch {
		case errors.As(err, &we):
			if we.Msg == "" {
				return errors.New(we.Code)
			}
			return fmt.Errorf("%s: %s", we.Code, we.Msg)
		case ctx.Err() == context.DeadlineExceeded && e.ctx.Err() == nil:
			return fmt.Errorf("no answer from %s within %v", shortKey(req.To), formatDuration(o.timeout))
		}
		return e.wrap("request", err)
	}
	return writeRaw(e, data)
}
