package render

import (
	"fmt"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/wire"
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

// Decode turns a stored line into an Entry. A line that is not a JSON
// object still gives an entry (a notice), never an error: the view shows
// whatever the store holds. Lines are read with wire.DecodeLoose: they were
// checked when they arrived, and a mirrored line is shown as its sharer
// sent it.
func Decode(li peer.LineInfo) Entry {
	e := Entry{Seq: li.Seq, Dir: li.Dir, From: li.From.String(), Acked: li.Acked, MirroredFrom: li.MirroredFrom.String()}
	f, err := wire.DecodeLoose(li.Line)
	if err != nil {
		e.Type = "?"
		e.Parts = []Part{{Kind: PartNotice, Title: "unreadable line", Text: compact(li.Line), Mono: true}}
		return e
	}
	// A raw mirror line: show the original line it carries.
	if m, ok := f.(*wire.Mirror); ok && len(m.Line) > 0 && !m.Withdraw {
		inner := li
		inner.Line = m.Line
		if m.Dir != "" {
			inner.Dir = m.Dir
		}
		return Decode(inner)
	}
	h := f.Header()
	e.Type, e.ID, e.Time = h.T, h.ID, h.TS

	switch l := f.(type) {
	case *wire.Msg:
		e.Re, e.Subject = l.Re, l.Subject
		for i, p := range l.DecodeParts() {
			e.Parts = append(e.Parts, decodePart(p, l.Parts[i]))
		}
		if len(e.Parts) == 0 {
			e.Parts = []Part{{Kind: PartNotice, Title: "empty message"}}
		}
	case *wire.State:
		e.Parts = []Part{{Kind: PartState, Title: l.State, Text: l.Note}}
	case *wire.Chunk:
		e.Hidden = true
	case *wire.Introduce:
		e.Parts = []Part{introducePart(l)}
	case *wire.Private:
		e.Parts = []Part{{Kind: PartNotice, Title: "asked to keep this thread private (no more mirroring)"}}
	case *wire.Mirror:
		e.Parts = []Part{{Kind: PartNotice, Title: "the sharer withdrew this thread"}}
	default:
		e.Parts = []Part{{Kind: PartNotice, Title: fmt.Sprintf("line of unknown type %q", h.T), Text: compact(li.Line), Mono: true}}
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

func introducePart(in *wire.Introduce) Part {
	p := Part{Kind: PartIntroduce, Title: "introduces a peer", Text: in.Note}
	if c := in.Peer; c.Key != "" || c.Name != "" {
		p.Title = "introduces " + nameOrKey(c.Name, c.Key)
		p.Fields = append(p.Fields, Field{"key", c.Key})
		if c.About != "" {
			p.Fields = append(p.Fields, Field{"about", c.About})
		}
		for _, a := range c.Listen {
			p.Fields = append(p.Fields, Field{"listen", a})
		}
	}
	if len(in.Grant) > 0 && string(in.Grant) != "null" {
		g := grantPart(in.Grant)
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
