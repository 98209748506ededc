package localapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

// The thread list is the one large answer people wait for: 10,000 threads
// are ~4 MB of JSON, which encoding/json took ~25 ms to write and ~100 ms
// to read on this kind of machine (most of `awp threads`). This file
// writes and reads that one shape directly: appendThreads produces the
// bytes encoding/json would (TestThreadsJSONSame), and parseThreads reads
// what it writes, declining anything else (an unknown or differently cased
// key, a null, a number with a fraction) so the caller falls back to
// encoding/json, whose result it then is. FuzzThreadsJSON checks both.

// appendThreads appends ths as a JSON array, as an encoding/json Encoder
// with SetEscapeHTML(false) writes it (with its newline).
func appendThreads(b []byte, ths []peer.ThreadInfo) []byte {
	b = append(b, '[')
	for i := range ths {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendThread(b, &ths[i])
	}
	return append(b, ']', '\n')
}

// appendThread appends one ThreadInfo: its fields in struct order, with
// the same omitempty ones left out.
func appendThread(b []byte, t *peer.ThreadInfo) []byte {
	b = append(b, `{"th":`...)
	b = appendJSONString(b, t.Th)
	b = append(b, `,"peer":`...)
	b = appendKey(b, t.Peer)
	if t.PeerName != "" {
		b = append(b, `,"peer_name":`...)
		b = appendJSONString(b, t.PeerName)
	}
	b = append(b, `,"subject":`...)
	b = appendJSONString(b, t.Subject)
	b = append(b, `,"mine":`...)
	b = appendJSONString(b, t.Mine)
	b = append(b, `,"theirs":`...)
	b = appendJSONString(b, t.Theirs)
	b = append(b, `,"unread":`...)
	b = strconv.AppendInt(b, int64(t.Unread), 10)
	b = append(b, `,"updated":`...)
	b = appendJSONString(b, t.Updated)
	b = append(b, `,"lines":`...)
	b = strconv.AppendInt(b, int64(t.Lines), 10)
	if t.LastText != "" {
		b = append(b, `,"last_text":`...)
		b = appendJSONString(b, t.LastText)
	}
	if !t.LastFrom.IsZero() {
		b = append(b, `,"last_from":`...)
		b = appendKey(b, t.LastFrom)
	}
	if !t.MirroredFrom.IsZero() {
		b = append(b, `,"mirrored_from":`...)
		b = appendKey(b, t.MirroredFrom)
	}
	b = append(b, `,"mirror":`...)
	b = strconv.AppendBool(b, t.Mirror)
	b = append(b, `,"private":`...)
	b = strconv.AppendBool(b, t.Private)
	if t.Withdrawn {
		b = append(b, `,"withdrawn":true`...)
	}
	return append(b, '}')
}

const hexDigits = "0123456789abcdef"

// appendJSONString is encoding/json's string encoding without HTML escaping:
// quotes, backslashes and control characters escaped, invalid UTF-8 as
// \ufffd, U+2028 and U+2029 as \u2028 and \u2029.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// parseThreads reads a JSON array of ThreadInfo in the shape appendThreads
// writes (any whitespace, any key order, keys repeated). ok is false for
// anything else; the caller then decodes with encoding/json.
func parseThreads(data []byte) (ths []peer.ThreadInfo, ok bool) {
	// One copy of the whole answer: every string read is a piece of it
	// (no allocation per field), and a caller holding the list holds the
	// answer's bytes once.
	p := jsonParser{b: string(data)}
	p.ws()
	if !p.eat('[') {
		return nil, false
	}
	ths = []peer.ThreadInfo{}
	p.ws()
	if p.eat(']') {
		return ths, p.end()
	}
	for {
		var t peer.ThreadInfo
		if !p.thread(&t) {
			return nil, false
		}
		ths = append(ths, t)
		p.ws()
		if p.eat(']') {
			return ths, p.end()
		}
		if !p.eat(',') {
			return nil, false
		}
		p.ws()
	}
}

type jsonParser struct {
	b    string
	i    int
	keys map[string]key.PublicKey // keys read so far: a list repeats few
}

// key reads a key's text ("" is the zero key); a malformed key fails, and
// the caller's encoding/json fallback reports it.
func (p *jsonParser) key() (key.PublicKey, bool) {
	s, ok := p.str()
	if !ok {
		return key.PublicKey{}, false
	}
	if k, ok := p.keys[s]; ok {
		return k, true
	}
	var k key.PublicKey
	if k.UnmarshalText([]byte(s)) != nil {
		return key.PublicKey{}, false
	}
	if p.keys == nil {
		p.keys = map[string]key.PublicKey{}
	}
	p.keys[s] = k
	return k, true
}

