package app

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"github.com/awp-tray/awp-tray/app/render"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

// copyInvite puts my invite on the clipboard. The invite is built off the
// UI goroutine (the node may read its store).
func (a *App) copyInvite() {
	be := a.runningBackend()
	if be == nil {
		return
	}
	a.background(func() {
		s := be.Invite()
		fyne.Do(func() {
			if s == "" {
				a.main.showError(errors.New("the peer did not give its invite; try again"))
				return
			}
			a.setClipboard(s)
			a.main.setNotice("Invite copied to the clipboard.")
			a.fa.SendNotification(fyne.NewNotification("AWP", "Your invite is on the clipboard."))
		})
	})
}

// addPeer asks, in the main window, for an invite or an address and
// connects to it.
func (a *App) addPeer() {
	a.main.w.Show()
	a.addPeerIn(a.main.w)
}

// addPeerIn asks, in parent, for an invite or an address and connects to
// it. The dialog stays open until it worked: a failure shows in it, in a
// sentence, with the text as it was typed. The outcome shows in the main
// window's notice.
func (a *App) addPeerIn(parent fyne.Window) *askDialog {
	be := a.runningBackend()
	if be == nil {
		return nil
	}
	entry := widget.NewMultiLineEntry()
	entry.SetPlaceHolder("awp:… invite, or tcp://host:port")
	entry.SetMinRowsVisible(3)
	entry.Wrapping = fyne.TextWrapBreak
	d := a.ask(parent, "Add peer", "Add", []*widget.FormItem{widget.NewFormItem("Invite", entry)}, func() (func(), error) {
		return a.addPeerText(be, strings.TrimSpace(entry.Text))
	})
	d.d.Resize(fyne.NewSize(560, 300))
	return d
}

// addPeerText adds the peer text names (off the UI goroutine) and returns
// what to show when it worked. A peer recorded from its invite but not
// reachable now counts as added: the node keeps dialing it.
func (a *App) addPeerText(be Backend, text string) (func(), error) {
	ctx, cancel := context.WithTimeout(a.ctx, connectTimeout)
	defer cancel()
	k, err := addPeer(ctx, be, text)
	defer a.refresh(dirtyPeers)
	if err != nil && k.IsZero() {
		return nil, err
	}
	notice := "Added peer " + render.ShortKey(k.String()) + "."
	if err != nil {
		notice = "Added peer " + render.ShortKey(k.String()) + ", but it cannot be reached now (" + plainError(err) + ") AWP keeps trying."
	}
	return func() { a.main.setNotice(notice) }, nil
}

// addPeer adds a peer from an invite ("awp:…", through the node's
// AddInvite, which parses and checks it) or else an address (Connect: the
// node says what is wrong with one it cannot dial).
func addPeer(ctx context.Context, be Backend, text string) (key.PublicKey, error) {
	if text == "" {
		return key.PublicKey{}, errors.New("paste an invite (awp:…) or an address (tcp://host:port)")
	}
	if strings.HasPrefix(text, peer.InvitePrefix) {
		return be.AddInvite(ctx, text)
	}
	return be.Connect(ctx, text)
}

// askDialog is a form dialog that stays open while its action runs and
// when the action fails: the failure shows inside it as a sentence, and
// what was typed stays, to be corrected and tried again.
type askDialog struct {
	d          *dialog.CustomDialog
	errText    *widget.Label
	ok, cancel *widget.Button
	items      []*widget.FormItem
	done       bool // the action worked and the dialog closed
}

// ask shows a form dialog in parent. act runs off the UI goroutine when
// the person confirms; it returns what to do on the UI goroutine once it
// worked (nil: nothing), or the error to show.
func (a *App) ask(parent fyne.Window, title, confirm string, items []*widget.FormItem, act func() (func(), error)) *askDialog {
	ad := &askDialog{errText: widget.NewLabel(""), items: items}
	ad.errText.Wrapping = fyne.TextWrapWord
	ad.errText.Importance = widget.DangerImportance
	ad.errText.Hide()
	ad.cancel = widget.NewButton("Cancel", func() { ad.d.Hide() })
	ad.ok = widget.NewButton(confirm, func() {
		ad.ok.Disable()
		ad.errText.Hide()
		a.background(func() {
			after, err := act()
			fyne.Do(func() {
				ad.ok.Enable()
				if err != nil {
					ad.errText.SetText(plainError(err))
					ad.errText.Show()
					return
				}
				ad.done = true
				ad.d.Hide()
				if after != nil {
					after()
				}
			})
		})
	})
	ad.ok.Importance = widget.HighImportance
	body := container.NewVBox(widget.NewForm(items...), ad.errText,
		container.NewHBox(layout.NewSpacer(), ad.cancel, ad.ok))
	ad.d = dialog.NewCustomWithoutButtons(title, body, parent)
	ad.d.Show()
	return ad
}

