package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Part kinds (docs/protocol/messages.md).
const (
	PartText = "text"
	PartCode = "code"
	PartData = "data"
	PartBlob = "blob"
	// PartMalformed is the K DecodeParts gives a part that does not decode
	// (not an object with a string k, or a known field of the wrong type).
	// A part a peer sends with k "?" is shown the same way.
	PartMalformed = "?"
)

// Msg is a message in a thread (docs/protocol/messages.md).
type Msg struct {
	Head
	Subject string            `json:"subject,omitempty"`
	Re      string            `json:"re,omitempty"`
	Parts   []json.RawMessage `json:"parts"`

	parts   []Part // decoded Parts, cached by DecodeParts
	partsOK []bool // whether each part is an object with a string k
}

// Part is the decoded view of one part. Unknown kinds and fields survive in
// the raw part the Msg keeps.
type Part struct {
	K      string          `json:"k"`
	Text   string          `json:"text,omitempty"`
	Lang   string          `json:"lang,omitempty"`
	Path   string          `json:"path,omitempty"`
	Mime   string          `json:"mime,omitempty"`
	Data   json.RawMessage `json:"data,omitempty"`
	Ref    string          `json:"ref,omitempty"`
	Name   string          `json:"name,omitempty"`
	Size   int64           `json:"size,omitempty"`
	Sha256 string          `json:"sha256,omitempty"`
}

// DecodeParts decodes every part (once; the result is cached and shared:
// do not modify it). A part that does not decode becomes a Part with only K
// set to PartMalformed (shown as unsupported).
func (m *Msg) DecodeParts() []Part {
	if m.parts != nil && len(m.parts) == len(m.Parts) {
		return m.parts
	}
	out := make([]Part, len(m.Parts))
	ok := make([]bool, len(m.Parts))
	for i, raw := range m.Parts {
		out[i], ok[i] = decodePart(raw)
	}
	m.parts, m.partsOK = out, ok
	return out
}

// decodePart reads one part with the scanner; ok is false when the part is
// not an object with a string k, or a known field has the wrong type.
func decodePart(raw []byte) (Part, bool) {
	var buf [12]member
	members, err := scanObject(raw, buf[:0])
	if err != nil {
		return Part{K: PartMalformed}, false
	}
	var p Part
	hasK := false
	for _, mb := range members {
		var dst *string
		switch string(mb.name()) {
		case "k":
			dst, hasK = &p.K, true
		case "text":
			dst = &p.Text
		case "lang":
			dst = &p.Lang
		case "path":
			dst = &p.Path
		case "mime":
			dst = &p.Mime
		case "ref":
			dst = &p.Ref
		case "name":
			dst = &p.Name
		case "sha256":
			dst = &p.Sha256
		case "data":
			p.Data = json.RawMessage(mb.val)
		case "size":
			if string(mb.val) == "null" {
				continue
			}
			n, ok := intValue(mb.val)
			if !ok {
				return Part{K: PartMalformed}, false
			}
			p.Size = n
		}
		if dst != nil {
			s, ok := optString(mb.val)
			if !ok {
				return Part{K: PartMalformed}, false
			}
			*dst = s
		}
	}
	if !hasK {
		return Part{K: PartMalformed}, false
	}
	return p, true
}

// optString reads a string value, with null meaning "".
func optString(v []byte) (string, bool) {
	if string(v) == "null" {
		return "", true
	}
	return stringValue(v)
}

