package mcpserver

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// Line is one stored line of a thread as the tools return it: the fields
// an agent reads, decoded from the line as it travelled.
type Line struct {
	Th       string `json:"th" jsonschema:"the thread"`
	Seq      uint64 `json:"seq" jsonschema:"position in the thread, from 1 (awp_show's after takes it)"`
	ID       string `json:"id,omitempty" jsonschema:"the line's id (awp_send's re takes it to answer this line)"`
	Type     string `json:"type" jsonschema:"msg, state, or another line type"`
	Dir      string `json:"dir" jsonschema:"in: received; out: sent by this peer"`
	From     string `json:"from" jsonschema:"key of the peer that wrote the line"`
	FromName string `json:"from_name,omitempty" jsonschema:"its name, when known"`
	TS       string `json:"ts,omitempty" jsonschema:"when the writer sent it (RFC 3339)"`
	Subject  string `json:"subject,omitempty"`
	Re       string `json:"re,omitempty" jsonschema:"id of the line this one answers"`
	Text     string `json:"text,omitempty" jsonschema:"the msg's text parts, joined by blank lines"`
	State    string `json:"state,omitempty" jsonschema:"a state line's state (open, working, waiting, done, failed…)"`
	Note     string `json:"note,omitempty"`
	Parts    []Part `json:"parts,omitempty" jsonschema:"the msg's other parts in order: code, data, blob"`
	Acked    bool   `json:"acked,omitempty" jsonschema:"an out line the other peer has stored"`
	Cut      bool   `json:"cut,omitempty" jsonschema:"a part was cut or left out for size: awp_show with full reads it whole"`
}

// Part is a msg part other than text.
type Part struct {
	K      string          `json:"k" jsonschema:"code, data, blob, or another kind"`
	Text   string          `json:"text,omitempty" jsonschema:"a code part's text"`
	Lang   string          `json:"lang,omitempty"`
	Path   string          `json:"path,omitempty"`
	Mime   string          `json:"mime,omitempty"`
	Data   json.RawMessage `json:"data,omitempty" jsonschema:"a data part's JSON value"`
	Ref    string          `json:"ref,omitempty" jsonschema:"a blob's reference (awp blob get --from FROM REF saves it)"`
	Name   string          `json:"name,omitempty"`
	Size   int64           `json:"size,omitempty" jsonschema:"a blob's size, or the size of data left out"`
	Sha256 string          `json:"sha256,omitempty"`
	Cut    bool            `json:"cut,omitempty" jsonschema:"text cut to its first 32 KiB, or data left out"`
}

// lineView decodes a stored line. names gives a key's name ("" unknown);
// full keeps every part whole.
func lineView(th string, li peer.LineInfo, names func(key.PublicKey) string, full bool) Line {
	l := Line{Th: th, Seq: li.Seq, Dir: li.Dir, From: li.From.String(), FromName: names(li.From), Acked: li.Acked}
	f, err := wire.Decode(li.Line)
	if err != nil {
		// Stored lines were valid when stored; say what is there anyway.
		var h wire.Head
		_ = json.Unmarshal(li.Line, &h)
		l.Type, l.ID, l.TS = h.T, h.ID, h.TS
		return l
	}
	h := f.Header()
	l.Type, l.ID, l.TS = h.T, h.ID, h.TS
	switch f := f.(type) {
	case *wire.Msg:
		l.Subject, l.Re = f.Subject, f.Re
		var texts []string
		for _, p := range f.DecodeParts() {
			if p.K == wire.PartText {
				texts = append(texts, p.Text)
				continue
			}
			vp := Part{K: p.K, Text: p.Text, Lang: p.Lang, Path: p.Path, Mime: p.Mime, Data: p.Data,
				Ref: p.Ref, Name: p.Name, Size: p.Size, Sha256: p.Sha256}
			if !full {
				vp.Text, vp.Cut = cut(vp.Text, MaxPartText)
				if len(vp.Data) > MaxPartData {
					vp.Size, vp.Data, vp.Cut = int64(len(vp.Data)), nil, true
				}
			}
			l.Cut = l.Cut || vp.Cut
			l.Parts = append(l.Parts, vp)
		}
		l.Text = strings.Join(texts, "\n\n")
		if !full {
			var c bool
			l.Text, c = cut(l.Text, MaxPartText)
			l.Cut = l.Cut || c
		}
	case *wire.State:
		l.State, l.Note = f.State, f.Note
	}
	return l
}

// cut returns s cut to at most n bytes at a character boundary, and
// whether it was cut.
func cut(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i], true
}
