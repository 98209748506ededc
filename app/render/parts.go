package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/awp-tray/awp-tray/internal/visible"
)

// Mime types of the coding-agent profile and of grants (PROFILE.md,
// NOTES.md §5, SPEC.md §10).
const (
	MimeExec         = "application/vnd.awp.exec+json"
	MimeExecResult   = "application/vnd.awp.exec-result+json"
	MimeFsRead       = "application/vnd.awp.fs-read+json"
	MimeFsReadResult = "application/vnd.awp.fs-read-result+json"
	MimeFsWrite      = "application/vnd.awp.fs-write+json"
	MimeFsWriteRes   = "application/vnd.awp.fs-write-result+json"
	MimeGrant        = "application/vnd.awp.grant+json"
	MimeGrantRequest = "application/vnd.awp.grant-request+json"
	MimeGrantDenied  = "application/vnd.awp.grant-denied+json"
)

// wirePart holds the fields of every part kind.
type wirePart struct {
	K      string          `json:"k"`
	Text   string          `json:"text"`
	Lang   string          `json:"lang"`
	Path   string          `json:"path"`
	Mime   string          `json:"mime"`
	Data   json.RawMessage `json:"data"`
	Ref    string          `json:"ref"`
	Name   string          `json:"name"`
	Size   int64           `json:"size"`
	Sha256 string          `json:"sha256"`
}

// decodePart turns one wire part into a Part; unknown kinds and malformed
// parts become PartUnsupported with the raw JSON.
func decodePart(raw json.RawMessage) Part {
	var w wirePart
	if err := json.Unmarshal(raw, &w); err != nil {
		return Part{Kind: PartUnsupported, Title: "malformed part", Text: compact(raw), Mono: true}
	}
	switch w.K {
	case "text":
		return Part{Kind: PartText, Text: w.Text}
	case "code":
		title := w.Lang
		if w.Path != "" {
			title = strings.TrimSpace(w.Path + " " + paren(w.Lang))
		}
		return Part{Kind: PartCode, Title: title, Text: w.Text, Mono: true, Lang: w.Lang, Path: w.Path}
	case "blob":
		return Part{Kind: PartBlob, Title: w.Name, Mime: w.Mime, Blob: &Blob{
			Ref: w.Ref, Name: w.Name, Mime: w.Mime, Size: w.Size, Sha256: w.Sha256,
		}}
	case "data":
		return dataPart(w.Mime, w.Data)
	}
	return Part{Kind: PartUnsupported, Title: fmt.Sprintf("unsupported part %q", w.K), Text: compact(raw), Mono: true}
}

func paren(s string) string {
	if s == "" {
		return ""
	}
	return "(" + s + ")"
}

// dataPart renders a data part: the profile's requests and results and
// grants get their own summaries; anything else is pretty JSON.
func dataPart(mime string, data json.RawMessage) Part {
	var p Part
	switch mime {
	case MimeExec:
		p = execRequest(data)
	case MimeExecResult:
		p = execResult(data)
	case MimeFsRead:
		p = fsReadRequest(data)
	case MimeFsReadResult:
		p = fsReadResult(data)
	case MimeFsWrite:
		p = fsWriteRequest(data)
	case MimeFsWriteRes:
		p = fsWriteResult(data)
	case MimeGrant:
		p = grantPart(data)
	case MimeGrantRequest:
		p = grantRequestPart(data)
	case MimeGrantDenied:
		var d struct {
			Reason string `json:"reason"`
		}
		_ = json.Unmarshal(data, &d)
		p = Part{Kind: PartGrantDenied, Title: "grant denied", Text: d.Reason}
	default:
		p = Part{Kind: PartData, Title: mime, Text: Pretty(data), Mono: true}
	}
	p.Mime = mime
	return p
}

// Pretty indents JSON two spaces; invalid JSON comes back as it is.
func Pretty(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}

// compact is raw JSON on one line; invalid JSON comes back as it is.
func compact(raw []byte) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// ExecRequest is the data of an exec request (PROFILE.md).
type ExecRequest struct {
	Cmd     json.RawMessage   `json:"cmd"` // argv array or shell string
	Cwd     string            `json:"cwd"`
	Env     map[string]string `json:"env"`
	Timeout int64             `json:"timeout"`
	Stdin   string            `json:"stdin"`
}

