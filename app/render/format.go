package render

import (
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/awp-tray/awp-tray/internal/bytesize"
	"github.com/awp-tray/awp-tray/internal/visible"
	"github.com/awp-tray/awp-tray/peer/key"
)

// ShortKey is the first 8 characters of a key after "ed25519:", the
// short form people compare (key.ShortText); anything else comes back as
// it is.
func ShortKey(k string) string { return key.ShortText(k) }

func shortKeys(ks []string) string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = ShortKey(k)
	}
	return strings.Join(out, ", ")
}

// Size formats a byte count: 512 B, 1.5 KiB, 3.2 MiB (bytesize.Format,
// which the command line shares).
func Size(n int64) string { return bytesize.Format(n) }

// Clock formats an RFC 3339 time for a row header, in loc: the time of day
// for today (relative to now), the date and time otherwise. An unparsable
// time comes back as it is.
func Clock(ts string, now time.Time, loc *time.Location) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ts
	}
	if loc == nil {
		loc = time.Local
	}
	t, now = t.In(loc), now.In(loc)
	if t.Year() == now.Year() && t.YearDay() == now.YearDay() {
		return t.Format("15:04")
	}
	if t.Year() == now.Year() {
		return t.Format("Jan 2 15:04")
	}
	return t.Format("2006-01-02 15:04")
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Bounds on what one label shows of text a peer chose. Fyne lays out a
// label's whole text each time it is bound or resized, and wrapping grows
// faster than the text: 4,000 characters take about 10 ms, 100,000 in an
// approval prompt took 78 s. Peers choose names, subjects, states and the
// data of requests, and a line may hold up to 1 MiB of them.
const (
	MaxName  = 64    // a peer's name, a state
	MaxTitle = 200   // a subject, an about line
	MaxField = 2_000 // one field of an approval prompt, a presence line
)

// Clip is s on one line (line breaks and tabs as spaces) and at most n
// runes, the last of them an ellipsis when it was cut (visible.Cut).
func Clip(s string, n int) string {
	if strings.ContainsAny(s, "\r\n\t") {
		s = oneLine.Replace(s)
	}
	return visible.Cut(s, n)
}

// oneLine puts a text's line breaks and tabs as spaces.
var oneLine = strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ", "\t", " ")

// SafeFileName is a peer's name for a file as the Save dialog may offer
// it: its last path element (a name with "/" or "\" in it must not lead the
// save elsewhere), characters that do not show as themselves replaced by
// "_" (a bidi override can make "exe.jpg" read as "gpj.exe"), at most 200
// bytes, and "download" when nothing usable is left.
func SafeFileName(name string) string {
	name = strings.ReplaceAll(name, "\\", "/")
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if visible.Hides(r) || r == '\n' || r == '\t' || r == utf8.RuneError {
			return '_'
		}
		return r
	}, name)
	name = strings.TrimSpace(name)
	for len(name) > 200 {
		_, n := utf8.DecodeLastRuneInString(name)
		name = name[:len(name)-n]
	}
	if name == "" || name == "." || name == ".." {
		return "download"
	}
	return name
}
