package wire

import (
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly-10", 10, "exactly-10"},
		{"eleven-long", 10, "eleven-…"},
		{"ééééé", 7, "éé…"},  // 10 bytes: "é" is 2, "…" is 3
		{"éééééé", 8, "éé…"}, // never half a character
		{"abc", 2, "…"},
	} {
		got := Clip(tc.s, tc.n)
		if got != tc.want || (tc.n >= 3 && len(got) > tc.n) || !utf8.ValidString(got) {
			t.Errorf("Clip(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}
