package notify

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/awp-tray/awp-tray/internal/visible"
	"github.com/awp-tray/awp-tray/peer/profile"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// Limits on what a notification shows.
const (
	maxText     = 240 // runes of message text in a body
	maxSubject  = 80  // runes of a subject in a title
	maxName     = 64  // runes of a peer's name
	summaryList = 3   // threads named in a summary's body
)

// msgLine is a wire msg line as a notification reads it: decoded once by
// wire.DecodeLoose (a stored line is shown as it is, not re-validated).
type msgLine struct {
	*wire.Msg
	parts []wire.Part
}

// parseMsg decodes a stored line; ok is false for anything but a msg.
func parseMsg(raw json.RawMessage) (m msgLine, ok bool) {
	f, err := wire.DecodeLoose(raw)
	msg, isMsg := f.(*wire.Msg)
	if err != nil || !isMsg {
		return msgLine{}, false
	}
	return msgLine{Msg: msg, parts: msg.DecodeParts()}, true
}

// machine reports whether a msg carries only profile traffic (requests,
// results and grants: data parts of an application/vnd.awp.* type). A
// request that needs the person raises an approval instead; the rest needs
// no one.
func (m msgLine) machine() bool {
	for _, p := range m.parts {
		if p.K != wire.PartData || !strings.HasPrefix(p.Mime, profile.MimePrefix) {
			return false
		}
	}
	return len(m.parts) > 0
}

// preview is the newest text of a msg: its first text part, else a word on
// its first other part.
func (m msgLine) preview() string {
	for _, p := range m.parts {
		if p.K == wire.PartText && strings.TrimSpace(p.Text) != "" {
			return clip(p.Text, maxText)
		}
	}
	for _, p := range m.parts {
		switch p.K {
		case wire.PartCode:
			if p.Path != "" {
				return clip("Code: "+p.Path, maxText)
			}
			return clip("Code: "+p.Text, maxText)
		case wire.PartBlob:
			return clip("File: "+p.Name, maxText)
		case wire.PartData:
			return clip("Data ("+p.Mime+")", maxText)
		}
	}
	return "New message"
}

// clip folds whitespace to single spaces, escapes characters that do not
// show as themselves (visible.String: a peer's text must not reorder or
// hide the rest of a notification) and cuts s to n runes.
func clip(s string, n int) string {
	s = visible.String(strings.Join(strings.Fields(s), " "))
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// threadTitle names the peer and the subject.
func threadTitle(t *thread) string {
	return clip(t.peerName, maxName) + ": " + clip(firstOf(t.subject, "(no subject)"), maxSubject)
}

// threadBody is the newest text, and how many are new when more than one.
func threadBody(t *thread) string {
	if t.pending > 1 {
		return t.text + "\n(" + plural(t.pending, "new message", "new messages") + ")"
	}
	return t.text
}

// summaryTitle is "5 new messages in 3 threads".
func summaryTitle(msgs, threads int) string {
	return plural(msgs, "new message", "new messages") + " in " + plural(threads, "thread", "threads")
}

// summaryBody names the newest threads, newest first.
func summaryBody(newest []*thread, threads int) string {
	var b strings.Builder
	for i, t := range newest {
		if i == summaryList {
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(threadTitle(t))
	}
	if threads > summaryList {
		fmt.Fprintf(&b, "\nand %d more", threads-summaryList)
	}
	return b.String()
}
