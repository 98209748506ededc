package app

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/awp-tray/awp-tray/app/render"
	"github.com/awp-tray/awp-tray/peer"
)

// States a person can declare in a thread (docs/protocol/messages.md).
var States = []string{"open", "working", "waiting", "done", "failed", "closed"}

// sendTimeout bounds one Send or SetState (they commit to the store).
const sendTimeout = 30 * time.Second

// composer is the bottom of a thread window: reply text, attachments, and
// my state.
type composer struct {
	a  *App
	tw *threadWindow

	box     *fyne.Container
	text    *composeEntry
	files   []string // paths to attach as blobs
	attach  *widget.Button
	chips   *fyne.Container // one removable chip per attached file
	send    *widget.Button
	state   *widget.Select
	note    *widget.Entry
	setBtn  *widget.Button
	sending bool
}

func newComposer(a *App, tw *threadWindow) *composer {
	c := &composer{a: a, tw: tw}
	c.text = newComposeEntry(c.sendReply, tw.closeAsked)
	c.text.SetPlaceHolder("Reply… (Enter sends, Shift+Enter starts a new line, Esc closes)")
	c.text.SetMinRowsVisible(3)
	c.text.Wrapping = fyne.TextWrapWord
	c.chips = container.NewHBox()
	c.attach = widget.NewButtonWithIcon("Attach…", theme.ContentAddIcon(), c.pickFile)
	c.send = widget.NewButtonWithIcon("Send", theme.MailSendIcon(), c.sendReply)
	c.send.Importance = widget.HighImportance
	c.state = widget.NewSelect(States, nil)
	c.state.PlaceHolder = "my state"
	c.note = widget.NewEntry()
	c.note.SetPlaceHolder("note (optional)")
	c.setBtn = widget.NewButton("Set state", c.setState)
	stateRow := container.NewBorder(nil, nil, container.NewHBox(widget.NewLabel("My state:"), c.state), c.setBtn, c.note)
	buttons := container.NewBorder(nil, nil, c.attach, c.send, container.NewHScroll(c.chips))
	c.box = container.NewVBox(widget.NewSeparator(), c.text, buttons, stateRow)
	return c
}

// setReadOnly disables composing (mirrored and withdrawn threads).
func (c *composer) setReadOnly(ro bool) {
	for _, w := range []fyne.Disableable{c.text, c.attach, c.send, c.state, c.note, c.setBtn} {
		if ro {
			w.Disable()
		} else {
			w.Enable()
		}
	}
}

func (c *composer) pickFile() {
	d := dialog.NewFileOpen(func(rc fyne.URIReadCloser, err error) {
		if err != nil || rc == nil {
			return
		}
		p := rc.URI().Path()
		rc.Close()
		c.files = append(c.files, p)
		c.showFiles()
	}, c.tw.w)
	d.Show()
}

// showFiles shows each attached file as a chip: its name, and a button
// that takes it off.
func (c *composer) showFiles() {
	objs := make([]fyne.CanvasObject, len(c.files))
	for i, f := range c.files {
		i := i
		name := render.Clip(filepath.Base(f), render.MaxName)
		objs[i] = widget.NewButtonWithIcon(name, theme.CancelIcon(), func() { c.removeFile(i) })
	}
	c.chips.Objects = objs
	c.chips.Refresh()
}

// removeFile takes the i-th attachment off. UI goroutine.
func (c *composer) removeFile(i int) {
	if i < 0 || i >= len(c.files) {
		return
	}
	c.files = append(c.files[:i:i], c.files[i+1:]...)
	c.showFiles()
}

// composeEntry is the reply field: Enter sends, Shift+Enter starts a new
// line, Esc closes the window.
type composeEntry struct {
	widget.Entry
	send, close func()
	shift       bool // a Shift key is down
}

func newComposeEntry(send, close func()) *composeEntry {
	e := &composeEntry{send: send, close: close}
	e.MultiLine = true
	e.ExtendBaseWidget(e)
	return e
}

// KeyDown notes Shift (desktop.Keyable), then lets the entry select.
func (e *composeEntry) KeyDown(ev *fyne.KeyEvent) {
	if ev.Name == desktop.KeyShiftLeft || ev.Name == desktop.KeyShiftRight {
		e.shift = true
	}
	e.Entry.KeyDown(ev)
}

// KeyUp notes Shift let go.
func (e *composeEntry) KeyUp(ev *fyne.KeyEvent) {
	if ev.Name == desktop.KeyShiftLeft || ev.Name == desktop.KeyShiftRight {
		e.shift = false
	}
	e.Entry.KeyUp(ev)
}

