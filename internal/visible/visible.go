// Package visible writes text from peers so that a person sees every
// character in it: what a prompt shows must be what will run.
//
// A peer chooses the commands, paths, names and reasons an approval prompt
// shows. Some characters do not show as themselves: bidirectional controls
// (U+202E and friends) reorder the text around them, so a command can read
// differently from what the shell gets; zero-width and other format
// characters, control characters and line or paragraph separators hide,
// join or break text. String writes each of them as a Go-style escape
// (\u202e), which shows, cannot be mistaken for the character, and says
// which one it was.
//
// It owns how peer text is made visible; it must not cut or drop characters
// silently (cutting is Cut's job, and says so).
package visible

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/awp-tray/awp-tray/peer/profile"
)

// Hides reports whether r does not show as itself: a control character
// other than newline and tab, a format character (Unicode category Cf: the
// bidirectional controls, zero-width characters, the byte order mark, tag
// characters…), or a line or paragraph separator.
func Hides(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f:
		return true
	case r < 0x80:
		return false
	}
	return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

// Hidden reports whether s holds a character that Hides, or bytes that are
// not UTF-8.
func Hidden(s string) bool {
	for i, r := range s {
		if Hides(r) || (r == utf8.RuneError && isBadByte(s, i)) {
			return true
		}
	}
	return false
}

// isBadByte reports whether the U+FFFD that range gave at s[i] was a byte
// that is not UTF-8 rather than an encoded U+FFFD.
func isBadByte(s string, i int) bool {
	_, n := utf8.DecodeRuneInString(s[i:])
	return n == 1
}

