package render

import (
	"fmt"
	"sort"
	"strings"

	"github.com/awp-tray/awp-tray/peer"
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
	fields := []string{t.Subject, t.PeerName, t.Peer, t.Mine, t.Theirs, t.LastText, t.Th, t.MirroredFrom}
	if name != nil {
		fields = append(fields, name(t.Peer))
		if t.MirroredFrom != "" {
			fields = append(fields, name(t.MirroredFrom))
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
	Title  string // subject (or "(no subject)"), with the unread count
	Detail string // peer, states, mirrored mark
	Unread int
	Bold   bool // unread lines
}

// DescribeThread builds the list row of a thread. name gives a key's
// display name (nil: short keys).
func DescribeThread(t peer.ThreadInfo, name func(string) string) ThreadRow {
	if name == nil {
		name = ShortKey
	}
	title := Clip(t.Subject, MaxTitle)
	if title == "" {
		title = "(no subject)"
	}
	if t.Unread > 0 {
		title = fmt.Sprintf("%s  (%d)", title, t.Unread)
	}
	who := t.PeerName
	if who == "" {
		who = name(t.Peer)
	}
	parts := []string{Clip(who, MaxName)}
	if t.Mine != "" || t.Theirs != "" {
		parts = append(parts, "me: "+orDash(Clip(t.Mine, MaxName))+", them: "+orDash(Clip(t.Theirs, MaxName)))
	}
	if t.MirroredFrom != "" {
		parts = append(parts, MarkMirror+" mirrored from "+Clip(name(t.MirroredFrom), MaxName))
	}
	if t.Withdrawn {
		parts = append(parts, "withdrawn")
	}
	if t.Mirror {
		parts = append(parts, "mirroring")
	}
	if t.Private {
		parts = append(parts, "private")
	}
	return ThreadRow{Title: title, Detail: strings.Join(parts, " · "), Unread: t.Unread, Bold: t.Unread > 0}
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
