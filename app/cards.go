package app

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/awp-tray/awp-tray/app/render"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/presence"
)

// The Presence window's model: agent cards made from the known peers and
// the presence documents, without Fyne.

// cardThreads is how many threads a card names before "and N more": a
// card is one glance, the thread list has the rest.
const cardThreads = 3

// AgentCard is a peer as the Presence window shows it: one card per key,
// from what the node knows of it (a known peer: up or down, rtt, trust),
// what it publishes (its presence document: harness, model, host) and the
// threads it has with me.
type AgentCard struct {
	Key      string
	Name     string // display name, or the short key
	Title    string // name and short key
	Software string // "claude-code · opus · on build-box · v0.1.0" ("" when it publishes none)
	Status   string // "up · 12 ms", "down · last seen 5 min ago", "not connected · 2 hops away"
	Up       bool
	Known    bool   // a known peer (not only a presence document relayed to me)
	Trust    string // "trusted", "introduced by bob", "not trusted"
	Trusted  bool
	Threads  string // "Port the auth middleware (you: working, alice: –) · …", or what it publishes
	Dial     string // where Connect dials ("" none)
}

// Cards merges known peers and presence documents into one list of
// cards: up peers first, then down ones, then keys known only from
// presence, each by name. threads are mine (the threads list); name gives
// a key's display name (nil: short keys); now is for "last seen".
func Cards(peers []peer.PeerInfo, docs []peer.PresenceInfo, threads []peer.ThreadInfo, self string, name func(string) string, now time.Time) []AgentCard {
	if name == nil {
		name = render.ShortKey
	}
	docOf := map[string]presence.Doc{}
	hops := map[string]int{}
	for _, pi := range docs {
		var d presence.Doc
		if json.Unmarshal(pi.Doc, &d) != nil || d.Origin == "" || d.Origin == self {
			continue
		}
		docOf[d.Origin], hops[d.Origin] = d, pi.Hops
	}
	mine := map[string][]peer.ThreadInfo{}
	for _, t := range threads {
		if t.MirroredFrom.IsZero() {
			mine[t.Peer.String()] = append(mine[t.Peer.String()], t)
		}
	}
	var out []AgentCard
	seen := map[string]bool{}
	for _, p := range peers {
		if p.Key.String() == self || seen[p.Key.String()] {
			continue
		}
		seen[p.Key.String()] = true
		d := docOf[p.Key.String()]
		c := AgentCard{Key: p.Key.String(), Known: true, Up: p.Up, Trusted: p.Trusted, Dial: dialAddress(p)}
		nm := render.Clip(p.Name, render.MaxName)
		if nm == "" {
			nm = render.Clip(d.Name, render.MaxName)
		}
		c.Title = cardTitle(nm, p.Key.String())
		c.Software = software(d)
		c.Status, c.Trust = peerStatus(p, now), peerTrust(p, name)
		if nm == "" {
			nm = render.ShortKey(p.Key.String())
		}
		c.Name = nm
		c.Threads = cardThreadsText(mine[p.Key.String()], d, self, nm, name)
		out = append(out, c)
	}
	for origin, d := range docOf {
		if seen[origin] {
			continue
		}
		nm := render.Clip(d.Name, render.MaxName)
		c := AgentCard{Key: origin, Title: cardTitle(nm, origin), Software: software(d), Trust: "not trusted"}
		c.Status = fmt.Sprintf("not connected · %d hops away", hops[origin])
		if nm == "" {
			nm = render.ShortKey(origin)
		}
		c.Name = nm
		c.Threads = cardThreadsText(mine[origin], d, self, nm, name)
		out = append(out, c)
	}
	sortCards(out)
	return out
}

// peerStatus is a known peer's card status: up (and its round trip) or
// down (and when it was last seen), then what it says about itself.
func peerStatus(p peer.PeerInfo, now time.Time) string {
	var st string
	switch {
	case p.Up && p.RTTms > 0:
		st = fmt.Sprintf("up · %d ms", p.RTTms)
	case p.Up:
		st = "up"
	default:
		st = "down"
		if t, ok := render.ParseTime(p.LastSeen); ok {
			st += " · last seen " + render.Ago(t, now, nil)
		} else {
			st += " · never connected"
		}
	}
	if p.About != "" {
		st += " · " + render.Clip(p.About, render.MaxTitle)
	}
	return st
}

