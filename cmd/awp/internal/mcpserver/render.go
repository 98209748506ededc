package mcpserver

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/awp-tray/awp-tray/internal/visible"
	"github.com/awp-tray/awp-tray/peer/key"
)

// The text renderings of the tools' answers, for clients that show only
// text. What a peer wrote goes through visible.String: a hidden character
// (bidi override, zero-width…) shows as an escape instead of steering how
// the rest reads.

func renderWhoami(o WhoamiOut) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are %s, key %s.\n", visible.String(o.Name), o.Key)
	if len(o.Listen) > 0 {
		fmt.Fprintf(&b, "Listening on %s.\n", strings.Join(o.Listen, ", "))
	}
	fmt.Fprintf(&b, "Invite (another peer's owner adds it with `awp add`): %s\n", o.Invite)
	return b.String()
}

func renderPeers(o PeersOut) string {
	if len(o.Peers) == 0 {
		return "No known peers. Another peer's owner can send this one an invite (awp_whoami shows this peer's)."
	}
	var b strings.Builder
	for _, p := range o.Peers {
		fmt.Fprintf(&b, "- %s  %s", name(p.Name), p.Key)
		var tags []string
		if p.Up {
			tag := "up"
			if p.RTTms > 0 {
				tag += fmt.Sprintf(" %d ms", p.RTTms)
			}
			tags = append(tags, tag)
		} else {
			tags = append(tags, "down")
		}
		if p.Trusted {
			tags = append(tags, "trusted")
		}
		if pr := p.Presence; pr != nil {
			for _, t := range []string{pr.Harness, pr.Model, pr.Host} {
				if t != "" {
					tags = append(tags, visible.String(t))
				}
			}
			// A peer that publishes no threads (detail peers) lists
			// none, which is not "0 threads": say only what it said.
			if pr.Threads > 0 {
				tags = append(tags, fmt.Sprintf("%d threads published", pr.Threads))
			}
			tags = append(tags, fmt.Sprintf("%d unread", pr.Unread))
		}
		fmt.Fprintf(&b, "  (%s)\n", strings.Join(tags, ", "))
	}
	return b.String()
}

func renderPresence(o PresenceOut) string {
	var b strings.Builder
	fmt.Fprintf(&b, "This peer publishes presence: %s.\n", o.Publishing)
	if len(o.Entries) == 0 {
		b.WriteString("No presence documents received.\n")
	}
	for _, e := range o.Entries {
		fmt.Fprintf(&b, "- %s  %s  hops %d, received %s", name(e.Name), e.Origin, e.Hops, e.Received)
		for _, t := range []string{e.Harness, e.Model, e.Host} {
			if t != "" {
				fmt.Fprintf(&b, ", %s", visible.String(t))
			}
		}
		fmt.Fprintf(&b, ", %d unread\n", e.Unread)
		for _, p := range e.Peers {
			state := "down"
			if p.Up {
				state = "up"
			}
			fmt.Fprintf(&b, "    peer %s %s (%s)\n", name(p.Name), p.Key, state)
		}
		for _, t := range e.Threads {
			fmt.Fprintf(&b, "    thread %s with %s: %q, mine %s, theirs %s\n", t.Th, t.Peer, visible.String(t.Subject), dash(t.Mine), dash(t.Theirs))
		}
	}
	return b.String()
}

func renderInbox(o InboxOut, empty string) string {
	if len(o.Threads) == 0 {
		return empty
	}
	var b strings.Builder
	for _, t := range o.Threads {
		renderHead(&b, t.ThreadHead)
		b.WriteString("\n")
		if t.Omitted > 0 {
			fmt.Fprintf(&b, "  (%d earlier unread lines left out: awp_show th %q reads them)\n", t.Omitted, t.Th)
		}
		for _, l := range t.Lines {
			renderLine(&b, l)
		}
	}
	switch {
	case o.More:
		b.WriteString("More threads have unread lines: call again.\n")
	case o.Peeked:
		b.WriteString("(Left unread.)\n")
	}
	return b.String()
}

func renderShow(o ShowOut) string {
	var b strings.Builder
	renderHead(&b, o.ThreadHead)
	fmt.Fprintf(&b, ", %d lines, %d unread\n", o.Total, o.Unread)
	if o.Earlier > 0 {
		fmt.Fprintf(&b, "  (%d earlier lines)\n", o.Earlier)
	}
	for _, l := range o.Lines {
		renderLine(&b, l)
	}
	if o.Later > 0 {
		fmt.Fprintf(&b, "  (%d later lines: after %d)\n", o.Later, o.Lines[len(o.Lines)-1].Seq)
	}
	return b.String()
}

