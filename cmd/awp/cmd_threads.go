package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/awp-tray/awp-tray/internal/visible"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/localapi"
	"github.com/awp-tray/awp-tray/peer/wire"
)

func runThreads(e *env, args []string) error {
	return runList(e, args, "threads", (*localapi.Client).Threads, "TH\tPEER\tSUBJECT\tMINE\tTHEIRS\tUNREAD\tUPDATED", func(t peer.ThreadInfo) []string {
		who := peerLabel(t.Peer, t.PeerName)
		if !t.MirroredFrom.IsZero() {
			who += " via " + shortKey(t.MirroredFrom)
		}
		return []string{t.Th, who, dash(visible.Cut(t.Subject, 40)), dash(t.Mine), dash(t.Theirs), strconv.Itoa(t.Unread), t.Updated}
	})
}

func runShow(e *env, args []string) error {
	fs := newFlags("show")
	from := fs.String("from", "", "the sharer (a key, a key prefix or a peer's name), for a thread mirrored to this peer")
	asJSON := fs.jsonFlag(false)
	markRead := fs.Bool("mark-read", false, "also mark the thread read")
	c, th, sharer, err := e.threadArgs(fs, args, from)
	if err != nil {
		return err
	}
	lines, err := c.Lines(e.ctx, th, sharer)
	if err != nil {
		return e.wrap("show", err)
	}
	if *markRead {
		if err := c.MarkRead(e.ctx, th, sharer); err != nil {
			return e.wrap("show", err)
		}
	}
	if *asJSON {
		return writeJSON(e.stdout, lines)
	}
	who := lineAuthors(e, c)
	for _, l := range lines {
		ack := ""
		if l.Dir == "out" && !l.Acked {
			ack = " (not acked)"
		}
		fmt.Fprintf(e.stdout, "#%d %-3s %s%s: %s\n", l.Seq, l.Dir, who(l.From), ack, terminalText(summarize(l.Line)))
	}
	return nil
}

// lineAuthors names the author of a line as the thread list names a
// peer: "you" for this peer's own key, "name (short key)" for a peer with
// a name, else the short key. Names are best effort: without them the
// short key stands alone.
func lineAuthors(e *env, c *localapi.Client) func(key.PublicKey) string {
	var self key.PublicKey
	if id, err := c.Identity(e.ctx); err == nil {
		self = id.Key
	}
	names := c.PeerNames(e.ctx)
	return func(k key.PublicKey) string {
		if k == self && !self.IsZero() {
			return "you"
		}
		return peerLabel(k, terminalText(names[k]))
	}
}

// summarize renders a wire line on one line for people.
func summarize(raw json.RawMessage) string {
	f, err := wire.DecodeLoose(raw)
	if err != nil {
		return visible.Cut(string(raw), 120)
	}
	var b []string
	switch l := f.(type) {
	case *wire.Msg:
		if l.Subject != "" {
			b = append(b, "["+l.Subject+"]")
		}
		for _, p := range l.DecodeParts() {
			switch p.K {
			case wire.PartText:
				b = append(b, p.Text)
			case wire.PartCode:
				b = append(b, fmt.Sprintf("<code %s, %d lines>", dash(p.Lang), lineCount(p.Text)))
			case wire.PartData:
				b = append(b, "<data "+p.Mime+">")
			case wire.PartBlob:
				b = append(b, fmt.Sprintf("<blob %s, %d bytes>", p.Name, p.Size))
			default:
				b = append(b, "<"+p.K+">")
			}
		}
	case *wire.State:
		b = append(b, "state "+l.State)
		if l.Note != "" {
			b = append(b, "("+l.Note+")")
		}
	case *wire.Chunk:
		b = append(b, "chunk of "+l.Ref)
	case *wire.Introduce:
		b = append(b, "introduces "+key.ShortText(l.Peer.Key))
		if l.Peer.Name != "" {
			b = append(b, "("+l.Peer.Name+")")
		}
	case *wire.Mirror:
		if l.Withdraw {
			b = append(b, "withdraws the mirrored thread")
		} else {
			b = append(b, "mirror "+l.Dir+": "+summarize(l.Line))
		}
	default:
		b = append(b, f.Header().T)
	}
	return visible.Cut(oneLine(strings.Join(b, " ")), 200)
}

// lineCount is how many lines a text has, as an editor counts them: a
// final newline ends the last line and starts none.
func lineCount(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// peerLabel names a peer as the tables and lines do: "name (short key)",
// or the short key alone for a peer with no name.
func peerLabel(k key.PublicKey, name string) string {
	if name == "" {
		return shortKey(k)
	}
	return name + " (" + shortKey(k) + ")"
}

// shortKey is the first 8 characters of k's text after "ed25519:" ("" for
// the zero key).
func shortKey(k key.PublicKey) string {
	if k.IsZero() {
		return ""
	}
	return k.Short()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
