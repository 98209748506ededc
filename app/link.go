package app

import (
	"context"
	"errors"
	"io"

	"fyne.io/fyne/v2"

	"github.com/awp-tray/awp-tray/app/menu"
	"github.com/awp-tray/awp-tray/app/uilink"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/localapi"
)

// LinkTray is the Tray over the line to the tray process.
type LinkTray struct{ C *uilink.Conn }

// Focus implements Tray.
func (l LinkTray) Focus(th string, from key.PublicKey) {
	_ = l.C.Send(uilink.Msg{Op: uilink.OpFocus, Th: th, From: from})
}

// SetPause implements Tray.
func (l LinkTray) SetPause(p menu.Pause) { _ = l.C.Send(uilink.Msg{Op: uilink.OpPause, Pause: &p}) }

// FileKey implements Tray.
func (l LinkTray) FileKey(ok bool) { _ = l.C.Send(uilink.Msg{Op: uilink.OpFileKey, OK: ok}) }

// Quit implements Tray.
func (l LinkTray) Quit() { _ = l.C.Send(uilink.Msg{Op: uilink.OpQuit}) }

// ServeLink carries out what the tray process says until the line ends,
// then quits the UI (the tray is gone). Each command is acked once it was
// carried out on the UI goroutine; one that comes after a quit was asked
// for is not, so the tray gives it to the next UI process. When the node
// is ready, ServeLink connects to it before reading on, so the commands
// after it find the node attached.
func (a *App) ServeLink(c *uilink.Conn) {
	for {
		m, err := c.Recv()
		if err != nil {
			if !errors.Is(err, io.EOF) && !a.quitRequested() {
				a.log.Warn("the line to the tray process", "err", err)
			}
			a.onUI(a.Quit)
			return
		}
		if m.Op == uilink.OpBoot && m.State == uilink.BootReady && a.backend() == nil {
			a.dial()
		}
		a.onUI(func() {
			a.Command(m)
			if m.IsCommand() {
				_ = c.Send(uilink.Msg{Op: uilink.OpAck, Seq: m.Seq})
				a.log.Debug("command carried out", "op", m.Op, "seq", m.Seq)
			}
		})
	}
}

// onUI runs fn on the UI goroutine and waits for it, unless a quit was
// asked for: Fyne runs a function handed over after its loop ended on the
// caller's goroutine, or panics when the hand-over meets the loop's end.
func (a *App) onUI(fn func()) {
	if a.quitRequested() {
		return
	}
	defer func() { _ = recover() }()
	fyne.DoAndWait(func() {
		if !a.quitRequested() {
			fn()
		}
	})
}

// quitRequested reports whether a quit was asked for.
func (a *App) quitRequested() bool {
	select {
	case <-a.quitting:
		return true
	default:
		return false
	}
}

// dial connects to the node and attaches it; a failure is shown.
func (a *App) dial() {
	ctx, cancel := context.WithTimeout(a.ctx, dialTimeout)
	defer cancel()
	dial := a.opt.Dial
	if dial == nil {
		dial = func(ctx context.Context) (Backend, error) {
			r, err := localapi.DialRemote(ctx, localapi.SocketPath(a.opt.DataDir), a.log.With("component", "remote"))
			if err != nil {
				return nil, err
			}
			a.mu.Lock()
			a.closer = r
			a.mu.Unlock()
			return r, nil
		}
	}
	be, err := dial(ctx)
	if err != nil {
		a.log.Error("cannot reach the node", "err", err)
		fyne.Do(func() { a.main.showError(errors.New("cannot reach the AWP peer: " + err.Error())) })
		return
	}
	a.log.Info("attached to the node", "key", be.Key().String())
	a.attach(be)
}

// Command carries out one message of the tray process. UI goroutine.
func (a *App) Command(m uilink.Msg) {
	switch m.Op {
	case uilink.OpPause:
		if m.Pause != nil {
			a.setPause(*m.Pause)
		}
	case uilink.OpBoot:
		a.setBoot(m)
	case uilink.OpShow:
		a.ShowMain()
	case uilink.OpThread:
		a.openThreadKey(m.Th, m.From)
	case uilink.OpApprovals:
		a.openApprovals(m.ID)
	case uilink.OpPresence:
		a.showPresence()
	case uilink.OpSettings:
		a.showSettings()
	case uilink.OpAddPeer:
		a.addPeer()
	case uilink.OpInvite:
		a.copyInvite()
	case uilink.OpNotify:
		a.fa.SendNotification(fyne.NewNotification(m.Title, m.Text))
	case uilink.OpQuit:
		a.Quit()
	default:
		a.log.Debug("unknown message from the tray", "op", m.Op)
	}
}

// setBoot shows the node's boot state. UI goroutine.
func (a *App) setBoot(m uilink.Msg) {
	switch m.State {
	case uilink.BootStarting:
		a.bootErr = ""
	case uilink.BootReady:
		a.bootErr = ""
		a.opt.FileKey = m.OK
		if a.settings != nil {
			a.settings.reload()
		}
	case uilink.BootFailed:
		a.bootErr = m.Text
		a.ShowMain()
		a.main.showError(errors.New(m.Text))
	case uilink.BootKeyring:
		a.bootErr = "the OS keyring is unavailable"
		a.ShowMain()
		if !a.askingKey {
			a.askingKey = true
			a.main.askFileKey(errors.New(m.Text), func(ok bool) {
				a.askingKey = false
				if a.opt.Tray != nil {
					a.opt.Tray.FileKey(ok)
				}
				if !ok {
					a.Quit()
				}
			})
		}
	}
	a.updateStatus()
}

// setPause shows the tray's notifications pause. UI goroutine.
func (a *App) setPause(p menu.Pause) {
	a.pause = p
	if a.settings != nil {
		a.settings.showPause()
	}
	a.updateStatus()
}
