package render

import (
	"image/color"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

// SortThreads orders threads by activity, newest first (RFC 3339 UTC
// times sort as strings), then by thread id so the order is total.
func SortThreads(ts []peer.ThreadInfo) {
	sort.SliceStable(ts, func(i, j int) bool {
		if ts[i].Updated != ts[j].Updated {
			return ts[i].Updated > ts[j].Updated
		}
		return ts[i].Th < ts[j].Th
	})
}

// MatchThread reports whether a thread matches a filter: every
// space-separated word of query must appear (case-insensitively) in its
// subject, peer name or key, the sharer's, states, last text or id. name
// gives display names of keys the thread does not name itself (nil: none).
func MatchThread(t peer.ThreadInfo, query string, name func(string) string) bool {
	words := strings.Fields(strings.ToLower(query))
	if len(words) == 0 {
		return true
	}
	peerKey, sharer := t.Peer.String(), t.MirroredFrom.String()
	fields := []string{t.Subject, t.PeerName, peerKey, t.Mine, t.Theirs, t.LastText, t.Th, sharer}
	if name != nil {
		fields = append(fields, name(peerKey))
		if sharer != "" {
			fields = append(fields, name(sharer))
		}
	}
	hay := strings.ToLower(strings.Join(fields, "\n"))
	for _, w := range words {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// FilterThreads returns the threads matching query (see MatchThread),
// sorted by activity.
func FilterThreads(ts []peer.ThreadInfo, query string, name func(string) string) []peer.ThreadInfo {
	out := make([]peer.ThreadInfo, 0, len(ts))
	for _, t := range ts {
		if MatchThread(t, query, name) {
			out = append(out, t)
		}
	}
	SortThreads(out)
	return out
}

// ThreadRow is a thread as the threads list shows it.
type ThreadRow struct {
	Title   string      // subject, or "(no subject)"
	Detail  string      // peer, states, mirrored mark: the thread window's line under its title
	Who     string      // the other party's display name
	Initial string      // its first letter, upper case, for the avatar
	Color   color.NRGBA // the avatar's colour (AvatarColor of its key)
	Preview string      // the newest text, one line, "you: " before mine
	When    string      // the newest line's time, relative to now (Ago)
	Chips   []string    // states ("you: working", "alice: done") and marks (mirrored, private, withdrawn)
	Unread  int
	Bold    bool // unread lines
	Offline bool // the other party is known and not connected
}

// RowOptions tune DescribeThread.
type RowOptions struct {
	Name func(key string) string // a key's display name; nil: short keys
	Me   key.PublicKey           // my key: my lines read "you"
	Now  time.Time               // the reference for relative times; zero: time.Now()
	Up   func(key string) (up, known bool)
}

// MaxPreview bounds the preview a row shows (it is cut to the row's width
// when drawn).
const MaxPreview = 160

// DescribeThread builds the list row of a thread.
func DescribeThread(t peer.ThreadInfo, o RowOptions) ThreadRow {
	name := o.Name
	if name == nil {
		name = ShortKey
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	title := Clip(t.Subject, MaxTitle)
	if title == "" {
		title = "(no subject)"
	}
	peerKey := t.Peer.String()
	who := Clip(t.PeerName, MaxName)
	if who == "" {
		who = Clip(name(peerKey), MaxName)
	}
	r := ThreadRow{Title: title, Who: who, Initial: initial(who), Color: AvatarColor(peerKey), Unread: t.Unread, Bold: t.Unread > 0}
	if o.Up != nil {
		if up, known := o.Up(peerKey); known && !up {
			r.Offline = true
		}
	}
	if at, ok := ParseTime(t.Updated); ok {
		r.When = Ago(at, o.Now, nil)
	}
	if t.LastText != "" {
		r.Preview = Clip(t.LastText, MaxPreview)
		if !o.Me.IsZero() && t.LastFrom == o.Me {
			r.Preview = "you: " + r.Preview
		}
	}
	if t.Mine != "" {
		r.Chips = append(r.Chips, "you: "+Clip(t.Mine, MaxName))
	}
	if t.Theirs != "" {
		r.Chips = append(r.Chips, Clip(who, MaxName)+": "+Clip(t.Theirs, MaxName))
	}
	parts := []string{who}
	if !t.MirroredFrom.IsZero() {
		m := MarkMirror + " mirrored from " + Clip(name(t.MirroredFrom.String()), MaxName)
		parts = append(parts, m)
		r.Chips = append(r.Chips, m)
	}
	if t.Withdrawn {
		parts = append(parts, "withdrawn")
		r.Chips = append(r.Chips, "withdrawn")
	}
	if t.Mirror {
		parts = append(parts, "mirroring")
	}
	if t.Private {
		parts = append(parts, "private")
		r.Chips = append(r.Chips, "private")
	}
	if t.Mine != "" || t.Theirs != "" {
		parts = append(parts[:1], append([]string{"you: " + orDash(Clip(t.Mine, MaxName)) + ", " + who + ": " + orDash(Clip(t.Theirs, MaxName))}, parts[1:]...)...)
	}
	r.Detail = strings.Join(parts, " · ")
	return r
}

// initial is the first letter or digit of a name, upper case ("?" when
// it has none).
func initial(name string) string {
	for _, c := range name {
		if unicode.IsLetter(c) || unicode.IsDigit(c) {
			return strings.ToUpper(string(c))
		}
	}
	return "?"
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// TotalUnread sums unread lines over threads.
func TotalUnread(ts []peer.ThreadInfo) int {
	n := 0
	for _, t := range ts {
		n += t.Unread
	}
	return n
}