// String returns s with each character that Hides written as \uxxxx (or
// \Uxxxxxxxx above U+FFFF), and each byte that is not UTF-8 as \xhh. Text
// without them comes back unchanged; the result never holds one, so String
// of its own result changes nothing.
func String(s string) string {
	if !Hidden(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i, r := range s {
		switch {
		case r == utf8.RuneError && isBadByte(s, i):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !Hides(r):
			b.WriteRune(r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	return b.String()
}

// Argv is a command's argument vector as a person reads a command line:
// the arguments joined by spaces, each one that is empty or holds
// whitespace, quotes, a backslash, a shell metacharacter or a character
// that Hides quoted Go-style (strconv.Quote), so where each argument ends
// shows; the rest as they are.
func Argv(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, "\"'\\$`;&|<>()*?[]{}~#!") || Hidden(a) || strings.ContainsFunc(a, unicode.IsSpace) {
			out[i] = quote(a)
		} else {
			out[i] = a
		}
	}
	return strings.Join(out, " ")
}

// Cut is s cut to at most n runes (n ≥ 1), the last of them an ellipsis
// when it was cut; line breaks stay.
func Cut(s string, n int) string {
	if len(s) <= n || utf8.RuneCountInString(s) <= n { // bytes ≥ runes
		return s
	}
	i := 0
	for j := range s {
		if i == n-1 {
			return s[:j] + "…"
		}
		i++
	}
	return s
}

// quote is strconv.Quote with every character that Hides escaped as well
// (Quote keeps some of them, such as U+00AD and U+200B, as they are).
func quote(s string) string {
	q := strconv.Quote(s)
	if !Hidden(q) {
		return q
	}
	return String(q)
}

// Command is the cmd of an exec request (docs/protocol/profile.md: a shell string, run
// with /bin/sh -c, or an argv array) as a person reads it: the string
// through String, the array through Argv. ok is false when cmd is neither
// (or null); exact is false when a character had to be escaped.
func Command(cmd json.RawMessage) (text string, exact, ok bool) {
	if len(cmd) == 0 || string(cmd) == "null" {
		return "", false, false
	}
	var sh string
	if json.Unmarshal(cmd, &sh) == nil {
		return String(sh), !Hidden(sh), true
	}
	var argv []string
	if json.Unmarshal(cmd, &argv) != nil {
		return "", false, false
	}
	exact = true
	for _, a := range argv {
		exact = exact && !Hidden(a)
	}
	return Argv(argv), exact, true
}

// Request is an approval request's data (docs/protocol/profile.md) on one line, as a
// person reads it: the command of an exec (Command, "$ " before it, its
// cwd after it), the path of an fs request, else the JSON as it came.
// exact is false when it escaped a character that does not show as itself,
// when the text runs over more than one line (or holds a tab), or when the
// exec sets environment variables or stdin, which it names but does not
// show.
func Request(raw json.RawMessage) (text string, exact bool) {
	text, exact = request(raw)
	return text, exact && !strings.ContainsAny(text, "\n\t")
}

func request(raw json.RawMessage) (text string, exact bool) {
	// One decode reads either kind: an exec's fields, or the path every
	// fs request has.
	var d struct {
		profile.ExecRequest
		Path string `json:"path"`
	}
	text = string(raw)
	if json.Unmarshal(raw, &d) == nil {
		cmd, cmdExact, ok := Command(d.Cmd)
		if ok {
			cmd = "$ " + cmd
		}
		// What the command does depends on its environment and stdin too,
		// which do not fit here.
		var with []string
		if len(d.Env) > 0 {
			with = append(with, "environment")
		}
		if d.Stdin != "" {
			with = append(with, "stdin")
		}
		if ok && len(with) > 0 {
			cmd += "  (with " + strings.Join(with, " and ") + ")"
			cmdExact = false
		}
		switch {
		case ok && d.Cwd != "":
			return cmd + "  (in " + String(d.Cwd) + ")", cmdExact && !Hidden(d.Cwd)
		case ok:
			return cmd, cmdExact
		case d.Path != "":
			text = d.Path
		}
	}
	return String(text), !Hidden(text)
}

// Bytes is content a request would write (an fs:write), on one line and at
// most n runes (n ≥ 8), as a person reads it: text that is UTF-8 quoted
// Go-style with every character that Hides escaped (quote), so where it
// starts and ends and each line break show; other bytes as hex pairs
// ("7f 45 4c 46"). whole is false when it was cut (then it ends in "…").
func Bytes(b []byte, n int) (text string, whole bool) {
	if !utf8.Valid(b) {
		max := (n - 1) / 3 // "xx " per byte, and room for "…"
		var s strings.Builder
		for i, c := range b {
			if i == max {
				return s.String() + "…", false
			}
			if i > 0 {
				s.WriteByte(' ')
			}
			fmt.Fprintf(&s, "%02x", c)
		}
		return s.String(), true
	}
	// Quote only a prefix that can fill n runes: an escape is at least
	// two runes for one byte, and a rune is at most 4 bytes.
	head, cut := b, false
	if len(head) > 4*n {
		head, cut = head[:4*n], true
		for !utf8.Valid(head) {
			head = head[:len(head)-1]
		}
	}
	q := quote(string(head))
	if cut {
		q = q[:len(q)-1] // the closing quote: the text goes on
	}
	if c := Cut(q, n); c != q || cut {
		if c == q {
			c += "…"
		}
		return c, false
	}
	return q, true
}

// Duration is d as a person says it: "30 s", "15 min", "1 hour", "24 h",
// "1 h 30 min", "7 days".
func Duration(d time.Duration) string {
	const day = 24 * time.Hour
	switch {
	case d == time.Hour:
		return "1 hour"
	case d >= 2*day && d%day == 0:
		return fmt.Sprintf("%d days", d/day)
	}
	var parts []string
	if h := d / time.Hour; h > 0 {
		parts = append(parts, fmt.Sprintf("%d h", h))
	}
	if m := d % time.Hour / time.Minute; m > 0 {
		parts = append(parts, fmt.Sprintf("%d min", m))
	}
	if s := d % time.Minute / time.Second; s > 0 || len(parts) == 0 {
		parts = append(parts, fmt.Sprintf("%d s", s))
	}
	return strings.Join(parts, " ")
}
