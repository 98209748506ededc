package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// MaxHops is how far a presence document travels (docs/protocol/presence.md).
const MaxHops = 8

// Presence carries a signed presence document. Doc is kept byte for byte.
type Presence struct {
	Head
	Hops int             `json:"hops"`
	Doc  json.RawMessage `json:"doc"`
}

// docVerbatim reports whether Doc can go on the wire as it is: valid JSON
// and UTF-8 with no newline (a doc from a received line always qualifies).
func (p *Presence) docVerbatim() bool {
	return json.Valid(p.Doc) && utf8.Valid(p.Doc) && bytes.IndexByte(p.Doc, '\n') < 0
}

// encodeVerbatim encodes p with Doc byte for byte: relays forward doc
// unchanged (docs/protocol/presence.md), but encoding/json compacts a json.RawMessage. Doc is
// the last field, so the envelope is encoded with a placeholder doc that is
// then swapped for the real bytes.
func (p *Presence) encodeVerbatim() ([]byte, error) {
	q := *p
	q.Doc = json.RawMessage("0")
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&q); err != nil {
		return nil, fmt.Errorf("wire: encode %s: %w", p.T, err)
	}
	b := bytes.TrimRight(buf.Bytes(), "\n")
	const tail = `"doc":0}`
	if !bytes.HasSuffix(b, []byte(tail)) {
		return nil, fmt.Errorf("wire: encode %s: doc is not the last field", p.T)
	}
	b = append(b[:len(b)-2], p.Doc...)
	return append(b, '}'), nil
}

func (p *Presence) validate() error {
	if len(p.Doc) == 0 || firstNonSpace(p.Doc) != '{' {
		return errors.New("presence needs a doc object")
	}
	if p.Hops < 1 {
		return errors.New("presence hops must be at least 1")
	}
	return nil
}
