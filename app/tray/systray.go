package tray

import (
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"fyne.io/systray"

	"github.com/awp-tray/awp-tray/app/menu"
)

// Systray is the Host on fyne.io/systray: a StatusNotifierItem with a
// com.canonical.dbusmenu menu on Linux. The process has one; RunSystray
// runs it.
type Systray struct {
	// Log receives what goes wrong; nil is silent.
	Log *slog.Logger

	mu sync.Mutex // serializes menu rebuilds: systray's reset is not safe against a concurrent one
}

var _ Host = (*Systray)(nil)

// SetIcon implements Host: the icon goes to systray in the form it reads
// right on this platform (systrayIcon).
func (s *Systray) SetIcon(png []byte) {
	b, err := systrayIcon(png)
	if err != nil {
		if s.Log != nil {
			s.Log.Warn("tray icon", "err", err)
		}
		b = png
	}
	systray.SetIcon(b)
}

// SetTooltip implements Host: systray sets the tooltip, and the host is
// told that it changed (announceTooltip), which systray does not do.
// Only while the tray runs: before, the host reads the tooltip when the
// item registers; after QuitSystray, systray has closed its bus
// connection, and announcing would open another.
func (s *Systray) SetTooltip(text string) {
	systray.SetTooltip(text)
	if !running.Load() {
		return
	}
	if err := announceTooltip(); err != nil && s.Log != nil {
		s.Log.Warn("the tray host was not told of the new tooltip", "err", err)
	}
}

// running is true from RunSystray to QuitSystray.
var running atomic.Bool

// SetMenu implements Host: the old items are removed (which ends their
// click goroutines: systray closes their channels) and the new added.
func (s *Systray) SetMenu(items []menu.Item, click func(menu.Action)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	systray.ResetMenu()
	addItems(items, nil, click)
}

func addItems(items []menu.Item, parent *systray.MenuItem, click func(menu.Action)) {
	for _, it := range items {
		if it.Separator {
			if parent != nil {
				parent.AddSeparator()
			} else {
				systray.AddSeparator()
			}
			continue
		}
		label := menuLabel(it.Label)
		var mi *systray.MenuItem
		if parent != nil {
			mi = parent.AddSubMenuItem(label, "")
		} else {
			mi = systray.AddMenuItem(label, "")
		}
		if it.Disabled {
			mi.Disable()
		}
		if len(it.Children) > 0 {
			addItems(it.Children, mi, click)
			continue
		}
		a := it.Action
		go func() {
			for range mi.ClickedCh {
				click(a)
			}
		}()
	}
}

// RunSystray shows the tray icon titled title and runs the system tray's
// loop on the calling goroutine (the main one: macOS and Windows want
// their loop there) until QuitSystray. onReady is called once it is up.
// Only call it once a session bus answered (trayhost.Detect):
// fyne.io/systray panics at quit when it never connected to one; such a
// panic is recovered here and returned.
func RunSystray(title string, onReady func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("system tray: %v", r)
		}
	}()
	systray.SetTitle(title)
	running.Store(true)
	defer running.Store(false)
	systray.Run(onReady, nil)
	return nil
}

// QuitSystray ends RunSystray's loop.
func QuitSystray() {
	running.Store(false)
	systray.Quit()
}
