package app

import (
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	"sort"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/awp-tray/awp-tray/app/menu"
	"github.com/awp-tray/awp-tray/app/render"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/presence"
)

// connectTimeout bounds a Connect from the UI (dial and handshake).
const connectTimeout = 30 * time.Second

// cardThreads is how many threads a card names before "and N more": a
// card is one glance, the thread list has the rest.
const cardThreads = 3

// trustNote says what Trust means, under the cards: trusting a key is
// letting it grant permissions here, which people underestimate.
const trustNote = "Trust a key only if it is yours (your other machines, your own agents): a grant a trusted key signs counts " +
	"here like one of yours, even one it signs for itself, so it can run commands and read and write files on this peer " +
	"without asking you. It can also introduce others. Without trust a peer can still talk to you; what it may run here " +
	"is always your decision."

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
		if t.MirroredFrom == "" {
			mine[t.Peer] = append(mine[t.Peer], t)
		}
	}
	var out []AgentCard
	seen := map[string]bool{}
	for _, p := range peers {
		if p.Key == self || seen[p.Key] {
			continue
		}
		seen[p.Key] = true
		d := docOf[p.Key]
		c := AgentCard{Key: p.Key, Known: true, Up: p.Up, Trusted: p.Trusted, Dial: dialAddress(p)}
		nm := render.Clip(p.Name, render.MaxName)
		if nm == "" {
			nm = render.Clip(d.Name, render.MaxName)
		}
		c.Title = cardTitle(nm, p.Key)
		c.Software = software(d)
		switch {
		case p.Up && p.RTTms > 0:
			c.Status = fmt.Sprintf("up · %d ms", p.RTTms)
		case p.Up:
			c.Status = "up"
		default:
			c.Status = "down"
			if t, ok := render.ParseTime(p.LastSeen); ok {
				c.Status += " · last seen " + render.Ago(t, now, nil)
			} else {
				c.Status += " · never connected"
			}
		}
		if p.About != "" {
			c.Status += " · " + render.Clip(p.About, render.MaxTitle)
		}
		switch {
		case p.Trusted:
			c.Trust = "trusted"
		case p.IntroducedBy != "":
			c.Trust = "introduced by " + render.Clip(name(p.IntroducedBy), render.MaxName)
		default:
			c.Trust = "not trusted"
		}
		if nm == "" {
			nm = render.ShortKey(p.Key)
		}
		c.Name = nm
		c.Threads = cardThreadsText(mine[p.Key], d, self, nm, name)
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
	return out
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

// presenceWindow shows every peer as a card: known peers merged with what
// presence documents say, one list.
type presenceWindow struct {
	a     *App
	w     fyne.Window
	me    *widget.Label
	addr  *widget.Entry
	list  *widget.List
	peers []peer.PeerInfo
	docs  []peer.PresenceInfo
	cards []AgentCard
	none  *widget.Label
	note  *widget.Label
	views map[fyne.CanvasObject]*cardView // the list's row views
}

func (a *App) showPresence() {
	if a.presence == nil {
		a.presence = newPresenceWindow(a)
	}
	a.presence.w.Show()
	a.presence.w.RequestFocus()
	a.background(func() { a.refresh(dirtyPeers) })
}

// cardView is a card's widgets, made once per recycled list row.
type cardView struct {
	box                    *fyne.Container
	dot                    *canvas.Circle
	title, status, threads *widget.Label
	msg, trust, conn       *widget.Button
}

// dotSize is the up/down dot's diameter.
const dotSize = 12

func newCardView() *cardView {
	v := &cardView{dot: canvas.NewCircle(color.Transparent)}
	v.dot.StrokeWidth = 1.5
	v.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	v.status = widget.NewLabel("")
	v.threads = widget.NewLabel("")
	v.threads.TextStyle.Italic = true
	for _, l := range []*widget.Label{v.title, v.status, v.threads} {
		l.Truncation = fyne.TextTruncateEllipsis
	}
	v.msg = widget.NewButton("Message", nil)
	v.trust = widget.NewButton("Trust", nil)
	v.conn = widget.NewButton("Connect", nil)
	dot := container.NewGridWrap(fyne.NewSize(dotSize, dotSize), v.dot)
	left := container.NewVBox(layout.NewSpacer(), dot, layout.NewSpacer())
	buttons := container.NewVBox(layout.NewSpacer(), container.NewHBox(v.msg, v.trust, v.conn), layout.NewSpacer())
	text := container.New(layout.NewCustomPaddedVBoxLayout(-theme.Padding()*2), v.title, v.status, v.threads)
	v.box = container.NewBorder(nil, nil, left, buttons, text)
	return v
}

// show fills the view with card c. UI goroutine.
func (v *cardView) show(c AgentCard, p *presenceWindow) {
	v.title.SetText(c.Title + " · " + c.Trust)
	status := c.Status
	if c.Software != "" {
		status += " · " + c.Software
	}
	v.status.SetText(status)
	v.threads.SetText(c.Threads)
	switch {
	case c.Up:
		v.dot.FillColor, v.dot.StrokeColor = theme.Color(theme.ColorNameSuccess), theme.Color(theme.ColorNameSuccess)
	case c.Known:
		v.dot.FillColor, v.dot.StrokeColor = theme.Color(theme.ColorNameDisabled), theme.Color(theme.ColorNameDisabled)
	default: // seen only through others: a ring
		v.dot.FillColor, v.dot.StrokeColor = color.Transparent, theme.Color(theme.ColorNameDisabled)
	}
	v.dot.Refresh()
	k, title := c.Key, c.Name
	v.msg.OnTapped = func() { p.a.messagePeer(k, title, p.w) }
	if c.Trusted {
		v.trust.SetText("Untrust")
	} else {
		v.trust.SetText("Trust…")
	}
	trusted := c.Trusted
	v.trust.OnTapped = func() { p.askTrust(k, title, !trusted) }
	addr := c.Dial
	v.conn.OnTapped = func() { p.connect(addr) }
	if c.Up || addr == "" {
		v.conn.Hide()
	} else {
		v.conn.Show()
	}
}

func newPresenceWindow(a *App) *presenceWindow {
	p := &presenceWindow{a: a, w: a.fa.NewWindow("AWP: Presence")}
	p.me = widget.NewLabel("")
	p.me.Wrapping = fyne.TextWrapWord
	p.addr = widget.NewEntry()
	p.addr.SetPlaceHolder("tcp://host:port, unix:///path, wg://…")
	connect := widget.NewButton("Connect", func() { p.connect(strings.TrimSpace(p.addr.Text)) })
	p.views = map[fyne.CanvasObject]*cardView{}
	views := p.views
	p.list = widget.NewList(
		func() int { return len(p.cards) },
		func() fyne.CanvasObject {
			v := newCardView()
			views[v.box] = v
			return v.box
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if v := views[o]; v != nil && id >= 0 && id < len(p.cards) {
				v.show(p.cards[id], p)
			}
		},
	)
	p.list.OnSelected = func(id widget.ListItemID) { p.list.Unselect(id) }
	p.none = widget.NewLabel("No peers yet. Copy your invite and send it to someone, or add theirs with Add peer….")
	p.none.Wrapping = fyne.TextWrapWord
	p.none.TextStyle.Italic = true // helper text in the foreground colour: LowImportance is the disabled colour, 1.3:1 (light) and 1.5:1 (dark)
	p.note = widget.NewLabel(trustNote)
	p.note.Wrapping = fyne.TextWrapWord
	p.note.TextStyle.Italic = true
	invite := widget.NewButton(menu.LabelInvite, a.copyInvite)
	add := widget.NewButton(menu.LabelAddPeer, func() { a.addPeerIn(p.w) })
	top := container.NewVBox(
		container.NewBorder(nil, nil, nil, container.NewHBox(invite, add), p.me),
		container.NewBorder(nil, nil, widget.NewLabel("Dial:"), connect, p.addr))
	p.w.SetContent(container.NewBorder(top, p.note, nil, nil, container.NewStack(p.none, p.list)))
	p.w.Resize(fyne.NewSize(760, 560))
	p.w.SetCloseIntercept(p.w.Hide)
	return p
}

// setPeers shows a new peer list. UI goroutine.
func (p *presenceWindow) setPeers(ps []peer.PeerInfo) {
	p.peers = ps
	if be := p.a.backend(); be != nil {
		listen := strings.Join(be.ListenAddrs(), ", ")
		if listen == "" {
			listen = "nothing (this peer only dials out)"
		}
		p.me.SetText(fmt.Sprintf("Me: %s  %s\nListening on: %s", be.Name(), be.Key().String(), listen))
	}
	p.rebuild()
}

// setDocs shows the presence table. UI goroutine.
func (p *presenceWindow) setDocs(docs []peer.PresenceInfo) {
	p.docs = docs
	p.rebuild()
}

// rebuild makes the cards from the peers, the documents and my threads.
// UI goroutine.
func (p *presenceWindow) rebuild() {
	self := ""
	if be := p.a.backend(); be != nil {
		self = be.Key().String()
	}
	p.cards = Cards(p.peers, p.docs, p.a.main.all, self, p.a.main.name, time.Now())
	if len(p.cards) == 0 {
		p.none.Show()
	} else {
		p.none.Hide()
	}
	p.list.Refresh()
}

// askTrust trusts or untrusts key k; trusting asks first, saying what it
// means.
func (p *presenceWindow) askTrust(k, name string, trusted bool) {
	if !trusted {
		p.setTrust(k, false)
		return
	}
	l := widget.NewLabel("Trust " + name + " (" + render.ShortKey(k) + ")?\n\n" + trustNote)
	l.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomConfirm("Trust this key?", "Trust", "Cancel", l, func(yes bool) {
		if yes {
			p.setTrust(k, true)
		}
	}, p.w)
	d.Resize(fyne.NewSize(520, 300))
	d.Show()
}

func (p *presenceWindow) setTrust(k string, trusted bool) {
	be := p.a.backend()
	if be == nil {
		return
	}
	p.a.background(func() {
		if err := be.Trust(k, trusted); err != nil {
			fyne.Do(func() { showPlainError("Could not change trust", err, p.w) })
			return
		}
		p.a.refresh(dirtyPeers)
	})
}

func (p *presenceWindow) connect(addr string) {
	if addr == "" {
		return
	}
	p.a.connect(addr, p.w)
}

// connect dials addr off the UI goroutine and reports the outcome in
// parent.
func (a *App) connect(addr string, parent fyne.Window) {
	be := a.backend()
	if be == nil {
		a.notRunning()
		return
	}
	a.background(func() {
		ctx, cancel := context.WithTimeout(a.ctx, connectTimeout)
		defer cancel()
		k, err := be.Connect(ctx, addr)
		fyne.Do(func() {
			if err != nil {
				showPlainError("Could not connect to "+render.Clip(addr, render.MaxTitle), err, parent)
				return
			}
			a.main.setNotice("Connected to " + render.ShortKey(k.String()) + " at " + addr)
		})
		a.refresh(dirtyPeers)
	})
}