// plainErrors turn what the node, the transport and the local API say
// into sentences a person can act on. The first whose match is in the
// error's text wins (over the local API only the text arrives).
var plainErrors = []struct{ match, say string }{
	{"bad invite", "This invite is damaged or incomplete. Copy it again, whole, from the peer that made it (it starts with awp:)."},
	{"malformed address", "This is not an address AWP can dial. Use tcp://host:port, unix:///path/to/socket, or paste an invite (awp:…)."},
	{"connection refused", "Nothing answers at that address. Is the peer running, and is the port right?"},
	{"no such host", "That host name is not known. Check the address."},
	{"network is unreachable", "That network cannot be reached from here."},
	{"no route to host", "That host cannot be reached from here."},
	{"i/o timeout", "The peer did not answer in time. Is the address right, and is a firewall in the way?"},
	{"deadline exceeded", "The peer did not answer in time. Is the address right, and is a firewall in the way?"},
	{"is private: mirroring stays off", "This thread is private: it cannot be mirrored."},
	{"no such thread", "This thread is no longer there."},
	{"malformed ed25519 key", "That is not a key. A key looks like ed25519: and 43 more characters."},
	{"this node's own key", "That is this peer's own key (its own invite). Add the invite of another peer."},
	{"leads back to this node itself", "That address is this peer's own. Use the address of the peer you want to reach."},
	{"bad key", "That is not a key. A key looks like ed25519: and 43 more characters."},
	{"no such pending approval", "This request is no longer waiting: it timed out, or was decided elsewhere."},
	{"no peer is running", "The AWP peer is not running."},
}

