package render

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/awp-tray/awp-tray/internal/visible"
	"github.com/awp-tray/awp-tray/peer"
)

// Approval is an approval request as the prompt shows it.
type Approval struct {
	Title  string  // "exec on this peer", "grant for exec, fs:read"
	Who    string  // name and short key of who asks
	Fields []Field // capability, where, the exact command/cwd/path, reason…
	// Whole holds every field uncut when one in Fields was cut at
	// MaxField characters (nil otherwise): the prompt then offers the
	// whole request, shown in wrapped lines (WholeLines).
	Whole []Field
}

// DescribeApproval builds the prompt's content: who asks, for which
// capability, on which peer, the exact command, cwd or path, and why, with
// every character that would not show as itself escaped (visible.String).
// self is this node's key (an empty On means this peer).
func DescribeApproval(r peer.ApprovalRequest, self string) Approval {
	a := Approval{Who: nameOrKey(r.FromName, r.From)}
	caps := strings.Join(r.Caps, ", ")
	switch r.Kind {
	case peer.ApprovalGrantRequest:
		a.Title = a.Who + " asks for a grant: " + caps
	default:
		a.Title = a.Who + " asks to run " + caps + " on this peer"
	}
	a.Fields = append(a.Fields, Field{"who", r.From})
	a.Fields = append(a.Fields, Field{"capability", caps})
	on := "this peer"
	if len(r.On) > 0 {
		var names []string
		for _, k := range r.On {
			if k == self {
				names = append(names, "this peer")
			} else {
				names = append(names, ShortKey(k))
			}
		}
		on = strings.Join(names, ", ")
	}
	a.Fields = append(a.Fields, Field{"on", on})
	if r.Sub != "" && r.Sub != r.From {
		a.Fields = append(a.Fields, Field{"for", ShortKey(r.Sub)})
	}
	a.Fields = append(a.Fields, detailFields(r.Detail)...)
	if r.TTL > 0 {
		a.Fields = append(a.Fields, grantRequestPart(json.RawMessage(`{"ttl":`+itoa(r.TTL)+`}`)).Fields...)
	}
	if r.Reason != "" {
		a.Fields = append(a.Fields, Field{"reason", r.Reason})
	}
	if r.Deadline != "" {
		a.Fields = append(a.Fields, Field{"answer before", r.Deadline})
	}
	// The peer chose the name, command, paths and reason: show every
	// character they hold.
	a.Title, a.Who = Clip(visible.String(a.Title), MaxTitle), visible.String(a.Who)
	for i := range a.Fields {
		a.Fields[i].Value = visible.String(a.Fields[i].Value)
	}
	for i, f := range a.Fields {
		if cut := visible.Cut(f.Value, MaxField); cut != f.Value {
			if a.Whole == nil {
				a.Whole = slices.Clone(a.Fields)
			}
			a.Fields[i].Value = fmt.Sprintf("%s\n(%d characters in all: Show whole request…)", cut, utf8.RuneCountInString(f.Value))
		}
	}
	return a
}

// WholeLines lays out fields for reading in a list: each field's label on
// a line of its own, then its value wrapped at width runes, monospace.
func WholeLines(fields []Field, width int) []string {
	var out []string
	for _, f := range fields {
		out = append(out, f.Label+":")
		for _, l := range Wrap(f.Value, width, true) {
			out = append(out, "  "+l)
		}
	}
	return out
}

// detailFields shows a request's data exactly: the command line, cwd, env
// and timeout of an exec; the path (and flags) of an fs request; anything
// else as compact JSON.
func detailFields(d json.RawMessage) []Field {
	if len(d) == 0 || string(d) == "null" {
		return nil
	}
	var probe struct {
		Cmd     json.RawMessage `json:"cmd"`
		Path    *string         `json:"path"`
		Append  bool            `json:"append"`
		Content *string         `json:"content"`
		Offset  int64           `json:"offset"`
		Length  int64           `json:"length"`
	}
	if json.Unmarshal(d, &probe) != nil {
		return []Field{{"request", compact(d)}}
	}
	switch {
	case len(probe.Cmd) > 0:
		var r ExecRequest
		_ = json.Unmarshal(d, &r)
		return r.Fields()
	case probe.Path != nil:
		f := []Field{{"path", *probe.Path}}
		if probe.Content != nil {
			mode := "replace"
			if probe.Append {
				mode = "append"
			}
			f = append(f, Field{"write", mode + ", " + Size(int64(len(*probe.Content)))})
		}
		if probe.Offset > 0 || probe.Length > 0 {
			f = append(f, Field{"range", itoa(probe.Offset) + "+" + itoa(probe.Length)})
		}
		return f
	}
	return []Field{{"request", compact(d)}}
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
