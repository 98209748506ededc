package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/awp-tray/awp-tray/internal/visible"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/localapi"
)

var cmdThreads = &command{
	name:    "threads",
	usage:   "awp threads [--data DIR] [--json]",
	summary: "lists threads, newest activity first",
	run:     runThreads,
}

var cmdShow = &command{
	name:    "show",
	usage:   "awp show [--data DIR] [--from SHARER] [--json] [--mark-read] TH",
	summary: "prints a thread's lines in order (--from: a thread mirrored from SHARER)",
	run:     runShow,
}

func runThreads(e *env, args []string) error {
	return runList(e, args, "threads", (*localapi.Client).Threads, "TH\tPEER\tSUBJECT\tMINE\tTHEIRS\tUNREAD\tUPDATED", func(t peer.ThreadInfo) []string {
		who := shortKey(t.Peer)
		if t.PeerName != "" {
			who = t.PeerName + " (" + who + ")"
		}
		if t.MirroredFrom != "" {
			who += " via " + shortKey(t.MirroredFrom)
		}
		return []string{t.Th, who, visible.Cut(t.Subject, 40), dash(t.Mine), dash(t.Theirs), strconv.Itoa(t.Unread), t.Updated}
	})
}

func runShow(e *env, args []string) error {
	fs := newFlags("show")
	from := fs.String("from", "", "the sharer's key, for a thread mirrored to this peer")
	asJSON := fs.Bool("json", false, "print a JSON array")
	markRead := fs.Bool("mark-read", false, "also mark the thread read")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if err := nArgs(pos, 1, "TH"); err != nil {
		return err
	}
	th := pos[0]
	if err := checkTh("TH", th); err != nil {
		return err
	}
	if *from != "" {
		if err := checkKey("--from", *from); err != nil {
			return err
		}
	}
	c, err := e.client(fs)
	if err != nil {
		return err
	}
	lines, err := c.Lines(e.ctx, th, *from)
	if err != nil {
		return e.wrap("show", err)
	}
	if *markRead {
		if err := c.MarkRead(e.ctx, th, *from); err != nil {
			return e.wrap("show", err)
		}
	}
	if *asJSON {
		return writeJSON(e.stdout, lines)
	}
	for _, l := range lines {
		ack := ""
		if l.Dir == "out" && !l.Acked {
			ack = " (not acked)"
		}
		fmt.Fprintf(e.stdout, "#%d %-3s %s%s: %s\n", l.Seq, l.Dir, shortKey(l.From), ack, terminalText(summarize(l.Line)))
	}
	return nil
}

// summarize renders a wire line on one line for people.
func summarize(raw json.RawMessage) string {
	var l struct {
		T       string `json:"t"`
		Subject string `json:"subject"`
		State   string `json:"state"`
		Note    string `json:"note"`
		Ref     string `json:"ref"`
		Parts   []struct {
			K    string `json:"k"`
			Text string `json:"text"`
			Lang string `json:"lang"`
			Mime string `json:"mime"`
			Name string `json:"name"`
			Size int64  `json:"size"`
		} `json:"parts"`
	}
	if err := json.Unmarshal(raw, &l); err != nil {
		return visible.Cut(string(raw), 120)
	}
	var b []string
	switch l.T {
	case "msg":
		if l.Subject != "" {
			b = append(b, "["+l.Subject+"]")
		}
		for _, p := range l.Parts {
			switch p.K {
			case "text":
				b = append(b, p.Text)
			case "code":
				b = append(b, fmt.Sprintf("<code %s, %d lines>", dash(p.Lang), strings.Count(p.Text, "\n")+1))
			case "data":
				b = append(b, "<data "+p.Mime+">")
			case "blob":
				b = append(b, fmt.Sprintf("<blob %s, %d bytes>", p.Name, p.Size))
			default:
				b = append(b, "<"+p.K+">")
			}
		}
	case "state":
		b = append(b, "state "+l.State)
		if l.Note != "" {
			b = append(b, "("+l.Note+")")
		}
	case "chunk":
		b = append(b, "chunk of "+l.Ref)
	default:
		b = append(b, l.T)
	}
	return visible.Cut(oneLine(strings.Join(b, " ")), 200)
}

func shortKey(k string) string {
	const p = "ed25519:"
	if strings.HasPrefix(k, p) && len(k) >= len(p)+8 {
		return k[len(p) : len(p)+8]
	}
	return k
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
