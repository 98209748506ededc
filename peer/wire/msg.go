package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Part kinds (SPEC §5).
const (
	PartText = "text"
	PartCode = "code"
	PartData = "data"
	PartBlob = "blob"
)

// Msg is a message in a thread (SPEC §5).
type Msg struct {
	Head
	Subject string            `json:"subject,omitempty"`
	Re      string            `json:"re,omitempty"`
	Parts   []json.RawMessage `json:"parts"`
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

// DecodeParts decodes every part; a part that does not decode becomes a Part
// with only K set (shown as unsupported).
func (m *Msg) DecodeParts() []Part {
	out := make([]Part, len(m.Parts))
	for i, raw := range m.Parts {
		if err := json.Unmarshal(raw, &out[i]); err != nil {
			out[i] = Part{K: "?"}
		}
	}
	return out
}

func (m *Msg) validate() error {
	if err := needThread(&m.Head); err != nil {
		return err
	}
	if len(m.Parts) == 0 {
		return errors.New("parts must be a non-empty array")
	}
	for i, raw := range m.Parts {
		var p struct {
			K *string `json:"k"`
		}
		if err := json.Unmarshal(raw, &p); err != nil || p.K == nil {
			return fmt.Errorf("part %d is not an object with a string k", i)
		}
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

// TextPart, CodePart and DataPart build parts.
func TextPart(text string) json.RawMessage { return mustPart(Part{K: PartText, Text: text}) }

// CodePart builds a code part.
func CodePart(text, lang, path string) json.RawMessage {
	return mustPart(Part{K: PartCode, Text: text, Lang: lang, Path: path})
}

// DataPart builds a data part; data must be valid JSON.
func DataPart(mime string, data json.RawMessage) (json.RawMessage, error) {
	if !json.Valid(data) {
		return nil, errors.New("wire: data part: data is not valid JSON")
	}
	return mustPart(Part{K: PartData, Mime: mime, Data: data}), nil
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
	return mustPart(blob{PartBlob, ref, name, mime, size, sha256hex})
}

// mustPart marshals a part like Encode writes lines: without HTML escaping,
// so "<" stays "<" rather than "\u003c".
func mustPart(p any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		panic(err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// Thread states (SPEC §5); unknown ones are kept as text.
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
