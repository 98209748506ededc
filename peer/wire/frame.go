package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Line types.
const (
	TypeHello     = "hello"
	TypeAuth      = "auth"
	TypeResume    = "resume"
	TypeMsg       = "msg"
	TypeState     = "state"
	TypeAck       = "ack"
	TypeErr       = "err"
	TypeChunk     = "chunk"
	TypeIntroduce = "introduce"
	TypePresence  = "presence"
	TypeMirror    = "mirror"
	TypePrivate   = "private"
)

// IsContent reports whether lines of type t are content lines (docs/protocol/acks-and-resume.md,
// docs/protocol/mirror.md): stored, acked and replayed.
func IsContent(t string) bool {
	switch t {
	case TypeMsg, TypeState, TypeChunk, TypeIntroduce, TypeMirror, TypePrivate:
		return true
	}
	return false
}

// Head is the envelope every line shares. Raw holds the line's exact bytes
// (without the newline) once decoded or encoded.
type Head struct {
	T   string `json:"t"`
	ID  string `json:"id,omitempty"`
	TS  string `json:"ts,omitempty"`
	Th  string `json:"th,omitempty"`
	raw []byte
}

// Header returns h itself, so every Frame exposes its envelope.
func (h *Head) Header() *Head { return h }

// Raw returns the exact bytes of the line (nil before Encode for a locally
// built frame).
func (h *Head) Raw() []byte { return h.raw }

// SetRaw records the line's bytes; Encode and Decode call it.
func (h *Head) SetRaw(b []byte) { h.raw = b }

// Frame is one decoded line. The concrete types are *Hello, *Auth, *Resume,
// *Msg, *State, *Ack, *Err, *Chunk, *Introduce, *Presence, *Mirror,
// *Private and *Unknown.
type Frame interface {
	Header() *Head
	Raw() []byte
}

// Unknown is a line whose type this peer does not know; it is ignored.
type Unknown struct{ Head }

// Error codes (docs/protocol/framing.md).
const (
	CodeBadFrame           = "bad_frame"
	CodeBadHello           = "bad_hello"
	CodeUnsupportedVersion = "unsupported_version"
	CodeAuthFailed         = "auth_failed"
	CodeSelf               = "self"
	CodeUnauthenticated    = "unauthenticated"
	CodeNotAllowed         = "not_allowed"
	CodeTimeout            = "timeout"
	CodeTooLarge           = "too_large"
	CodeBadRequest         = "bad_request"
	CodeForbidden          = "forbidden"
	CodeRateLimited        = "rate_limited"
	CodeInternal           = "internal"
)

// FatalCode reports whether an err with this code closes the connection.
func FatalCode(code string) bool {
	switch code {
	case CodeBadFrame, CodeBadHello, CodeUnsupportedVersion, CodeAuthFailed, CodeSelf,
		CodeUnauthenticated, CodeNotAllowed, CodeTimeout:
		return true
	}
	return false
}

// Errors returned while reading and decoding lines.
var (
	// ErrTooLong is returned by Reader.ReadLine when a line exceeds MaxLine.
	ErrTooLong = errors.New("wire: line over 1 MiB")
	// ErrBadFrame is wrapped by decode errors whose line is not a valid frame:
	// invalid UTF-8, invalid JSON, not an object, or no string "t".
	ErrBadFrame = errors.New("wire: bad frame")
	// ErrBadRequest is wrapped by decode errors whose line is a valid frame of
	// a known type but malformed (a missing field, a bad id).
	ErrBadRequest = errors.New("wire: malformed line")
)

// DecodeError says why a line failed to decode and which err code answers it.
type DecodeError struct {
	Code string // CodeBadFrame, CodeBadRequest or CodeBadHello
	T    string // the line type when known
	ID   string // the line id when known (for err.re)
	Th   string
	Msg  string
}

func (e *DecodeError) Error() string {
	if e.T != "" {
		return fmt.Sprintf("wire: %s: %s line: %s", e.Code, e.T, e.Msg)
	}
	return fmt.Sprintf("wire: %s: %s", e.Code, e.Msg)
}

// Unwrap maps the code to ErrBadFrame or ErrBadRequest.
func (e *DecodeError) Unwrap() error {
	if e.Code == CodeBadFrame {
		return ErrBadFrame
	}
	return ErrBadRequest
}

func badFrame(format string, a ...any) error {
	return &DecodeError{Code: CodeBadFrame, Msg: fmt.Sprintf(format, a...)}
}

// Decode parses one line (without its newline) into a Frame that keeps raw
// as its Raw bytes (raw is not copied: callers pass a buffer they own).
// Errors are *DecodeError.
func Decode(raw []byte) (Frame, error) {
	if f, ok := decodeChunkFast(raw); ok {
		return f, nil
	}
	return decodeGeneral(raw)
}

// DecodeTemp is Decode for a line the caller reuses once it returns (see
// Reader.ReadLineTemp): the frame keeps no reference to raw. A chunk line of
// the shape Encode writes is decoded from raw directly, its data into buf
// when cap(buf) is large enough (else into a new slice), and its Raw is nil;
// any other line is decoded from a copy of raw, as Decode would. Like
// Decode, it refuses invalid UTF-8 anywhere in raw (the chunk path accepts
// only valid UTF-8 strings, ASCII around them and base64 data).
func DecodeTemp(raw, buf []byte) (Frame, error) {
	if c, ok := decodeChunkInto(raw, buf); ok {
		return c, nil
	}
	return decodeGeneral(bytes.Clone(raw))
}

