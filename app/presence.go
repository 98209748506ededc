package app

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/awp-tray/awp-tray/app/menu"
	"github.com/awp-tray/awp-tray/app/render"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/presence"
)

// connectTimeout bounds a Connect from the UI (dial and handshake).
const connectTimeout = 30 * time.Second

// presenceWindow lists known peers: name, short key, up/down, rtt,
// trusted or introduced; trust/untrust and connect.
type presenceWindow struct {
	a     *App
	w     fyne.Window
	me    *widget.Label
	addr  *widget.Entry
	list  *widget.List
	peers []peer.PeerInfo
	docs  *widget.List
	doc   []DocLines // presence documents, rendered
	none  *widget.Label
}

// DocLines is one presence document as the Presence window shows it.
type DocLines struct {
	Title   string // name and short key
	Detail  string // harness, model, host, version, hops, unread
	Threads string // one "subject: me … · them …" per thread, "; "-joined
}

// PresenceLines renders a presence table entry; names gives peer names
// for the threads' other parties.
func PresenceLines(pi peer.PresenceInfo, name func(string) string) DocLines {
	var d presence.Doc
	if err := json.Unmarshal(pi.Doc, &d); err != nil {
		return DocLines{Title: "(unreadable document from " + render.ShortKey(pi.From) + ")"}
	}
	n := render.Clip(d.Name, render.MaxName)
	if n == "" {
		n = "(no name)"
	}
	out := DocLines{Title: n + "  " + render.ShortKey(d.Origin)}
	var det []string
	for _, kv := range [][2]string{{"harness", d.Harness}, {"model", d.Model}, {"host", d.Host}, {"v", d.Version}} {
		if kv[1] != "" {
			det = append(det, kv[0]+" "+kv[1])
		}
	}
	if pi.Hops > 1 {
		det = append(det, fmt.Sprintf("%d hops away", pi.Hops))
	} else {
		det = append(det, "direct")
	}
	up := 0
	for _, p := range d.Peers {
		if p.Up {
			up++
		}
	}
	det = append(det, fmt.Sprintf("%d/%d peers up", up, len(d.Peers)))
	if d.Unread > 0 {
		det = append(det, fmt.Sprintf("%d unread", d.Unread))
	}
	out.Detail = render.Clip(strings.Join(det, " · "), render.MaxField)
	sort.SliceStable(d.Threads, func(i, j int) bool {
		a, b := d.Threads[i], d.Threads[j]
		if a.Updated != b.Updated {
			return a.Updated > b.Updated
		}
		if a.Subject != b.Subject {
			return a.Subject < b.Subject
		}
		return a.Th < b.Th
	})
	var ths []string
	for _, t := range d.Threads {
		subj := render.Clip(t.Subject, render.MaxTitle)
		if subj == "" {
			subj = t.Th
		}
		other := render.ShortKey(t.Peer)
		if name != nil {
			other = name(t.Peer)
		}
		other = render.Clip(other, render.MaxName)
		mine, theirs := render.Clip(t.Mine, render.MaxName), render.Clip(t.Theirs, render.MaxName)
		if mine == "" {
			mine = "–"
		}
		if theirs == "" {
			theirs = "–"
		}
		ths = append(ths, fmt.Sprintf("%s with %s: %s %s, %s %s", subj, other, n, mine, other, theirs))
	}
	if len(ths) == 0 {
		out.Threads = "no threads published"
	} else {
		out.Threads = render.Clip(strings.Join(ths, "; "), render.MaxField)
	}
	return out
}

