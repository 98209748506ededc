package app

import (
	"context"
	"errors"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/awp-tray/awp-tray/app/render"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

// copyInvite puts my invite on the clipboard. The invite is built off the
// UI goroutine (the node may read its store).
func (a *App) copyInvite() {
	be := a.backend()
	if be == nil {
		a.notRunning()
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
// it; the outcome shows in the main window's notice and in parent.
func (a *App) addPeerIn(parent fyne.Window) {
	be := a.backend()
	if be == nil {
		a.notRunning()
		return
	}
	entry := widget.NewMultiLineEntry()
	entry.SetPlaceHolder("awp:… invite, or tcp://host:port")
	entry.SetMinRowsVisible(3)
	entry.Wrapping = fyne.TextWrapBreak
	d := dialog.NewForm("Add peer", "Add", "Cancel", []*widget.FormItem{widget.NewFormItem("Invite", entry)}, func(ok bool) {
		if !ok {
			return
		}
		a.addPeerText(be, strings.TrimSpace(entry.Text), parent)
	}, parent)
	d.Resize(fyne.NewSize(560, 260))
	d.Show()
}

// addPeerText adds the peer text names off the UI goroutine and reports
// the outcome: an error dialog in parent, or a notice in the main window.
func (a *App) addPeerText(be Backend, text string, parent fyne.Window) {
	a.background(func() {
		ctx, cancel := context.WithTimeout(a.ctx, connectTimeout)
		defer cancel()
		k, err := addPeer(ctx, be, text)
		fyne.Do(func() {
			if err != nil {
				dialog.ShowError(err, parent)
				return
			}
			a.main.setNotice("Added peer " + render.ShortKey(k.String()) + ".")
		})
		a.refresh(dirtyPeers)
	})
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