// Command is the request's command line as a person reads it: a shell
// string as it is, an argv array joined with spaces (arguments holding
// spaces, quotes or shell metacharacters are quoted); characters that do
// not show as themselves are escaped either way (visible.String).
func (r ExecRequest) Command() string {
	if s, _, ok := visible.Command(r.Cmd); ok {
		return s
	}
	return visible.String(compact(r.Cmd))
}

// Fields lists the request's details in display order.
func (r ExecRequest) Fields() []Field {
	cwd := r.Cwd
	if cwd == "" {
		cwd = "(workspace root)"
	}
	f := []Field{{"command", r.Command()}, {"cwd", cwd}}
	for _, k := range sortedKeys(r.Env) {
		f = append(f, Field{"env", k + "=" + r.Env[k]})
	}
	if r.Timeout > 0 {
		f = append(f, Field{"timeout", (time.Duration(r.Timeout) * time.Second).String()})
	}
	if r.Stdin != "" {
		f = append(f, Field{"stdin", fmt.Sprintf("%d bytes", len(r.Stdin))})
	}
	return f
}

func execRequest(data json.RawMessage) Part {
	var r ExecRequest
	if json.Unmarshal(data, &r) != nil {
		return Part{Kind: PartRequest, Title: "exec request (malformed)", Text: Pretty(data), Mono: true}
	}
	return Part{Kind: PartRequest, Title: "exec: " + r.Command(), Fields: r.Fields()[1:], Text: r.Stdin, Mono: true}
}

func execResult(data json.RawMessage) Part {
	var r struct {
		Exit            *int   `json:"exit"`
		DurationMS      int64  `json:"duration_ms"`
		Stdout          string `json:"stdout"`
		Stderr          string `json:"stderr"`
		StdoutTruncated bool   `json:"stdout_truncated"`
		StderrTruncated bool   `json:"stderr_truncated"`
		Error           string `json:"error"`
	}
	if json.Unmarshal(data, &r) != nil {
		return Part{Kind: PartResult, Title: "exec result (malformed)", Text: Pretty(data), Mono: true}
	}
	title := "exec result"
	if r.Exit != nil {
		title = fmt.Sprintf("exec result: exit %d", *r.Exit)
	}
	if r.DurationMS > 0 {
		title += " in " + (time.Duration(r.DurationMS) * time.Millisecond).Round(100*time.Millisecond).String()
	}
	p := Part{Kind: PartResult, Title: title, Mono: true}
	if r.Error != "" {
		p.Fields = append(p.Fields, Field{"error", r.Error})
	}
	var body strings.Builder
	body.WriteString(r.Stdout)
	if r.StdoutTruncated {
		body.WriteString("\n… stdout truncated (full output attached)")
	}
	if r.Stderr != "" {
		if body.Len() > 0 && !strings.HasSuffix(body.String(), "\n") {
			body.WriteByte('\n')
		}
		body.WriteString("── stderr ──\n")
		body.WriteString(r.Stderr)
		if r.StderrTruncated {
			body.WriteString("\n… stderr truncated (full output attached)")
		}
	}
	p.Text = strings.TrimSuffix(body.String(), "\n")
	return p
}

func fsReadRequest(data json.RawMessage) Part {
	var r struct {
		Path   string `json:"path"`
		Offset int64  `json:"offset"`
		Length int64  `json:"length"`
	}
	_ = json.Unmarshal(data, &r)
	p := Part{Kind: PartRequest, Title: "read " + r.Path}
	if r.Offset > 0 {
		p.Fields = append(p.Fields, Field{"offset", fmt.Sprint(r.Offset)})
	}
	if r.Length > 0 {
		p.Fields = append(p.Fields, Field{"length", fmt.Sprint(r.Length)})
	}
	return p
}

