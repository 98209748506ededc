package tray

import (
	"github.com/awp-tray/awp-tray/app/uilink"
	"github.com/awp-tray/awp-tray/peer/key"
)

// The hooks of the notifications manager, and what the UI process says.

// Paused reports whether message notifications are paused now. Safe from
// any goroutine: notify.Manager.Paused.
func (t *Tray) Paused() bool { return t.State().Pause.Active(t.opt.Now()) }

// Focused names the thread whose window the UI has in front. Safe from
// any goroutine: notify.Manager.Focused.
func (t *Tray) Focused() (th string, from key.PublicKey, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.focus == nil {
		return "", key.PublicKey{}, false
	}
	return t.focus.Th, t.focus.From, true
}

// OpenThread opens a thread's window (a click on its notification).
func (t *Tray) OpenThread(th string, from key.PublicKey) {
	t.opt.UI.Send(uilink.Msg{Op: uilink.OpThread, Th: th, From: from})
}

// ShowThreads opens the main window (a click on the summary notification,
// a second launch).
func (t *Tray) ShowThreads() { t.opt.UI.Send(uilink.Msg{Op: uilink.OpShow}) }

// ShowApprovals opens the Approvals window (a click on a request's
// notification).
func (t *Tray) ShowApprovals() { t.opt.UI.Send(uilink.Msg{Op: uilink.OpApprovals}) }

// SetNotifier connects the notifications manager.
func (t *Tray) SetNotifier(n Notifier) {
	t.mu.Lock()
	t.notifier = n
	t.mu.Unlock()
}

func (t *Tray) getNotifier() Notifier {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.notifier
}

// UIState is what a new UI process needs after its Init: the pause and the
// boot state (uilink.Launcher.State).
func (t *Tray) UIState() []uilink.Msg {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.state.Pause
	return []uilink.Msg{{Op: uilink.OpPause, Pause: &p}, t.boot}
}

// HandleUI carries out what the UI process says.
func (t *Tray) HandleUI(m uilink.Msg) {
	switch m.Op {
	case uilink.OpFocus:
		t.mu.Lock()
		if m.Th == "" {
			t.focus = nil
		} else {
			f := m
			t.focus = &f
		}
		t.mu.Unlock()
		if m.Th != "" {
			if n := t.getNotifier(); n != nil {
				n.Read(m.Th, m.From) // its notification is seen
			}
		}
	case uilink.OpPause:
		if m.Pause != nil {
			t.SetPause(*m.Pause)
		}
	case uilink.OpFileKey:
		t.mu.Lock()
		asked := t.boot.State == uilink.BootKeyring
		t.mu.Unlock()
		switch {
		case !asked:
		case m.OK:
			t.startBoot(true)
		default:
			t.Quit()
		}
	case uilink.OpQuit:
		t.Quit()
	default:
		t.log.Debug("unknown message from the UI", "op", m.Op)
	}
}

// UIExited forgets what the UI process had in front.
func (t *Tray) UIExited() {
	t.mu.Lock()
	t.focus = nil
	t.mu.Unlock()
}