// appendKey appends k's text as a JSON string: a key's text ("ed25519:"
// and base64url) needs no escaping.
func appendKey(b []byte, k key.PublicKey) []byte {
	b = append(b, '"')
	b, _ = k.AppendText(b)
	return append(b, '"')
}

func (p *jsonParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// end reports whether only whitespace is left.
func (p *jsonParser) end() bool {
	p.ws()
	return p.i == len(p.b)
}

func (p *jsonParser) thread(t *peer.ThreadInfo) bool {
	if !p.eat('{') {
		return false
	}
	p.ws()
	if p.eat('}') {
		return true
	}
	for {
		k, ok := p.str()
		if !ok {
			return false
		}
		p.ws()
		if !p.eat(':') {
			return false
		}
		p.ws()
		switch k {
		case "th":
			t.Th, ok = p.str()
		case "peer":
			t.Peer, ok = p.key()
		case "peer_name":
			t.PeerName, ok = p.str()
		case "subject":
			t.Subject, ok = p.str()
		case "mine":
			t.Mine, ok = p.str()
		case "theirs":
			t.Theirs, ok = p.str()
		case "unread":
			t.Unread, ok = p.int()
		case "updated":
			t.Updated, ok = p.str()
		case "lines":
			t.Lines, ok = p.int()
		case "last_text":
			t.LastText, ok = p.str()
		case "last_from":
			t.LastFrom, ok = p.key()
		case "mirrored_from":
			t.MirroredFrom, ok = p.key()
		case "mirror":
			t.Mirror, ok = p.bool()
		case "private":
			t.Private, ok = p.bool()
		case "withdrawn":
			t.Withdrawn, ok = p.bool()
		default:
			return false
		}
		if !ok {
			return false
		}
		p.ws()
		if p.eat('}') {
			return true
		}
		if !p.eat(',') {
			return false
		}
		p.ws()
	}
}

// str reads a string. One with escapes, control characters or invalid
// UTF-8 is handed to encoding/json (rare: a quote in a subject), which
// decides what it means or that it is not JSON.
func (p *jsonParser) str() (string, bool) {
	if !p.eat('"') {
		return "", false
	}
	start := p.i
	n := strings.IndexByte(p.b[start:], '"')
	if n < 0 {
		return "", false
	}
	if seg := p.b[start : start+n]; strings.IndexByte(seg, '\\') < 0 && plainJSON(seg) {
		p.i = start + n + 1
		return seg, true
	}
	// Find the closing quote past escapes, then let encoding/json read it.
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case '"':
			p.i++
			var s string
			if json.Unmarshal([]byte(p.b[start-1:p.i]), &s) != nil {
				return "", false
			}
			return s, true
		case '\\':
			p.i += 2
		default:
			p.i++
		}
	}
	return "", false
}

// plainJSON reports whether s holds no control characters and is valid
// UTF-8: a JSON string's contents that mean themselves.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 {
			return false
		}
	}
	return utf8.ValidString(s)
}

// int reads an integer as JSON writes one (no fraction, exponent or
// leading zeros) that fits an int.
func (p *jsonParser) int() (int, bool) {
	start := p.i
	p.eat('-')
	d := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	if p.i == d || (p.b[d] == '0' && p.i-d > 1) {
		return 0, false
	}
	if p.i < len(p.b) && (p.b[p.i] == '.' || p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		return 0, false
	}
	n, err := strconv.ParseInt(p.b[start:p.i], 10, strconv.IntSize)
	return int(n), err == nil
}

func (p *jsonParser) bool() (bool, bool) {
	switch {
	case strings.HasPrefix(p.b[p.i:], "true"):
		p.i += 4
		return true, true
	case strings.HasPrefix(p.b[p.i:], "false"):
		p.i += 5
		return false, true
	}
	return false, false
}

// writeThreads answers with a thread list.
func writeThreads(w http.ResponseWriter, ths []peer.ThreadInfo) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(appendThreads(make([]byte, 0, 64+len(ths)*400), ths)) // a write error means the client is gone
}

// threads does GET /v0/threads and reads the list.
func (c *Client) threads(ctx context.Context) ([]peer.ThreadInfo, error) {
	resp, err := c.do(ctx, "threads", http.MethodGet, "/v0/threads", nil, nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("localapi: threads: %w", ctx.Err())
		}
		return nil, fmt.Errorf("localapi: threads: read answer: %w", err)
	}
	if ths, ok := parseThreads(body); ok {
		return ths, nil
	}
	var ths []peer.ThreadInfo
	if err := json.Unmarshal(body, &ths); err != nil {
		return nil, fmt.Errorf("localapi: threads: decode answer: %w", err)
	}
	return ths, nil
}
