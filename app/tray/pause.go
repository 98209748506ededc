package tray

import (
	"time"

	"github.com/awp-tray/awp-tray/app/menu"
	"github.com/awp-tray/awp-tray/app/uilink"
)

// SetPause pauses notifications (a zero Pause resumes them), keeps it in
// the preferences, tells the UI and redraws.
func (t *Tray) SetPause(p menu.Pause) {
	t.mu.Lock()
	t.state.Pause = p
	t.mu.Unlock()
	t.armPause(p)
	if err := savePrefs(t.opt.PrefsPath, prefs{Pause: p}); err != nil {
		t.log.Warn("keep the notifications pause", "err", err)
	}
	t.log.Info("notifications", "paused", p.Active(t.opt.Now()), "until", p.Until, "forever", p.Forever)
	t.opt.UI.Update(uilink.Msg{Op: uilink.OpPause, Pause: &p})
	t.render()
}

// armPause redraws when a timed pause ends.
func (t *Tray) armPause(p menu.Pause) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pauseT != nil {
		t.pauseT.Stop()
		t.pauseT = nil
	}
	if p.Forever || p.Until.IsZero() {
		return
	}
	if d := p.Until.Sub(t.opt.Now()); d > 0 {
		t.pauseT = time.AfterFunc(d, func() {
			t.render()
			pp := t.State().Pause
			t.opt.UI.Update(uilink.Msg{Op: uilink.OpPause, Pause: &pp})
		})
	}
}