func fsReadResult(data json.RawMessage) Part {
	var r struct {
		Path     string `json:"path"`
		Size     int64  `json:"size"`
		Encoding string `json:"encoding"`
		Content  string `json:"content"`
		EOF      bool   `json:"eof"`
		Dir      bool   `json:"dir"`
		Entries  []struct {
			Name string `json:"name"`
			Dir  bool   `json:"dir"`
			Size int64  `json:"size"`
			Mode string `json:"mode"`
		} `json:"entries"`
		Error string `json:"error"`
	}
	_ = json.Unmarshal(data, &r)
	p := Part{Kind: PartResult, Title: "read " + r.Path, Mono: true}
	if r.Error != "" {
		p.Fields = append(p.Fields, Field{"error", r.Error})
		return p
	}
	if r.Dir {
		p.Title = fmt.Sprintf("listed %s (%d entries)", r.Path, len(r.Entries))
		var b strings.Builder
		for _, e := range r.Entries {
			if e.Dir {
				fmt.Fprintf(&b, "%s %s/\n", e.Mode, e.Name)
			} else {
				fmt.Fprintf(&b, "%s %s  %s\n", e.Mode, e.Name, Size(e.Size))
			}
		}
		p.Text = strings.TrimSuffix(b.String(), "\n")
		return p
	}
	p.Title = fmt.Sprintf("read %s (%s)", r.Path, Size(r.Size))
	if !r.EOF {
		p.Fields = append(p.Fields, Field{"partial", "more follows (not at end of file)"})
	}
	p.Text = contentText(r.Content, r.Encoding)
	return p
}

// contentText shows file content as text, or says how much base64 there is
// (binary content is not shown).
func contentText(content, encoding string) string {
	if encoding == "base64" {
		return fmt.Sprintf("(%d characters of base64: binary content)", len(content))
	}
	return content
}

func fsWriteRequest(data json.RawMessage) Part {
	var r struct {
		Path     string `json:"path"`
		Content  string `json:"content"`
		Encoding string `json:"encoding"`
		Append   bool   `json:"append"`
		Mkdir    bool   `json:"mkdir"`
	}
	_ = json.Unmarshal(data, &r)
	verb := "write "
	if r.Append {
		verb = "append to "
	}
	p := Part{Kind: PartRequest, Title: verb + r.Path, Mono: true}
	if r.Mkdir {
		p.Fields = append(p.Fields, Field{"mkdir", "create missing directories"})
	}
	p.Text = contentText(r.Content, r.Encoding)
	return p
}

func fsWriteResult(data json.RawMessage) Part {
	var r struct {
		Path    string `json:"path"`
		Written int64  `json:"written"`
		Error   string `json:"error"`
	}
	_ = json.Unmarshal(data, &r)
	if r.Error != "" {
		return Part{Kind: PartResult, Title: "write " + r.Path + " failed", Fields: []Field{{"error", r.Error}}}
	}
	return Part{Kind: PartResult, Title: fmt.Sprintf("wrote %s to %s", Size(r.Written), r.Path)}
}

// grant is the signed grant object (SPEC.md §10).
type grant struct {
	Iss  string   `json:"iss"`
	Sub  string   `json:"sub"`
	Caps []string `json:"caps"`
	Exp  string   `json:"exp"`
	On   []string `json:"on"`
	Note string   `json:"note"`
}

func grantPart(data json.RawMessage) Part {
	var g grant
	_ = json.Unmarshal(data, &g)
	p := Part{Kind: PartGrant, Title: "grant: " + strings.Join(g.Caps, ", "), Text: g.Note}
	p.Fields = []Field{{"issuer", ShortKey(g.Iss)}, {"holder", ShortKey(g.Sub)}}
	if len(g.On) > 0 {
		p.Fields = append(p.Fields, Field{"on", shortKeys(g.On)})
	}
	p.Fields = append(p.Fields, Field{"expires", g.Exp})
	return p
}

func grantRequestPart(data json.RawMessage) Part {
	var r struct {
		Caps   []string `json:"caps"`
		Sub    string   `json:"sub"`
		On     []string `json:"on"`
		TTL    int64    `json:"ttl"`
		Reason string   `json:"reason"`
	}
	_ = json.Unmarshal(data, &r)
	p := Part{Kind: PartGrantRequest, Title: "asks for a grant: " + strings.Join(r.Caps, ", "), Text: r.Reason}
	if r.Sub != "" {
		p.Fields = append(p.Fields, Field{"for", ShortKey(r.Sub)})
	}
	if len(r.On) > 0 {
		p.Fields = append(p.Fields, Field{"on", shortKeys(r.On)})
	}
	if r.TTL > 0 {
		p.Fields = append(p.Fields, Field{"for how long", (time.Duration(r.TTL) * time.Second).String()})
	}
	return p
}