// plainError says what went wrong in a sentence: a known failure in
// words (plainErrors), anything else as the node said it, without the
// package prefixes, starting with a capital and ending with a full stop.
func plainError(err error) string {
	if err == nil {
		return ""
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "The peer did not answer in time. Is the address right, and is a firewall in the way?"
	}
	msg := err.Error()
	low := strings.ToLower(msg)
	for _, p := range plainErrors {
		if strings.Contains(low, p.match) {
			return p.say
		}
	}
	for _, pre := range []string{"peer: ", "localapi: ", "transport: ", "key: ", "wire: "} {
		for strings.HasPrefix(msg, pre) {
			msg = strings.TrimPrefix(msg, pre)
		}
	}
	msg = render.Clip(msg, render.MaxField)
	if msg == "" {
		return "Something went wrong."
	}
	msg = strings.ToUpper(msg[:1]) + msg[1:]
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

// showPlainError shows err as a sentence in a dialog over parent.
func showPlainError(title string, err error, parent fyne.Window) {
	l := widget.NewLabel(plainError(err))
	l.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustom(title, "OK", l, parent)
	d.Resize(fyne.NewSize(440, 180))
	d.Show()
}

// messagePeer asks for a subject and a first message to peer k and
// starts the thread; the dialog keeps what was typed when sending fails.
func (a *App) messagePeer(k, name string, parent fyne.Window) *askDialog {
	be := a.runningBackend()
	if be == nil {
		return nil
	}
	subject := widget.NewEntry()
	subject.SetPlaceHolder("what it is about")
	text := widget.NewMultiLineEntry()
	text.SetMinRowsVisible(4)
	text.Wrapping = fyne.TextWrapWord
	to := widget.NewLabel(name + " (" + render.ShortKey(k) + ")")
	d := a.ask(parent, "Message "+name, "Send", []*widget.FormItem{
		widget.NewFormItem("To", to),
		widget.NewFormItem("Subject", subject),
		widget.NewFormItem("Message", text),
	}, func() (func(), error) { return a.startThread(k, subject.Text, text.Text) })
	d.d.Resize(fyne.NewSize(560, 360))
	return d
}

// startThread sends the first msg of a new thread to k (a key's text, as
// the dialogs hold it; off the UI goroutine) and returns what opens the
// thread once it went.
func (a *App) startThread(k, subject, text string) (func(), error) {
	to, err := key.ParsePublic(k)
	if err != nil {
		return nil, err
	}
	req := peer.SendRequest{To: to, Subject: subject}
	if strings.TrimSpace(text) != "" {
		req.Parts = []json.RawMessage{TextPart(text)}
	}
	ctx, cancel := context.WithTimeout(a.ctx, sendTimeout)
	defer cancel()
	be := a.backend()
	if be == nil {
		return nil, errors.New("the AWP peer is not running")
	}
	res, err := be.Send(ctx, req)
	if err != nil {
		return nil, err
	}
	return func() { a.openThread(peer.ThreadInfo{Th: res.Th, Peer: to, Subject: req.Subject}) }, nil
}

// Why a thread window's Mirror switch cannot be used, next to it. The
// reason is a label of its own in the foreground colour: a disabled
// check box draws its text in the disabled colour, about 1.3:1.
const (
	mirrorWhyNoHosts = "no mirror hosts yet (Settings)"
	mirrorWhyPrivate = "not mirrored: private"
)

// toggles are a thread window's Mirror switch and Keep private button.
type toggles struct {
	box *fyne.Container // the why label, the switch and the button
	why *widget.Label
	top *fyne.Container // the window's top, laid out again when they change
}

// newToggles makes tw's Mirror switch and Keep private button.
func newToggles(tw *threadWindow) *toggles {
	tw.mirror = widget.NewCheck("Mirror to my hosts", tw.setMirror)
	tw.private = widget.NewButton("Keep private", tw.makePrivate)
	t := &toggles{why: widget.NewLabel("")}
	t.why.TextStyle.Italic = true
	t.why.Hide()
	t.box = container.NewHBox(t.why, tw.mirror, tw.private)
	return t
}

// showToggles sets a thread window's Mirror switch and Keep private button
// to what the node can do for the thread: Mirror only on my own thread,
// not private, and only when a mirror host exists; Keep private only on my
// own thread (a thread mirrored to me has no party of mine to ask), once.
// UI goroutine.
func (tw *threadWindow) showToggles(t peer.ThreadInfo) {
	why, usable := "", true
	switch {
	case !tw.key.from.IsZero():
		usable = false // a thread mirrored to me: the detail line says so
	case t.Private:
		why, usable = mirrorWhyPrivate, false
	case len(tw.a.mirrorHosts) == 0:
		why, usable = mirrorWhyNoHosts, false
	}
	tw.mirror.OnChanged = nil
	tw.mirror.SetChecked(usable && t.Mirror)
	tw.mirror.OnChanged = tw.setMirror
	if usable {
		tw.mirror.Enable()
	} else {
		tw.mirror.Disable()
	}
	tg := tw.toggles
	tg.why.SetText(why)
	if why == "" {
		tg.why.Hide()
	} else {
		tg.why.Show()
	}
	switch {
	case t.Private:
		tw.private.SetText("Private")
		tw.private.Disable()
	case !tw.key.from.IsZero():
		tw.private.SetText("Keep private")
		tw.private.Disable()
	default:
		tw.private.SetText("Keep private")
		tw.private.Enable()
	}
	if tg.top != nil {
		tg.top.Refresh() // the switch's row changed width
	}
}

// setMirror turns mirroring of this thread on or off. When the node
// refuses, the switch goes back to what it was and the reason shows in a
// sentence.
func (tw *threadWindow) setMirror(on bool) {
	m := tw.a.backend()
	if m == nil {
		return
	}
	th := tw.key.th
	tw.a.background(func() {
		err := m.SetMirror(th, on)
		if err == nil {
			return
		}
		fyne.Do(func() {
			tw.mirror.OnChanged = nil
			tw.mirror.SetChecked(!on)
			tw.mirror.OnChanged = tw.setMirror
			what := "Could not stop mirroring this thread"
			if on {
				what = "Could not mirror this thread"
			}
			showPlainError(what, err, tw.w)
		})
	})
}

// privateText says in words what Keep private does to thread t, whose
// other party is named other.
func privateText(subject, other string) string {
	if subject == "" {
		subject = "this thread"
	} else {
		subject = "“" + subject + "”"
	}
	return "AWP will tell " + other + " that " + subject + " is private: " + other +
		" stops mirroring it to their hosts and withdraws what they mirrored of it. " +
		"Your own hosts stop getting it too, and it stays private from now on: this cannot be undone."
}

// makePrivate asks the other party to stop mirroring this thread, after a
// confirmation that says what it does.
func (tw *threadWindow) makePrivate() {
	m := tw.a.backend()
	if m == nil {
		return
	}
	k := tw.key
	other := tw.a.main.name(tw.info.Peer.String())
	if tw.info.PeerName != "" {
		other = render.Clip(tw.info.PeerName, render.MaxName)
	}
	l := widget.NewLabel(privateText(render.Clip(tw.info.Subject, render.MaxTitle), other))
	l.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomConfirm("Keep this thread private?", "Keep private", "Cancel", l, func(yes bool) {
		if !yes {
			return
		}
		tw.private.Disable()
		tw.a.background(func() {
			_, err := m.SetPrivate(k.th, k.from)
			fyne.Do(func() {
				if err != nil {
					tw.showToggles(tw.info)
					showPlainError("Could not keep this thread private", err, tw.w)
				}
			})
		})
	}, tw.w)
	d.Resize(fyne.NewSize(480, 220))
	d.Show()
}
