package app

import (
	"context"
	"fmt"
	"image/color"
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
	"github.com/awp-tray/awp-tray/peer/key"
)

// connectTimeout bounds a Connect from the UI (dial and handshake).
const connectTimeout = 30 * time.Second

// trustNote says what Trust means, under the cards: trusting a key is
// letting it grant permissions here, which people underestimate.
const trustNote = "Trust a key only if it is yours (your other machines, your own agents): a grant a trusted key signs counts " +
	"here like one of yours, even one it signs for itself, so it can run commands and read and write files on this peer " +
	"without asking you. It can also introduce others. Without trust a peer can still talk to you; what it may run here " +
	"is always your decision."

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
		pk, err := key.ParsePublic(k) // a card's key, as text
		if err == nil {
			err = be.Trust(pk, trusted)
		}
		if err != nil {
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
	be := a.runningBackend()
	if be == nil {
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
