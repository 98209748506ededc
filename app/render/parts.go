package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/awp-tray/awp-tray/internal/visible"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/grant"
	"github.com/awp-tray/awp-tray/peer/profile"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// decodePart turns one wire part (p, decoded by wire.Msg.DecodeParts from
// raw) into a Part; unknown kinds and malformed parts become
// PartUnsupported with the raw JSON.
func decodePart(p wire.Part, raw json.RawMessage) Part {
	switch p.K {
	case wire.PartText:
		return Part{Kind: PartText, Text: p.Text}
	case wire.PartCode:
		title := p.Lang
		if p.Path != "" {
			title = strings.TrimSpace(p.Path + " " + paren(p.Lang))
		}
		return Part{Kind: PartCode, Title: title, Text: p.Text, Mono: true, Lang: p.Lang, Path: p.Path}
	case wire.PartBlob:
		return Part{Kind: PartBlob, Title: p.Name, Mime: p.Mime, Blob: &Blob{
			Ref: p.Ref, Name: p.Name, Mime: p.Mime, Size: p.Size, Sha256: p.Sha256,
		}}
	case wire.PartData:
		return dataPart(p.Mime, p.Data)
	case wire.PartMalformed:
		return Part{Kind: PartUnsupported, Title: "malformed part", Text: compact(raw), Mono: true}
	}
	return Part{Kind: PartUnsupported, Title: fmt.Sprintf("unsupported part %q", p.K), Text: compact(raw), Mono: true}
}

func paren(s string) string {
	if s == "" {
		return ""
	}
	return "(" + s + ")"
}

// dataParts render the data parts that get their own summaries: the
// profile's requests and results, and grants.
var dataParts = map[string]func(json.RawMessage) Part{
	profile.MimeExec:        execRequest,
	profile.MimeExecResult:  execResult,
	profile.MimeRead:        fsReadRequest,
	profile.MimeReadResult:  fsReadResult,
	profile.MimeWrite:       fsWriteRequest,
	profile.MimeWriteResult: fsWriteResult,
	peer.MimeGrant:          grantPart,
	peer.MimeGrantRequest:   grantRequestPart,
	peer.MimeGrantDenied:    grantDeniedPart,
}

// dataPart renders a data part: those of dataParts by their own
// function; anything else is pretty JSON.
func dataPart(mime string, data json.RawMessage) Part {
	var p Part
	if f, ok := dataParts[mime]; ok {
		p = f(data)
	} else {
		p = Part{Kind: PartData, Title: mime, Text: Pretty(data), Mono: true}
	}
	p.Mime = mime
	return p
}

// grantDeniedPart renders a grant request's refusal: its reason.
func grantDeniedPart(data json.RawMessage) Part {
	var d peer.GrantDenied
	_ = json.Unmarshal(data, &d)
	return Part{Kind: PartGrantDenied, Title: "grant denied", Text: d.Reason}
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

// execCommand is an exec request's command line as a person reads it: a
// shell string as it is, an argv array joined with spaces (arguments
// holding spaces, quotes or shell metacharacters are quoted); characters
// that do not show as themselves are escaped either way (visible.String).
func execCommand(r profile.ExecRequest) string {
	if s, _, ok := visible.Command(r.Cmd); ok {
		return s
	}
	return visible.String(compact(r.Cmd))
}

// execFields lists an exec request's details in display order.
func execFields(r profile.ExecRequest) []Field {
	cwd := r.Cwd
	if cwd == "" {
		cwd = "(workspace root)"
	}
	f := []Field{{"command", execCommand(r)}, {"cwd", cwd}}
	for _, k := range sortedKeys(r.Env) {
		f = append(f, Field{"env", k + "=" + r.Env[k]})
	}
	if r.Timeout > 0 {
		f = append(f, Field{"timeout", Duration(time.Duration(r.Timeout) * time.Second)})
	}
	if r.Stdin != "" {
		f = append(f, Field{"stdin", fmt.Sprintf("%d bytes", len(r.Stdin))})
	}
	return f
}

func execRequest(data json.RawMessage) Part {
	var r profile.ExecRequest
	if json.Unmarshal(data, &r) != nil {
		return Part{Kind: PartRequest, Title: "exec request (malformed)", Text: Pretty(data), Mono: true}
	}
	return Part{Kind: PartRequest, Title: "exec: " + execCommand(r), Fields: execFields(r)[1:], Text: r.Stdin, Mono: true}
}

func execResult(data json.RawMessage) Part {
	var r profile.ExecResult
	if json.Unmarshal(data, &r) != nil {
		return Part{Kind: PartResult, Title: "exec result (malformed)", Text: Pretty(data), Mono: true}
	}
	title := "exec result"
	if r.Error == "" || r.Exit != 0 {
		// A request that failed before it ran has an error and no exit
		// status (decoded as 0): no "exit 0" for it.
		title = fmt.Sprintf("exec result: exit %d", r.Exit)
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
	var r profile.ReadRequest
	_ = json.Unmarshal(data, &r)
	p := Part{Kind: PartRequest, Title: "read " + r.Path}
	if r.Offset > 0 {
		p.Fields = append(p.Fields, Field{"offset", fmt.Sprint(r.Offset)})
	}
	if r.Length != nil && *r.Length > 0 {
		p.Fields = append(p.Fields, Field{"length", fmt.Sprint(*r.Length)})
	}
	return p
}

func fsReadResult(data json.RawMessage) Part {
	var r profile.ReadResult
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
	var r profile.WriteRequest
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
	var r profile.WriteResult
	_ = json.Unmarshal(data, &r)
	if r.Error != "" {
		return Part{Kind: PartResult, Title: "write " + r.Path + " failed", Fields: []Field{{"error", r.Error}}}
	}
	return Part{Kind: PartResult, Title: fmt.Sprintf("wrote %s to %s", Size(r.Written), r.Path)}
}

// grantPart shows a grant as its text says (grant.Object: not verified;
// the node decides whether it counts).
func grantPart(data json.RawMessage) Part {
	g, _ := grant.DecodeObject(data)
	p := Part{Kind: PartGrant, Title: "grant: " + strings.Join(g.Caps, ", "), Text: g.Note}
	p.Fields = []Field{{"issuer", ShortKey(g.Iss)}, {"holder", ShortKey(g.Sub)}}
	if len(g.On) > 0 {
		p.Fields = append(p.Fields, Field{"on", shortKeys(g.On)})
	}
	p.Fields = append(p.Fields, Field{"expires", g.Exp})
	return p
}

func grantRequestPart(data json.RawMessage) Part {
	var r peer.GrantRequest
	_ = json.Unmarshal(data, &r)
	p := Part{Kind: PartGrantRequest, Title: "asks for a grant: " + strings.Join(r.Caps, ", "), Text: r.Reason}
	if r.Sub != "" {
		p.Fields = append(p.Fields, Field{"for", ShortKey(r.Sub)})
	}
	if len(r.On) > 0 {
		p.Fields = append(p.Fields, Field{"on", shortKeys(r.On)})
	}
	if r.TTL > 0 {
		p.Fields = append(p.Fields, Field{"for how long", Duration(time.Duration(r.TTL) * time.Second)})
	}
	return p
}