// DecodeLoose is Decode for showing a line that was checked when it
// arrived (a stored line, or the original line a mirror carries): framing
// is checked as Decode does (one JSON object with one string "t"), but the
// fields of known types are not validated (ids, times, thread ids, required
// fields), so a display shows what is there rather than refusing it. A
// field of the wrong JSON type is still an error. Errors are *DecodeError.
func DecodeLoose(raw []byte) (Frame, error) {
	return decodeFrame(raw, false)
}

func decodeGeneral(raw []byte) (Frame, error) { return decodeFrame(raw, true) }

// decodeFrame decodes any line; strict validates the fields of known types.
func decodeFrame(raw []byte, strict bool) (Frame, error) {
	if !utf8.Valid(raw) {
		// encoding/json would silently turn invalid UTF-8 into U+FFFD (docs/protocol/framing.md).
		return nil, badFrame("invalid UTF-8")
	}
	if firstNonSpace(raw) != '{' {
		return nil, badFrame("not a JSON object")
	}
	var buf [16]member
	members, err := scanObject(raw, buf[:0])
	if err != nil {
		return nil, badFrame("%v", err)
	}
	var t string
	var tCount int
	var tOK bool
	var idRaw, thRaw []byte
	for _, m := range members {
		switch string(m.name()) {
		case "t":
			tCount++
			t, tOK = stringValue(m.val)
		case "id":
			idRaw = m.val
		case "th":
			thRaw = m.val
		}
	}
	if tCount != 1 || !tOK {
		return nil, badFrame(`no single string field "t"`)
	}
	if t == TypeMsg {
		m, err := decodeMsg(raw, members, strict)
		if err != nil {
			de := &DecodeError{Code: CodeBadRequest, T: t, Msg: err.Error()}
			de.ID, _ = stringValue(idRaw)
			de.Th, _ = stringValue(thRaw)
			return nil, de
		}
		return m, nil
	}
	p := struct{ ID, Th []byte }{idRaw, thRaw}
	f := newFrame(t)
	if f == nil {
		u := &Unknown{}
		u.T = t
		u.ID, _ = stringValue(p.ID)
		u.SetRaw(raw)
		return u, nil
	}
	derr := &DecodeError{Code: CodeBadRequest, T: t}
	if t == TypeHello {
		derr.Code = CodeBadHello
	}
	derr.ID, _ = stringValue(p.ID)
	derr.Th, _ = stringValue(p.Th)
	if err := json.Unmarshal(raw, f); err != nil {
		derr.Msg = err.Error()
		return nil, derr
	}
	f.Header().SetRaw(raw)
	if v, ok := f.(interface{ validate() error }); ok && strict {
		if err := v.validate(); err != nil {
			derr.Msg = err.Error()
			return nil, derr
		}
	}
	return f, nil
}

// newFrame returns an empty frame of line type t, nil for a type this
// package does not know.
func newFrame(t string) Frame {
	switch t {
	case TypeHello:
		return &Hello{}
	case TypeAuth:
		return &Auth{}
	case TypeResume:
		return &Resume{}
	case TypeMsg:
		return &Msg{}
	case TypeState:
		return &State{}
	case TypeAck:
		return &Ack{}
	case TypeErr:
		return &Err{}
	case TypeChunk:
		return &Chunk{}
	case TypeIntroduce:
		return &Introduce{}
	case TypePresence:
		return &Presence{}
	case TypeMirror:
		return &Mirror{}
	case TypePrivate:
		return &Private{}
	}
	return nil
}

func firstNonSpace(b []byte) byte {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c
	}
	return 0
}

// Encode marshals f, records the bytes as its Raw, and returns them (no
// newline). Frames whose Raw is already set (decoded, or encoded before) are
// returned as they are, so replays and relays are byte for byte.
func Encode(f Frame) ([]byte, error) {
	h := f.Header()
	if h.raw != nil {
		return h.raw, nil
	}
	var b []byte
	var err error
	if c, ok := f.(*Chunk); ok {
		b = c.appendJSON(nil)
	} else if m, ok := f.(*Msg); ok {
		if b, err = m.appendJSON(nil); err != nil {
			return nil, fmt.Errorf("wire: encode msg: %w", err)
		}
	} else if p, ok := f.(*Presence); ok && p.docVerbatim() {
		if b, err = p.encodeVerbatim(); err != nil {
			return nil, err
		}
	} else {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err = enc.Encode(f); err != nil {
			return nil, fmt.Errorf("wire: encode %s: %w", h.T, err)
		}
		b = bytes.TrimRight(buf.Bytes(), "\n")
	}
	if len(b) > MaxLine {
		return nil, fmt.Errorf("wire: encode %s: %w", h.T, ErrTooLong)
	}
	h.raw = b
	return b, nil
}

// validation helpers

func needID(h *Head) error {
	if !ValidID(h.ID) {
		return fmt.Errorf("bad or missing id %q", clip(h.ID))
	}
	if _, err := ParseTime(h.TS); err != nil {
		return fmt.Errorf("bad or missing ts %q", clip(h.TS))
	}
	return nil
}

func needThread(h *Head) error {
	if err := needID(h); err != nil {
		return err
	}
	if !ValidThread(h.Th) {
		return fmt.Errorf("bad or missing th %q", clip(h.Th))
	}
	return nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// Clip returns s cut to at most n bytes on a rune boundary, ending in "…"
// when it was cut (n counts the ellipsis's 3 bytes; below 3 the ellipsis
// alone is returned).
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n -= len("…")
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	if n < 0 {
		n = 0
	}
	return s[:n] + "…"
}