// decodeMsg decodes a msg from the scanner's members without encoding/json.
func decodeMsg(raw []byte, members []member, strict bool) (*Msg, error) {
	m := &Msg{}
	m.T = TypeMsg
	for _, mb := range members {
		var dst *string
		switch string(mb.name()) {
		case "id":
			dst = &m.ID
		case "ts":
			dst = &m.TS
		case "th":
			dst = &m.Th
		case "subject":
			dst = &m.Subject
		case "re":
			dst = &m.Re
		case "parts":
			if string(mb.val) == "null" {
				m.Parts = nil
				continue
			}
			if mb.val[0] != '[' {
				return nil, errors.New("parts must be an array")
			}
			var elems [][]byte
			if _, err := scanArrayAt(mb.val, 0, 1, &elems); err != nil {
				return nil, err
			}
			m.Parts = make([]json.RawMessage, len(elems))
			for i, e := range elems {
				m.Parts[i] = e
			}
		}
		if dst != nil {
			s, ok := optString(mb.val)
			if !ok {
				return nil, fmt.Errorf("field %s must be a string", mb.keyString())
			}
			*dst = s
		}
	}
	m.SetRaw(raw)
	if !strict {
		return m, nil
	}
	if err := m.validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// BadPart returns the index of the first part that is not an object with a
// string k (or has a known field of the wrong type), or -1.
func (m *Msg) BadPart() int {
	m.DecodeParts()
	for i, ok := range m.partsOK {
		if !ok {
			return i
		}
	}
	return -1
}

func (m *Msg) validate() error {
	if err := needThread(&m.Head); err != nil {
		return err
	}
	if len(m.Parts) == 0 {
		return errors.New("parts must be a non-empty array")
	}
	if i := m.BadPart(); i >= 0 {
		return fmt.Errorf("part %d is not an object with a string k (or a field has the wrong type)", i)
	}
	if m.Re != "" && !ValidID(m.Re) {
		return fmt.Errorf("bad re %q", clip(m.Re))
	}
	for _, p := range m.DecodeParts() {
		if p.K == PartBlob && (p.Ref == "" || p.Size < 0) {
			return errors.New("blob part needs ref and a size")
		}
	}
	return nil
}

// TextPart builds a text part. Its text is written even when empty (the
// field is required), unlike Part's omitempty encoding.
func TextPart(text string) json.RawMessage {
	type textPart struct {
		K    string `json:"k"`
		Text string `json:"text"`
	}
	return MustMarshal(textPart{PartText, text})
}

// CodePart builds a code part; lang and path are left out when empty, the
// text never is.
func CodePart(text, lang, path string) json.RawMessage {
	type codePart struct {
		K    string `json:"k"`
		Text string `json:"text"`
		Lang string `json:"lang,omitempty"`
		Path string `json:"path,omitempty"`
	}
	return MustMarshal(codePart{PartCode, text, lang, path})
}

// MimeJSON is a data part's mime when the sender names none.
const MimeJSON = "application/json"

// DataPart builds a data part; data must be valid JSON. An empty mime is
// MimeJSON.
func DataPart(mime string, data json.RawMessage) (json.RawMessage, error) {
	if mime == "" {
		mime = MimeJSON
	}
	if !json.Valid(data) {
		return nil, errors.New("wire: data part: data is not valid JSON")
	}
	return MustMarshal(Part{K: PartData, Mime: mime, Data: data}), nil
}

// BlobPart builds a blob part.
func BlobPart(ref, name, mime string, size int64, sha256hex string) json.RawMessage {
	// size 0 must still be written: build by hand instead of omitempty.
	type blob struct {
		K      string `json:"k"`
		Ref    string `json:"ref"`
		Name   string `json:"name"`
		Mime   string `json:"mime"`
		Size   int64  `json:"size"`
		Sha256 string `json:"sha256,omitempty"`
	}
	return MustMarshal(blob{PartBlob, ref, name, mime, size, sha256hex})
}

// MustMarshal marshals v like Encode writes lines: without HTML escaping,
// so "<" stays "<" rather than "\u003c". It panics when v does not encode:
// give it only values that always do (the parts here, a request's data
// built from checked input).
func MustMarshal(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// Thread states (docs/protocol/messages.md); unknown ones are kept as text.
const (
	StateOpen    = "open"
	StateWorking = "working"
	StateWaiting = "waiting"
	StateDone    = "done"
	StateFailed  = "failed"
	StateClosed  = "closed"
)

// State declares the sender's own status in a thread.
type State struct {
	Head
	State string `json:"state"`
	Note  string `json:"note,omitempty"`
}

func (s *State) validate() error {
	if err := needThread(&s.Head); err != nil {
		return err
	}
	if s.State == "" {
		return errors.New("state needs a state")
	}
	return nil
}

// appendJSON writes the msg without reflection, in the field order of the
// struct (what encoding/json would write). Parts are raw JSON: any that
// holds white space outside strings is compacted, so a line never holds a
// newline.
func (m *Msg) appendJSON(b []byte) ([]byte, error) {
	if b == nil {
		n := 96 + len(m.ID) + len(m.TS) + len(m.Th) + len(m.Subject) + len(m.Re)
		for _, p := range m.Parts {
			n += len(p) + 1
		}
		b = make([]byte, 0, n)
	}
	b = append(b, `{"t":`...)
	b = appendCanonString(b, m.T)
	b = appendOptString(b, `,"id":`, m.ID)
	b = appendOptString(b, `,"ts":`, m.TS)
	b = appendOptString(b, `,"th":`, m.Th)
	b = appendOptString(b, `,"subject":`, m.Subject)
	b = appendOptString(b, `,"re":`, m.Re)
	b = append(b, `,"parts":`...)
	if m.Parts == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, p := range m.Parts {
			if i > 0 {
				b = append(b, ',')
			}
			if needsCompact(p) {
				var buf bytes.Buffer
				if err := json.Compact(&buf, p); err != nil {
					return nil, fmt.Errorf("part %d: %w", i, err)
				}
				b = append(b, buf.Bytes()...)
			} else {
				if end, err := scanValue(p, 0, 0); err != nil || end != len(p) {
					return nil, fmt.Errorf("part %d is not valid JSON", i)
				}
				b = append(b, p...)
			}
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

// needsCompact reports whether raw JSON holds a byte json.Compact would
// remove or that may not appear in a line (white space, invalid JSON).
func needsCompact(p []byte) bool {
	in := false // inside a string, where white space stays (control bytes fail the scan)
	for i := 0; i < len(p); i++ {
		c := p[i]
		if in {
			if c == '\\' {
				i++
			} else if c == '"' {
				in = false
			}
			continue
		}
		switch c {
		case '"':
			in = true
		case '\n', '\r', '\t', ' ':
			return true
		}
	}
	return len(p) == 0
}

// Placeholders EncodeMsgTemplate writes for a msg's id and ts (their final
// forms have these exact lengths: a ULID and TimeFormat).
const (
	idHolder = "00000000000000000000000000"
	tsHolder = "0000-00-00T00:00:00.000Z"
)

// msgStampAt is where the id of a msg line begins: `{"t":"msg","id":"`; the
// ts follows at msgStampAt+len(idHolder)+len(`","ts":"`).
const (
	msgStampAt = len(`{"t":"msg","id":"`)
	msgTSAt    = msgStampAt + len(idHolder) + len(`","ts":"`)
)

// EncodeMsgTemplate encodes m with placeholders for its id and ts, so the
// encoding can happen before they are known and StampMsg fills them in
// place (m's own ID and TS are ignored and left empty; m is not safe for
// concurrent use during the call).
func EncodeMsgTemplate(m *Msg) ([]byte, error) {
	m.T, m.ID, m.TS = TypeMsg, idHolder, tsHolder
	m.SetRaw(nil)
	b, err := Encode(m)
	m.ID, m.TS = "", ""
	m.SetRaw(nil)
	return b, err
}

// StampMsg writes id and ts into a line from EncodeMsgTemplate.
func StampMsg(raw []byte, id, ts string) error {
	if len(id) != len(idHolder) || len(ts) != len(tsHolder) || len(raw) < msgTSAt+len(tsHolder) ||
		string(raw[:msgStampAt]) != `{"t":"msg","id":"` || string(raw[msgStampAt+len(idHolder):msgTSAt]) != `","ts":"` {
		return fmt.Errorf("wire: stamp msg: not a msg template or a bad id/ts (%q, %q)", id, ts)
	}
	copy(raw[msgStampAt:], id)
	copy(raw[msgTSAt:], ts)
	return nil
}

// ValidPart reports whether raw is a JSON object with a string "k" (and
// known fields of the right types): what a msg part must be.
func ValidPart(raw []byte) bool {
	_, ok := decodePart(raw)
	return ok
}

// appendOptString appends `,"name":` and v when v is not empty (omitempty).
func appendOptString(b []byte, member, v string) []byte {
	if v == "" {
		return b
	}
	return appendCanonString(append(b, member...), v)
}