// TypedKey sends on Enter, keeps Shift+Enter a new line, closes on Esc.
func (e *composeEntry) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyReturn, fyne.KeyEnter:
		if !e.shift && !e.Disabled() {
			e.send()
			return
		}
	case fyne.KeyEscape:
		e.close()
		return
	}
	e.Entry.TypedKey(ev)
}

// TextPart is a wire text part.
func TextPart(text string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"k": "text", "text": text})
	return b
}

// buildSend makes the SendRequest for a reply in thread t.
func buildSend(t peer.ThreadInfo, text string, files []string) (peer.SendRequest, error) {
	r := peer.SendRequest{To: t.Peer, Th: t.Th}
	if strings.TrimSpace(text) != "" {
		r.Parts = append(r.Parts, TextPart(text))
	}
	for _, f := range files {
		r.Blobs = append(r.Blobs, peer.BlobFile{Path: f})
	}
	if len(r.Parts) == 0 && len(r.Blobs) == 0 {
		return r, errors.New("nothing to send")
	}
	return r, nil
}

func (c *composer) sendReply() {
	be := c.a.backend()
	if be == nil || c.sending {
		return
	}
	req, err := buildSend(c.tw.info, c.text.Text, c.files)
	if err != nil {
		return
	}
	c.sending = true
	c.send.Disable()
	c.a.background(func() {
		ctx, cancel := context.WithTimeout(c.a.ctx, sendTimeout)
		defer cancel()
		_, err := be.Send(ctx, req)
		fyne.Do(func() {
			c.sending = false
			c.send.Enable()
			if err != nil {
				// What was typed stays in the composer.
				dialog.ShowError(errors.New(plainError(err)), c.tw.w)
				return
			}
			c.text.SetText("")
			c.files = nil
			c.showFiles()
			// My line shows at the end when it lands.
			c.tw.toEnd = true
			c.tw.list.ScrollToBottom()
		})
	})
}

func (c *composer) setState() {
	be := c.a.backend()
	if be == nil || c.state.Selected == "" {
		return
	}
	th, st, note := c.tw.key.th, c.state.Selected, c.note.Text
	c.a.background(func() {
		ctx, cancel := context.WithTimeout(c.a.ctx, sendTimeout)
		defer cancel()
		_, err := be.SetState(ctx, th, st, note)
		fyne.Do(func() {
			if err != nil {
				dialog.ShowError(errors.New(plainError(err)), c.tw.w)
				return
			}
			c.note.SetText("")
		})
	})
}

// newThread asks for a peer, a subject and a first message, then sends
// it. The peer list is read off the UI goroutine first.
func (a *App) newThread() {
	be := a.runningBackend()
	if be == nil {
		return
	}
	a.background(func() {
		peers, err := be.Peers()
		fyne.Do(func() {
			if err != nil {
				a.main.showError(err)
				return
			}
			a.newThreadDialog(peers)
		})
	})
}

// peerChoice is how a peer appears in a picker: "name (short)".
func peerChoice(p peer.PeerInfo) string {
	name := render.Clip(p.Name, render.MaxName)
	if name == "" {
		name = "?"
	}
	s := name + " (" + render.ShortKey(p.Key.String()) + ")"
	if p.Up {
		s += " ●"
	}
	return s
}

// newThreadDialog asks for a peer, a subject and a first message; it
// keeps what was typed, with the reason, when sending fails.
func (a *App) newThreadDialog(peers []peer.PeerInfo) *askDialog {
	choices := make([]string, len(peers))
	keys := map[string]string{}
	for i, p := range peers {
		choices[i] = peerChoice(p)
		keys[choices[i]] = p.Key.String()
	}
	to := widget.NewSelectEntry(choices)
	to.SetPlaceHolder("peer, or paste a key (ed25519:…)")
	subject := widget.NewEntry()
	text := widget.NewMultiLineEntry()
	text.SetMinRowsVisible(4)
	text.Wrapping = fyne.TextWrapWord
	a.main.w.Show()
	d := a.ask(a.main.w, "New thread", "Send", []*widget.FormItem{
		widget.NewFormItem("To", to),
		widget.NewFormItem("Subject", subject),
		widget.NewFormItem("Message", text),
	}, func() (func(), error) {
		k := keys[to.Text]
		if k == "" {
			k = strings.TrimSpace(to.Text)
		}
		return a.startThread(k, subject.Text, text.Text)
	})
	d.d.Resize(fyne.NewSize(560, 360))
	return d
}

// runningBackend returns the node's backend for an action the person
// started. Before the node runs there is none: it tells the person so and
// returns nil, and the action does nothing.
func (a *App) runningBackend() Backend {
	be := a.backend()
	if be == nil {
		a.main.w.Show()
		dialog.ShowInformation("Not running", "The AWP peer is not running yet: "+a.status, a.main.w)
	}
	return be
}