// PeerLine is a peer's row text in the Presence window.
func PeerLine(p peer.PeerInfo) (title, detail string) {
	name := render.Clip(p.Name, render.MaxName)
	if name == "" {
		name = "(no name)"
	}
	title = name + "  " + render.ShortKey(p.Key)
	var d []string
	if p.Up {
		s := "● up"
		if p.RTTms > 0 {
			s += fmt.Sprintf(", %d ms", p.RTTms)
		}
		d = append(d, s)
	} else {
		s := "○ down"
		if p.LastSeen != "" {
			s += ", last seen " + render.Clock(p.LastSeen, time.Now(), nil)
		}
		d = append(d, s)
	}
	switch {
	case p.Trusted:
		d = append(d, "trusted")
	case p.IntroducedBy != "":
		d = append(d, "introduced by "+render.ShortKey(p.IntroducedBy))
	default:
		d = append(d, "not trusted")
	}
	if p.About != "" {
		d = append(d, render.Clip(p.About, render.MaxTitle))
	}
	return title, strings.Join(d, " · ")
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

func (a *App) showPresence() {
	if a.presence == nil {
		a.presence = newPresenceWindow(a)
	}
	a.presence.w.Show()
	a.presence.w.RequestFocus()
	a.background(func() { a.refresh(dirtyPeers) })
}

func newPresenceWindow(a *App) *presenceWindow {
	p := &presenceWindow{a: a, w: a.fa.NewWindow("AWP: Presence")}
	p.me = widget.NewLabel("")
	p.me.Wrapping = fyne.TextWrapWord
	p.addr = widget.NewEntry()
	p.addr.SetPlaceHolder("tcp://host:port, unix:///path, wg://…")
	connect := widget.NewButton("Connect", func() { p.connect(strings.TrimSpace(p.addr.Text)) })
	p.list = widget.NewList(
		func() int { return len(p.peers) },
		func() fyne.CanvasObject {
			title := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
			title.Truncation = fyne.TextTruncateEllipsis
			detail := widget.NewLabel("")
			detail.Truncation = fyne.TextTruncateEllipsis
			trust := widget.NewButton("Untrust", nil)
			conn := widget.NewButton("Connect", nil)
			return container.NewBorder(nil, nil, nil, container.NewHBox(trust, conn), container.NewVBox(title, detail))
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id < 0 || id >= len(p.peers) {
				return
			}
			pi := p.peers[id]
			c := o.(*fyne.Container)
			texts := c.Objects[0].(*fyne.Container)
			btns := c.Objects[1].(*fyne.Container)
			title, detail := PeerLine(pi)
			texts.Objects[0].(*widget.Label).SetText(title)
			texts.Objects[1].(*widget.Label).SetText(detail)
			trust := btns.Objects[0].(*widget.Button)
			if pi.Trusted {
				trust.SetText("Untrust")
			} else {
				trust.SetText("Trust")
			}
			trust.OnTapped = func() { p.setTrust(pi.Key, !pi.Trusted) }
			conn := btns.Objects[1].(*widget.Button)
			addr := dialAddress(pi)
			conn.OnTapped = func() { p.connect(addr) }
			if pi.Up || addr == "" {
				conn.Disable()
			} else {
				conn.Enable()
			}
		},
	)
	p.docs = widget.NewList(
		func() int { return len(p.doc) },
		func() fyne.CanvasObject {
			title := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
			detail := widget.NewLabel("")
			threads := widget.NewLabel("")
			for _, l := range []*widget.Label{title, detail, threads} {
				l.Truncation = fyne.TextTruncateEllipsis
			}
			threads.Importance = widget.LowImportance
			return container.NewVBox(title, detail, threads)
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id < 0 || id >= len(p.doc) {
				return
			}
			d := p.doc[id]
			c := o.(*fyne.Container)
			c.Objects[0].(*widget.Label).SetText(d.Title)
			c.Objects[1].(*widget.Label).SetText(d.Detail)
			c.Objects[2].(*widget.Label).SetText(d.Threads)
		},
	)
	p.none = widget.NewLabel("No presence documents yet.")
	p.none.Importance = widget.LowImportance
	invite := widget.NewButton(menu.LabelInvite, a.copyInvite)
	add := widget.NewButton(menu.LabelAddPeer, func() { a.addPeerIn(p.w) })
	top := container.NewVBox(
		container.NewBorder(nil, nil, nil, container.NewHBox(invite, add), p.me),
		container.NewBorder(nil, nil, widget.NewLabel("Dial:"), connect, p.addr))
	peersBox := container.NewBorder(widget.NewLabelWithStyle("Known peers", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), nil, nil, nil, p.list)
	docsBox := container.NewBorder(widget.NewLabelWithStyle("Presence (what peers publish)", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), nil, nil, nil,
		container.NewStack(p.none, p.docs))
	split := container.NewVSplit(peersBox, docsBox)
	split.Offset = 0.5
	p.w.SetContent(container.NewBorder(top, nil, nil, nil, split))
	p.w.Resize(fyne.NewSize(760, 560))
	p.w.SetCloseIntercept(p.w.Hide)
	return p
}

// setPeers shows a new peer list. UI goroutine.
func (p *presenceWindow) setPeers(ps []peer.PeerInfo) {
	p.peers = ps
	if be := p.a.backend(); be != nil {
		p.me.SetText(fmt.Sprintf("Me: %s  %s\nListening on: %s", be.Name(), be.Key().String(), strings.Join(be.ListenAddrs(), ", ")))
	}
	p.list.Refresh()
}

// setDocs shows the presence table. UI goroutine.
func (p *presenceWindow) setDocs(docs []peer.PresenceInfo) {
	p.doc = p.doc[:0]
	for _, d := range docs {
		p.doc = append(p.doc, PresenceLines(d, p.a.main.name))
	}
	if len(p.doc) == 0 {
		p.none.Show()
	} else {
		p.none.Hide()
	}
	p.docs.Refresh()
}

func (p *presenceWindow) setTrust(k string, trusted bool) {
	be := p.a.backend()
	if be == nil {
		return
	}
	p.a.background(func() {
		if err := be.Trust(k, trusted); err != nil {
			fyne.Do(func() { dialog.ShowError(err, p.w) })
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
				dialog.ShowError(fmt.Errorf("connect %s: %w", addr, err), parent)
				return
			}
			a.main.setNotice("Connected to " + render.ShortKey(k.String()) + " at " + addr)
		})
		a.refresh(dirtyPeers)
	})
}