// renderLine writes one line: a header, then its content indented.
func renderLine(b *strings.Builder, l Line) {
	who := name(l.FromName)
	if l.Dir == "out" {
		who = "you"
	}
	fmt.Fprintf(b, "  #%d %s %s from %s (%s) at %s", l.Seq, l.Type, l.ID, who, key.ShortText(l.From), l.TS)
	if l.Re != "" {
		fmt.Fprintf(b, ", answering %s", l.Re)
	}
	b.WriteString("\n")
	if l.Subject != "" {
		fmt.Fprintf(b, "    subject: %s\n", visible.String(l.Subject))
	}
	if l.State != "" {
		fmt.Fprintf(b, "    state: %s", visible.String(l.State))
		if l.Note != "" {
			fmt.Fprintf(b, " (%s)", visible.String(l.Note))
		}
		b.WriteString("\n")
	}
	if l.Text != "" {
		indent(b, visible.String(l.Text))
	}
	for _, p := range l.Parts {
		switch p.K {
		case "code":
			fmt.Fprintf(b, "    [code %s]\n", p.Lang)
			indent(b, visible.String(p.Text))
		case "data":
			if p.Data == nil {
				fmt.Fprintf(b, "    [data %s, %d bytes left out]\n", p.Mime, p.Size)
			} else {
				fmt.Fprintf(b, "    [data %s] %s\n", p.Mime, visible.String(string(p.Data)))
			}
		case "blob":
			fmt.Fprintf(b, "    [file %q, %s, %d bytes, ref %s]\n", visible.String(p.Name), p.Mime, p.Size, p.Ref)
		default:
			fmt.Fprintf(b, "    [%s part]\n", visible.String(p.K))
		}
		if p.Cut {
			b.WriteString("    (cut: awp_show with full reads it whole)\n")
		}
	}
	if l.Cut && l.Text != "" {
		b.WriteString("    (text cut: awp_show with full reads it whole)\n")
	}
}

func renderResult(o RequestOut) string {
	var b strings.Builder
	switch o.Kind {
	case "exec":
		var r struct {
			Exit            int    `json:"exit"`
			DurationMS      int64  `json:"duration_ms"`
			Stdout          string `json:"stdout"`
			Stderr          string `json:"stderr"`
			StdoutTruncated bool   `json:"stdout_truncated"`
			StderrTruncated bool   `json:"stderr_truncated"`
		}
		_ = json.Unmarshal(o.Result, &r)
		fmt.Fprintf(&b, "exit %d after %d ms on %s\n", r.Exit, r.DurationMS, key.ShortText(o.To))
		for _, s := range []struct {
			name, text string
			cut        bool
		}{{"stdout", r.Stdout, r.StdoutTruncated}, {"stderr", r.Stderr, r.StderrTruncated}} {
			if s.text == "" {
				continue
			}
			fmt.Fprintf(&b, "--- %s", s.name)
			if s.cut {
				b.WriteString(" (first 64 KiB; the whole output came as a blob)")
			}
			fmt.Fprintf(&b, " ---\n%s\n", visible.String(strings.TrimRight(s.text, "\n")))
		}
	default:
		var r struct {
			Path    string `json:"path"`
			Content string `json:"content"`
			Dir     bool   `json:"dir"`
			Written *int64 `json:"written"`
		}
		_ = json.Unmarshal(o.Result, &r)
		switch {
		case r.Written != nil:
			fmt.Fprintf(&b, "wrote %d bytes to %s on %s\n", *r.Written, visible.String(r.Path), key.ShortText(o.To))
		case o.Kind == "fs:read" && !r.Dir && r.Content != "":
			fmt.Fprintf(&b, "%s on %s:\n%s\n", visible.String(r.Path), key.ShortText(o.To), visible.String(r.Content))
		}
		fmt.Fprintf(&b, "result: %s\n", visible.String(string(o.Result)))
	}
	return b.String()
}

func indent(b *strings.Builder, s string) {
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("    ")
		b.WriteString(line)
		b.WriteString("\n")
	}
}

// renderHead writes a thread's head: its id, the other party, the subject
// (quoted; "no subject" when it has none) and both declared states.
func renderHead(b *strings.Builder, h ThreadHead) {
	subject := "no subject"
	if h.Subject != "" {
		subject = strconv.Quote(visible.String(h.Subject))
	}
	fmt.Fprintf(b, "Thread %s with %s %s: %s (mine %s, theirs %s)", h.Th, name(h.PeerName), h.Peer, subject, dash(h.Mine), dash(h.Theirs))
}

func name(n string) string {
	if n == "" {
		return "(no name)"
	}
	return visible.String(n)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return visible.String(s)
}
