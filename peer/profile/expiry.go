package profile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// Request expiry (docs/protocol/profile.md): a request's data may carry
// "exp", an RFC 3339 time; the executing peer does not start it at or
// after exp and answers with a result whose "error" is ErrExpired.

// ErrExpired is the result error of a request that reached its exp before
// it could start (it arrived late, or waited for approval too long).
const ErrExpired = "expired"

// MaxExpLen bounds the text of an exp: the longest RFC 3339 time this peer
// reads ("2006-01-02T15:04:05.999999999+07:00" is 35 bytes).
const MaxExpLen = 35

// ParseExp reads an RFC 3339 date-time strictly: four-digit year, two-digit
// fields, "T" (or "t"), seconds, an optional fraction of 1 to 9 digits,
// and "Z" (or "z") or a numeric offset; the date must exist. Leap seconds
// (second 60) and anything else are refused with an error wrapping
// ErrBadRequest.
func ParseExp(s string) (time.Time, error) {
	bad := func(why string) (time.Time, error) {
		return time.Time{}, fmt.Errorf("%w: exp %q is not an RFC 3339 time (%s)", ErrBadRequest, truncate(s, 40), why)
	}
	if len(s) > MaxExpLen {
		return bad("too long")
	}
	b := []byte(s)
	// YYYY-MM-DDTHH:MM:SS
	const head = "dddd-dd-ddTdd:dd:dd"
	if len(b) < len(head)+1 {
		return bad("too short")
	}
	for i := 0; i < len(head); i++ {
		switch head[i] {
		case 'd':
			if !digit(b[i]) {
				return bad("digit expected")
			}
		case 'T':
			if b[i] != 'T' && b[i] != 't' {
				return bad(`"T" expected`)
			}
			b[i] = 'T'
		default:
			if b[i] != head[i] {
				return bad(fmt.Sprintf("%q expected", head[i]))
			}
		}
	}
	i := len(head)
	if b[i] == '.' {
		j := i + 1
		for j < len(b) && digit(b[j]) {
			j++
		}
		if n := j - i - 1; n < 1 || n > 9 {
			return bad("fraction of 1 to 9 digits expected")
		}
		i = j
	}
	switch rest := b[i:]; {
	case len(rest) == 1 && (rest[0] == 'Z' || rest[0] == 'z'):
		rest[0] = 'Z'
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && digit(rest[1]) && digit(rest[2]) && rest[3] == ':' && digit(rest[4]) && digit(rest[5]):
		if rest[1] > '2' || rest[1] == '2' && rest[2] > '3' || rest[4] > '5' {
			return bad("offset out of range")
		}
	default:
		return bad(`"Z" or an offset expected`)
	}
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return bad("no such time")
	}
	return t, nil
}

func digit(c byte) bool { return c >= '0' && c <= '9' }

// RequestExp returns the "exp" of a request's data: ok is false when it
// has none. A data that is not a JSON object, that holds duplicate keys or
// a key that is "exp" only when case is ignored, or whose exp is not a
// string ParseExp reads, is an error wrapping ErrBadRequest (the node
// answers `err bad_request`, and nothing runs).
func RequestExp(data []byte) (exp time.Time, ok bool, err error) {
	if err := checkObject(data, "exp"); err != nil {
		return time.Time{}, false, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return time.Time{}, false, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	raw, ok := m["exp"]
	if !ok {
		return time.Time{}, false, nil
	}
	var s string
	if bytes.Equal(raw, []byte("null")) || json.Unmarshal(raw, &s) != nil {
		return time.Time{}, false, fmt.Errorf("%w: exp is not a string", ErrBadRequest)
	}
	exp, err = ParseExp(s)
	if err != nil {
		return time.Time{}, false, err
	}
	return exp, true, nil
}

// WithExp returns data (a JSON object) with "exp" no later than exp: a
// requester that stops waiting at exp sets it so (docs/protocol/profile.md). An exp
// already in data that is earlier is kept; otherwise exp is written, in
// UTC to the millisecond (cut, never rounded up). A new "exp" goes at the
// end of the object, so the rest keeps its bytes.
func WithExp(data json.RawMessage, exp time.Time) (json.RawMessage, error) {
	have, ok, err := RequestExp(data)
	if err != nil {
		return nil, err
	}
	text := exp.UTC().Format("2006-01-02T15:04:05.000Z")
	if ok && !have.After(exp) {
		return data, nil
	}
	if ok {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadRequest, err)
		}
		m["exp"], _ = json.Marshal(text)
		return json.Marshal(m)
	}
	body := bytes.TrimRight(data, " \t\r\n")
	body = body[:len(body)-1] // the object's closing brace (checked by RequestExp)
	out := append([]byte(nil), body...)
	if len(bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(out), []byte("{")))) > 0 {
		out = append(out, ',')
	}
	out = append(out, `"exp":"`+text+`"}`...)
	return out, nil
}
