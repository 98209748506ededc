package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/awp-tray/awp-tray/app/render"
	"github.com/awp-tray/awp-tray/peer/key"
)

// invite returns this peer's invite text: the node's own when it makes
// them, else one built from its key, name and addresses.
func invite(be Backend) (string, error) {
	if inv, ok := be.(Inviter); ok {
		return inv.Invite(), nil
	}
	return MakeInvite(Card{Key: be.Key().String(), Name: be.Name(), Listen: be.ListenAddrs()}), nil
}

// copyInvite puts my invite on the clipboard. The invite is built off the
// UI goroutine (the node may read its store).
func (a *App) copyInvite() {
	be := a.backend()
	if be == nil {
		a.notRunning()
		return
	}
	a.background(func() {
		s, err := invite(be)
		fyne.Do(func() {
			if err != nil {
				a.main.showError(err)
				return
			}
			a.fa.Clipboard().SetContent(s)
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

// addPeer adds a peer from an invite or an address: through the node's
// AddInvite when it has one, else by dialing the invite's addresses in
// turn.
func addPeer(ctx context.Context, be Backend, text string) (key.PublicKey, error) {
	if isAddress(text) {
		return be.Connect(ctx, text)
	}
	if inv, ok := be.(Inviter); ok {
		return inv.AddInvite(ctx, text)
	}
	card, err := ParseInvite(text)
	if err != nil {
		return key.PublicKey{}, err
	}
	if len(card.Listen) == 0 {
		return key.PublicKey{}, fmt.Errorf("the invite of %s lists no address to dial", render.Clip(card.Name, render.MaxName))
	}
	var errs []error
	for _, addr := range card.Listen {
		k, err := be.Connect(ctx, addr)
		if err == nil {
			if k.String() != card.Key {
				return k, fmt.Errorf("%s answered with key %s, not the invite's %s", addr, render.ShortKey(k.String()), render.ShortKey(card.Key))
			}
			return k, nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", addr, err))
	}
	return key.PublicKey{}, errors.Join(errs...)
}
