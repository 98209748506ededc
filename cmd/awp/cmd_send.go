package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// sendOptions are the flags of `awp send`.
type sendOptions struct {
	to, th, subject, re string
	texts               stringList
	codeFile, lang      string
	dataJSON, mime      string
	blobs               stringList
}

func (o *sendOptions) flags(fs *flagSet) {
	fs.StringVar(&o.to, "to", "", "the recipient: a key, a key prefix or a peer's name (required)")
	fs.StringVar(&o.th, "th", "", "thread id (default: a new thread)")
	fs.StringVar(&o.subject, "subject", "", "subject (the first msg of a thread should have one)")
	fs.Var(&o.texts, "text", "a text part (repeatable)")
	fs.StringVar(&o.codeFile, "code-file", "", "a file sent as a code part")
	fs.StringVar(&o.lang, "lang", "", "the code part's language (default: from the file extension)")
	fs.StringVar(&o.dataJSON, "data-json", "", "a JSON value sent as a data part")
	fs.StringVar(&o.mime, "mime", "", "the data part's mime type (default application/json)")
	fs.Var(&o.blobs, "blob", "a file sent as a blob part (repeatable)")
	fs.StringVar(&o.re, "re", "", "id of the line this msg answers")
}

// request checks the options and builds the SendRequest, To left for the
// caller to resolve from o.to. Usage errors (exit 2) come first; unreadable
// files are failures (exit 1).
func (o *sendOptions) request() (peer.SendRequest, error) {
	r := peer.SendRequest{Th: o.th, Subject: o.subject, Re: o.re}
	if err := checkAddress(o.to, o.th); err != nil {
		return r, err
	}
	if o.lang != "" && o.codeFile == "" {
		return r, usagef("--lang needs --code-file")
	}
	if o.mime != "" && o.dataJSON == "" {
		return r, usagef("--mime needs --data-json")
	}
	var data []byte
	if o.dataJSON != "" {
		var b bytes.Buffer
		if err := json.Compact(&b, []byte(o.dataJSON)); err != nil {
			return r, usagef("--data-json: not JSON: %v", err)
		}
		data = b.Bytes()
	}
	if len(o.texts) == 0 && o.codeFile == "" && data == nil && len(o.blobs) == 0 {
		return r, usagef("nothing to send: give --text, --code-file, --data-json or --blob")
	}

	for _, t := range o.texts {
		r.Parts = append(r.Parts, wire.TextPart(t))
	}
	if o.codeFile != "" {
		b, err := os.ReadFile(o.codeFile)
		if err != nil {
			return r, fmt.Errorf("--code-file: %w", err)
		}
		if !utf8.Valid(b) {
			return r, fmt.Errorf("--code-file %s: not UTF-8 text (send it with --blob)", o.codeFile)
		}
		lang := o.lang
		if lang == "" {
			lang = langOf(o.codeFile)
		}
		r.Parts = append(r.Parts, wire.CodePart(string(b), lang, ""))
	}
	if data != nil {
		p, err := wire.DataPart(o.mime, data)
		if err != nil {
			return r, usagef("--data-json: %v", err)
		}
		r.Parts = append(r.Parts, p)
	}
	for _, f := range o.blobs {
		b, err := peer.LocalBlobFile(f)
		if err != nil {
			return r, fmt.Errorf("--blob: %w", err)
		}
		r.Blobs = append(r.Blobs, b)
	}
	return r, nil
}

// langs maps file extensions to code part languages.
var langs = map[string]string{
	".go": "go", ".py": "python", ".js": "javascript", ".ts": "typescript", ".rs": "rust",
	".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".java": "java", ".rb": "ruby",
	".sh": "sh", ".diff": "diff", ".patch": "diff", ".json": "json", ".yaml": "yaml",
	".yml": "yaml", ".toml": "toml", ".md": "markdown", ".sql": "sql", ".html": "html",
	".css": "css", ".swift": "swift", ".kt": "kotlin",
}

func langOf(path string) string { return langs[strings.ToLower(filepath.Ext(path))] }

func runSend(e *env, args []string) error {
	fs := newFlags("send")
	var o sendOptions
	o.flags(fs)
	fs.jsonFlag(true)
	if err := fs.parseNoArgs(args); err != nil {
		return err
	}
	req, err := o.request()
	if err != nil {
		return err
	}
	c, to, err := e.clientTo(fs, o.to)
	if err != nil {
		return err
	}
	req.To = to
	res, err := c.Send(e.ctx, req)
	if err != nil {
		return e.wrap("send", err)
	}
	e.notConnectedNote(e.ctx, c, req.To, "msg")
	return writeJSON(e.stdout, res)
}

func runState(e *env, args []string) error {
	fs := newFlags("state")
	th := fs.String("th", "", "thread id (required)")
	note := fs.String("note", "", "a note on the state")
	fs.jsonFlag(true)
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	thArg := "--th"
	if *th == "" && len(pos) == 2 {
		*th, pos, thArg = pos[0], pos[1:], "TH" // awp state TH STATE, as show takes TH
	}
	if *th == "" {
		return usagef("--th is required (or give TH before STATE)")
	}
	if err := checkTh(thArg, *th); err != nil {
		return err
	}
	state, err := oneArg(pos, "STATE")
	if err != nil {
		return err
	}
	c, err := e.client(fs)
	if err != nil {
		return err
	}
	res, err := c.SetState(e.ctx, *th, state, *note)
	if err != nil {
		return e.wrap("state", err)
	}
	return writeJSON(e.stdout, struct {
		ID string `json:"id"`
	}{res.ID})
}
