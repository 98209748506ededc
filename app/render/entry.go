package render

import (
	"encoding/json"
	"fmt"

	"github.com/awp-tray/awp-tray/peer"
)

// PartKind says how a Part is shown.
type PartKind string

// The part kinds.
const (
	PartText         PartKind = "text"          // prose
	PartCode         PartKind = "code"          // monospace, with language and path
	PartData         PartKind = "data"          // a data part: pretty JSON
	PartBlob         PartKind = "blob"          // a file: name, size, progress, Save…
	PartState        PartKind = "state"         // a state line: the sender's new state
	PartRequest      PartKind = "request"       // exec / fs:read / fs:write request
	PartResult       PartKind = "result"        // the result of such a request
	PartGrant        PartKind = "grant"         // a signed grant
	PartGrantRequest PartKind = "grant_request" // a peer asks for a grant
	PartGrantDenied  PartKind = "grant_denied"  // a grant request was denied
	PartIntroduce    PartKind = "introduce"     // an introduction of a third peer
	PartNotice       PartKind = "notice"        // private, withdraw, unknown line types
	PartUnsupported  PartKind = "unsupported"   // a part with an unknown k
)

// Field is a labelled detail of a part (cwd, exit code, expiry…).
type Field struct {
	Label string
	Value string
}

// Blob names a file announced in a blob part.
type Blob struct {
	Ref    string
	Name   string
	Mime   string
	Size   int64
	Sha256 string
}

// Part is one shown piece of an entry.
type Part struct {
	Kind   PartKind
	Title  string  // one-line summary; empty for plain text
	Text   string  // body: prose, code, pretty JSON, command output
	Mono   bool    // the body is shown in a monospace font
	Lang   string  // code language, when given
	Path   string  // code path, when given
	Mime   string  // data or blob mime type
	Fields []Field // details, in display order
	Blob   *Blob   // set for PartBlob
}

// Entry is one stored line as the thread view shows it.
type Entry struct {
	Seq          uint64
	Dir          string // "in" or "out"
	From         string // the sender's key
	Type         string // the wire type: msg, state, chunk, introduce…
	ID           string
	Re           string // the id this line answers, if any
	Time         string // the line's ts
	Subject      string
	Acked        bool
	MirroredFrom string
	Hidden       bool // not shown on its own (chunks show as blob progress)
	Parts        []Part
}

// wireLine holds the fields of every content line type the view reads.
type wireLine struct {
	T        string            `json:"t"`
	ID       string            `json:"id"`
	TS       string            `json:"ts"`
	Th       string            `json:"th"`
	Subject  string            `json:"subject"`
	Re       string            `json:"re"`
	Parts    []json.RawMessage `json:"parts"`
	State    string            `json:"state"`
	Note     string            `json:"note"`
	Ref      string            `json:"ref"`
	Peer     *introPeer        `json:"peer"`
	Grant    json.RawMessage   `json:"grant"`
	Line     json.RawMessage   `json:"line"`
	Dir      string            `json:"dir"`
	Of       string            `json:"of"`
	Withdraw bool              `json:"withdraw"`
}

type introPeer struct {
	Key    string   `json:"key"`
	Name   string   `json:"name"`
	Listen []string `json:"listen"`
	About  string   `json:"about"`
}

// Decode turns a stored line into an Entry. A line that is not a JSON
// object still gives an entry (a notice), never an error: the view shows
// whatever the store holds.
func Decode(li peer.LineInfo) Entry {
	e := Entry{Seq: li.Seq, Dir: li.Dir, From: li.From, Acked: li.Acked, MirroredFrom: li.MirroredFrom}
	var w wireLine
	if err := json.Unmarshal(li.Line, &w); err != nil {
		e.Type = "?"
		e.Parts = []Part{{Kind: PartNotice, Title: "unreadable line", Text: compact(li.Line), Mono: true}}
		return e
	}
	// A raw mirror line: show the original line it carries.
	if w.T == "mirror" && len(w.Line) > 0 && !w.Withdraw {
		inner := li
		inner.Line = w.Line
		if w.Dir != "" {
			inner.Dir = w.Dir
		}
		return Decode(inner)
	}
	e.Type, e.ID, e.Re, e.Time, e.Subject = w.T, w.ID, w.Re, w.TS, w.Subject

	switch w.T {
	case "msg":
		for _, raw := range w.Parts {
			e.Parts = append(e.Parts, decodePart(raw))
		}
		if len(e.Parts) == 0 {
			e.Parts = []Part{{Kind: PartNotice, Title: "empty message"}}
		}
	case "state":
		e.Parts = []Part{{Kind: PartState, Title: w.State, Text: w.Note}}
	case "chunk":
		e.Hidden = true
	case "introduce":
		e.Parts = []Part{introducePart(w)}
	case "private":
		e.Parts = []Part{{Kind: PartNotice, Title: "asked to keep this thread private (no more mirroring)"}}
	case "mirror":
		e.Parts = []Part{{Kind: PartNotice, Title: "the sharer withdrew this thread"}}
	default:
		e.Parts = []Part{{Kind: PartNotice, Title: fmt.Sprintf("line of unknown type %q", w.T), Text: compact(li.Line), Mono: true}}
	}
	return e
}

// DecodeAll decodes a thread's lines.
func DecodeAll(lines []peer.LineInfo) []Entry {
	out := make([]Entry, len(lines))
	for i, li := range lines {
		out[i] = Decode(li)
	}
	return out
}

func introducePart(w wireLine) Part {
	p := Part{Kind: PartIntroduce, Title: "introduces a peer", Text: w.Note}
	if w.Peer != nil {
		p.Title = "introduces " + nameOrKey(w.Peer.Name, w.Peer.Key)
		p.Fields = append(p.Fields, Field{"key", w.Peer.Key})
		if w.Peer.About != "" {
			p.Fields = append(p.Fields, Field{"about", w.Peer.About})
		}
		for _, a := range w.Peer.Listen {
			p.Fields = append(p.Fields, Field{"listen", a})
		}
	}
	if len(w.Grant) > 0 && string(w.Grant) != "null" {
		g := grantPart(w.Grant)
		p.Fields = append(p.Fields, Field{"with", g.Title})
	}
	return p
}

// nameOrKey is "name (short)" or the short key alone.
func nameOrKey(name, k string) string {
	name = Clip(name, MaxName)
	if name == "" {
		return ShortKey(k)
	}
	if k == "" {
		return name
	}
	return name + " (" + ShortKey(k) + ")"
}
