package notify

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/awp-tray/awp-tray/internal/visible"
)

// FuzzPreview: a notification shows what any peer wrote. For any stored
// line, its preview and subject are one line of at most their limits, with
// no character that hides or reorders text (visible.Hidden).
func FuzzPreview(f *testing.F) {
	f.Add([]byte(`{"t":"msg","id":"01J","th":"thr_a","ts":"2026-09-25T17:03:11Z","subject":"hi","parts":[{"k":"text","text":"hello"}]}`))
	f.Add([]byte(`{"t":"msg","id":"01J","th":"thr_a","ts":"2026-09-25T17:03:11Z","parts":[{"k":"text","text":"a\u202eb\n\nc"},{"k":"code","path":"x.go"}]}`))
	f.Add([]byte(`{"t":"msg","id":"01J","th":"thr_a","ts":"2026-09-25T17:03:11Z","parts":[{"k":"blob","name":"\u200bx"}]}`))
	f.Add([]byte(`{"t":"state","id":"01J","th":"thr_a","ts":"2026-09-25T17:03:11Z","state":"done"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, ok := parseMsg(json.RawMessage(raw))
		if !ok {
			return
		}
		for _, c := range []struct {
			what string
			s    string
			max  int
		}{{"preview", m.preview(), maxText}, {"subject", clip(m.Subject, maxSubject), maxSubject}} {
			if n := utf8.RuneCountInString(c.s); n > c.max {
				t.Fatalf("%s of %s: %d runes, more than %d", c.what, raw, n, c.max)
			}
			if strings.ContainsAny(c.s, "\n\r") || visible.Hidden(c.s) {
				t.Fatalf("%s of %s: %q is not one visible line", c.what, raw, c.s)
			}
		}
	})
}