// peerTrust is a known peer's card trust line.
func peerTrust(p peer.PeerInfo, name func(string) string) string {
	switch {
	case p.Trusted:
		return "trusted"
	case !p.IntroducedBy.IsZero():
		return "introduced by " + render.Clip(name(p.IntroducedBy.String()), render.MaxName)
	}
	return "not trusted"
}

// sortCards orders cards: up peers, down peers, then keys known only from
// presence; each group by title, then key.
func sortCards(out []AgentCard) {
	rank := func(c AgentCard) int {
		switch {
		case c.Known && c.Up:
			return 0
		case c.Known:
			return 1
		}
		return 2
	}
	sort.SliceStable(out, func(i, j int) bool {
		if ri, rj := rank(out[i]), rank(out[j]); ri != rj {
			return ri < rj
		}
		if out[i].Title != out[j].Title {
			return out[i].Title < out[j].Title
		}
		return out[i].Key < out[j].Key
	})
}

func cardTitle(name, k string) string {
	if name == "" {
		name = "(no name)"
	}
	return name + "  " + render.ShortKey(k)
}

// software is what a presence document says the peer runs.
func software(d presence.Doc) string {
	var s []string
	for _, v := range []string{d.Harness, d.Model} {
		if v != "" {
			s = append(s, render.Clip(v, render.MaxName))
		}
	}
	if d.Host != "" {
		s = append(s, "on "+render.Clip(d.Host, render.MaxName))
	}
	if d.Version != "" {
		s = append(s, "v"+strings.TrimPrefix(render.Clip(d.Version, render.MaxName), "v"))
	}
	return strings.Join(s, " · ")
}

// cardThreadsText names a peer's threads with me (newest first, with both
// states), then those it publishes with others, at most cardThreads.
func cardThreadsText(mine []peer.ThreadInfo, d presence.Doc, self, them string, name func(string) string) string {
	sort.SliceStable(mine, func(i, j int) bool { return mine[i].Updated > mine[j].Updated })
	var items []string
	for _, t := range mine {
		s := render.Clip(t.Subject, render.MaxTitle)
		if s == "" {
			s = "(no subject)"
		}
		if t.Mine != "" || t.Theirs != "" {
			s += fmt.Sprintf(" (you: %s, %s: %s)", dash(t.Mine), them, dash(t.Theirs))
		}
		if t.Unread > 0 {
			s += fmt.Sprintf(" · %d unread", t.Unread)
		}
		items = append(items, s)
	}
	others := slicesSortedThreads(d.Threads)
	for _, t := range others {
		if t.Peer == self {
			continue // the same thread as one of mine, seen from their side
		}
		s := render.Clip(t.Subject, render.MaxTitle)
		if s == "" {
			s = "(no subject)"
		}
		other := render.Clip(name(t.Peer), render.MaxName)
		s += fmt.Sprintf(" with %s (%s: %s, %s: %s)", other, them, dash(t.Mine), other, dash(t.Theirs))
		items = append(items, s)
	}
	if len(items) == 0 {
		return "No threads with you."
	}
	more := len(items) - cardThreads
	if more > 0 {
		items = append(items[:cardThreads], fmt.Sprintf("and %d more", more))
	}
	return render.Clip(strings.Join(items, " · "), render.MaxField)
}

func slicesSortedThreads(ts []presence.ThreadEntry) []presence.ThreadEntry {
	out := append([]presence.ThreadEntry(nil), ts...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Updated != out[j].Updated {
			return out[i].Updated > out[j].Updated
		}
		return out[i].Th < out[j].Th
	})
	return out
}

func dash(s string) string {
	if s == "" {
		return "–"
	}
	return render.Clip(s, render.MaxName)
}

// dialAddress is where Connect dials a peer: the address kept up, else
// the first one it listens on.
func dialAddress(p peer.PeerInfo) string {
	if p.Dialed != "" {
		return p.Dialed
	}
	if len(p.Listen) > 0 {
		return p.Listen[0]
	}
	return ""
}
