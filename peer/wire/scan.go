package wire

import (
	"encoding/json"
	"errors"
	"strconv"
)

// A small validating JSON scanner for the hot path: it checks syntax in one
// pass and hands out the raw spans of an object's members, with keys matched
// exactly (encoding/json folds case for struct fields). Values it does not
// understand stay raw; strings with escapes are unquoted by encoding/json.

var errSyntax = errors.New("invalid JSON")

const maxScanDepth = 512

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// member is one object member: its key (still quoted-form content, without
// the quotes) and its raw value.
type member struct {
	key     []byte
	escaped bool // the key holds a backslash escape
	val     []byte
}

// scanObject validates that b is one JSON object (white space around it
// allowed) and returns its members in order.
func scanObject(b []byte, members []member) ([]member, error) {
	// Not recursive (nested values go through scanValue), so a caller's
	// stack buffer for members stays on the stack.
	i, err := objectStart(b, skipSpace(b, 0), 0)
	if err != nil {
		return nil, err
	}
	for i >= 0 {
		var m member
		if m, i, err = nextMember(b, i, 0); err != nil {
			return nil, err
		}
		members = append(members, m)
	}
	if skipSpace(b, -i-1) != len(b) {
		return nil, errSyntax
	}
	return members, nil
}

// scanObjectAt scans (validates) an object at b[i] ('{') and returns the
// index after it.
func scanObjectAt(b []byte, i, depth int) (int, error) {
	i, err := objectStart(b, i, depth)
	for err == nil && i >= 0 {
		_, i, err = nextMember(b, i, depth)
	}
	if err != nil {
		return 0, err
	}
	return -i - 1, nil
}

// objectStart checks the '{' at b[i] and returns where the first member
// starts, or -(end+1) for an empty object ending at end.
func objectStart(b []byte, i, depth int) (int, error) {
	if depth > maxScanDepth {
		return 0, errors.New("JSON nested too deep")
	}
	if i >= len(b) || b[i] != '{' {
		return 0, errSyntax
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return -(i + 1) - 1, nil
	}
	return i, nil
}

// nextMember scans the member at b[i]; next is where the following member
// starts, or -(end+1) after the closing brace (end is the index after it).
func nextMember(b []byte, i, depth int) (m member, next int, err error) {
	if i >= len(b) || b[i] != '"' {
		return m, 0, errSyntax
	}
	ks := i
	ke, esc, err := scanString(b, i)
	if err != nil {
		return m, 0, err
	}
	i = skipSpace(b, ke)
	if i >= len(b) || b[i] != ':' {
		return m, 0, errSyntax
	}
	i = skipSpace(b, i+1)
	vs := i
	ve, err := scanValue(b, i, depth+1)
	if err != nil {
		return m, 0, err
	}
	m = member{key: b[ks+1 : ke-1], escaped: esc, val: b[vs:ve]}
	i = skipSpace(b, ve)
	if i >= len(b) {
		return m, 0, errSyntax
	}
	if b[i] == '}' {
		return m, -(i + 1) - 1, nil
	}
	if b[i] != ',' {
		return m, 0, errSyntax
	}
	return m, skipSpace(b, i+1), nil
}

// scanArrayAt scans an array at b[i] ('['); when out is non-nil it collects
// the raw elements.
func scanArrayAt(b []byte, i, depth int, out *[][]byte) (int, error) {
	if depth > maxScanDepth {
		return 0, errors.New("JSON nested too deep")
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for {
		vs := i
		ve, err := scanValue(b, i, depth+1)
		if err != nil {
			return 0, err
		}
		if out != nil {
			*out = append(*out, b[vs:ve])
		}
		i = skipSpace(b, ve)
		if i >= len(b) {
			return 0, errSyntax
		}
		if b[i] == ']' {
			return i + 1, nil
		}
		if b[i] != ',' {
			return 0, errSyntax
		}
		i = skipSpace(b, i+1)
	}
}

// scanValue returns the index after the value at b[i].
func scanValue(b []byte, i, depth int) (int, error) {
	if i >= len(b) {
		return 0, errSyntax
	}
	switch c := b[i]; {
	case c == '{':
		return scanObjectAt(b, i, depth)
	case c == '[':
		return scanArrayAt(b, i, depth, nil)
	case c == '"':
		e, _, err := scanString(b, i)
		return e, err
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return scanNumber(b, i)
	}
	return 0, errSyntax
}

func literal(b []byte, i int, lit string) (int, error) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, errSyntax
	}
	return i + len(lit), nil
}

func scanNumber(b []byte, i int) (int, error) {
	if b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return 0, errSyntax
	}
	switch {
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		i = skipDigits(b, i)
	default:
		return 0, errSyntax
	}
	if i < len(b) && b[i] == '.' {
		s := i + 1
		if i = skipDigits(b, s); i == s {
			return 0, errSyntax
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		s := i
		if i = skipDigits(b, s); i == s {
			return 0, errSyntax
		}
	}
	return i, nil
}

// skipDigits returns the index after the decimal digits from b[i].
func skipDigits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// scanString returns the index after the string at b[i] ('"') and whether
// it holds escapes. UTF-8 validity is the caller's (Decode checks the line).
func scanString(b []byte, i int) (int, bool, error) {
	esc := false
	i++
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			return i + 1, esc, nil
		case c == '\\':
			esc = true
			if i+1 >= len(b) {
				return 0, false, errSyntax
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+5 >= len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return 0, false, errSyntax
				}
				i += 6
			default:
				return 0, false, errSyntax
			}
		case c < 0x20:
			return 0, false, errSyntax
		default:
			i++
		}
	}
	return 0, false, errSyntax
}

// stringValue unquotes a raw JSON value that must be a string.
func stringValue(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	inner := v[1 : len(v)-1]
	for _, c := range inner {
		if c == '\\' {
			var s string
			if json.Unmarshal(v, &s) != nil {
				return "", false
			}
			return s, true
		}
	}
	return string(inner), true
}

// keyString returns a member's key as a string.
// name returns the key's bytes (unescaped: a copy only when the key holds
// an escape). Switch on string(m.name()) to compare without allocating.
func (m member) name() []byte {
	if !m.escaped {
		return m.key
	}
	return []byte(m.keyString())
}

func (m member) keyString() string {
	if !m.escaped {
		return string(m.key)
	}
	s, _ := stringValue(append(append([]byte{'"'}, m.key...), '"'))
	return s
}

// intValue reads a raw JSON integer.
func intValue(v []byte) (int64, bool) {
	n, err := strconv.ParseInt(string(v), 10, 64)
	return n, err == nil
}
