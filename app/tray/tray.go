// Package tray is the tray process of awp-tray: it boots the node, shows
// the tray icon and its menu (app/menu), feeds desktop notifications the
// node's events, and starts the UI process (app/uilink) when the person
// wants a window. It imports no Fyne: with nothing happening it waits on
// sockets and costs no CPU.
//
// # Basics
//
// New builds a Tray from Options (the system tray Host, the UI launcher,
// the boot function); Start boots the node off the caller's goroutine;
// clicks come in through Do, what the UI process says through HandleUI.
// The notifications manager (notify) asks Paused and Focused and opens
// windows through OpenThread, ShowThreads and ShowApprovals.
//
// # Caveats
//
// The menu is rebuilt whole when what it shows changes (fyne.io/systray
// hands out new item ids then), never on an event that changes nothing it
// shows.
package tray

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/awp-tray/awp-tray/app/appearance"
	"github.com/awp-tray/awp-tray/app/icon"
	"github.com/awp-tray/awp-tray/app/menu"
	"github.com/awp-tray/awp-tray/app/uilink"
	"github.com/awp-tray/awp-tray/internal/burst"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/localapi"
)

// Host is the system tray: Systray (fyne.io/systray), or a recorder in
// tests. Its methods are called from one goroutine at a time.
type Host interface {
	// SetIcon shows a PNG icon.
	SetIcon(png []byte)
	// SetTooltip sets the icon's tooltip.
	SetTooltip(text string)
	// SetMenu replaces the menu; click is called with an item's Action.
	SetMenu(items []menu.Item, click func(menu.Action))
}

// UI is the UI process: a *uilink.Launcher.
type UI interface {
	// Send delivers a command, starting a UI process when none runs.
	Send(m uilink.Msg)
	// Update tells a running UI process of a state change.
	Update(m uilink.Msg)
}

// Notifier is the desktop notifications manager (notify.Manager): it gets
// every event of the node.
type Notifier interface {
	HandleEvent(ev peer.Event)
	Read(th string, from key.PublicKey)
}

// BootFunc loads the identity and starts the node and its local API.
// fileKey asks for the identity in DATA/identity.key instead of the OS
// keyring. An error wrapping ErrKeyring means the keyring failed, and the
// person is asked whether to keep the key in a file.
type BootFunc func(ctx context.Context, fileKey bool) (localapi.Backend, error)

// ErrKeyring is wrapped by BootFunc errors that the OS keyring caused.
var ErrKeyring = errors.New("the OS keyring is unavailable")

// Bounds and timings.
const (
	// DefaultBootTimeout bounds one boot: the keyring may wait for an
	// unlock prompt.
	DefaultBootTimeout = 30 * time.Second
	// eventBuf is the node-side buffer of the tray's subscription: a
	// burst larger than this loses events, which only delays a count (the
	// next event reloads it).
	eventBuf = 1024
)

// Options configure a Tray. Zero values are usable except Boot, UI and
// Quit.
type Options struct {
	// Host is the system tray; nil when there is none (then the UI
	// process's main window is the app).
	Host Host
	// UI starts and talks to the UI process.
	UI UI
	// Boot starts the node.
	Boot BootFunc
	// BootTimeout bounds one Boot; 0 means DefaultBootTimeout.
	BootTimeout time.Duration
	// FileKey says the identity is kept in a file from the start
	// (--keyring file).
	FileKey bool
	// PromptWindow reports whether a new request should bring the
	// Approvals window up: true when notifications cannot carry Allow and
	// Deny (no notification server, or one without actions). Nil: never.
	PromptWindow func() bool
	// PrefsPath is the file that keeps the notifications pause ("": not
	// kept).
	PrefsPath string
	// Quit ends the tray process; called once, from any goroutine.
	Quit func()
	// Logger receives the tray's logs; nil is silent.
	Logger *slog.Logger
	// FollowDesktop draws the icon for the desktop's panel, light or
	// dark (appearance.Watch: the settings portal on the session bus,
	// the task bar's theme on Windows, the menu bar's on macOS), read at
	// Start and followed until Close. False: the icon is drawn for a dark
	// panel, or as IconMode says.
	FollowDesktop bool
	// IconMode overrides the desktop: appearance.ModeLight or ModeDark
	// draw for that panel whatever the desktop says; "" is ModeAuto.
	IconMode appearance.Mode
	// Desktop is $XDG_CURRENT_DESKTOP, which Mode.Panel needs (GNOME's
	// top bar is dark in both styles).
	Desktop string
	// Now and Loc are the clock and time zone of pauses (nil: time.Now,
	// time.Local).
	Now func() time.Time
	Loc *time.Location
}

// Tray is the tray process's state. Build it with New.
type Tray struct {
	opt   Options
	log   *slog.Logger
	ctx   context.Context // ends at Close
	stop  context.CancelFunc
	jobs  sync.WaitGroup
	icons icon.Cache

	quitOnce sync.Once

	mu sync.Mutex
	// mu guards:
	state    menu.State
	be       localapi.Backend
	unsub    func()
	boot     uilink.Msg // the boot state, as the UI process gets it
	notifier Notifier
	focus    *uilink.Msg // the thread window in front, if any
	pauseT   *time.Timer // ends the pause
	closed   bool

	renderMu sync.Mutex
	// renderMu guards (and serializes calls to the Host):
	shown   string // fingerprint of the menu shown
	tooltip string
}

// New builds a Tray and reads the kept pause. Call Start to boot.
func New(o Options) *Tray {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.BootTimeout <= 0 {
		o.BootTimeout = DefaultBootTimeout
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.IconMode == "" {
		o.IconMode = appearance.ModeAuto
	}
	ctx, stop := context.WithCancel(context.Background())
	t := &Tray{opt: o, log: o.Logger, ctx: ctx, stop: stop,
		boot: uilink.Msg{Op: uilink.OpBoot, State: uilink.BootStarting}}
	p, err := loadPrefs(o.PrefsPath)
	if err != nil {
		t.log.Warn("tray preferences", "err", err)
	}
	t.state.Pause = p.Pause
	t.armPause(p.Pause)
	t.icons.SetPanel(o.IconMode.Panel(appearance.NoPreference, o.Desktop))
	return t
}

// Start shows the tray (starting…), follows the desktop's light or dark
// setting (Options.FollowDesktop) and boots the node in the background.
func (t *Tray) Start() {
	t.render()
	if t.opt.FollowDesktop && t.opt.IconMode == appearance.ModeAuto {
		t.followDesktop()
	}
	t.startBoot(t.opt.FileKey)
}

// followDesktop reads the desktop's color scheme and redraws the icon for
// it, then whenever it changes, until Close. The first read runs off the
// caller's goroutine (a portal being started by D-Bus activation may
// take seconds): the icon shows at once, drawn for a dark panel, and is
// redrawn if the desktop is light. fyne.io/systray registers the item
// with the tray host only when its loop runs, so with a portal that
// answers at once the host sees the right variant first.
func (t *Tray) followDesktop() {
	t.background(func() {
		// A change may be reported before Watch returns the first read:
		// the first read then is older, and is not applied.
		var mu sync.Mutex
		changed := false
		s, err := appearance.Watch(t.ctx, func(s appearance.Scheme) {
			mu.Lock()
			defer mu.Unlock()
			changed = true
			t.setScheme(s)
		})
		if err != nil {
			t.log.Info("desktop color scheme unknown: the icon is drawn for a dark panel until the desktop says otherwise", "err", err)
		}
		mu.Lock()
		defer mu.Unlock()
		if !changed {
			t.setScheme(s)
		}
	})
}

// setScheme draws the icon for the panel the desktop's scheme s means.
func (t *Tray) setScheme(s appearance.Scheme) {
	p := t.opt.IconMode.Panel(s, t.opt.Desktop)
	if t.icons.SetPanel(p) {
		t.log.Info("tray icon follows the desktop", "scheme", s.String(), "panel", p.String())
		t.render()
	}
}

// startBoot runs Boot off the caller's goroutine.
func (t *Tray) startBoot(fileKey bool) {
	t.setBoot(uilink.Msg{Op: uilink.OpBoot, State: uilink.BootStarting}, "")
	t.background(func() {
		ctx, cancel := context.WithTimeout(t.ctx, t.opt.BootTimeout)
		defer cancel()
		be, err := t.opt.Boot(ctx, fileKey)
		switch {
		case err == nil:
			t.log.Info("node started", "key", be.Key().String(), "listen", be.ListenAddrs(), "file_key", fileKey)
			t.attach(be)
			t.setBoot(uilink.Msg{Op: uilink.OpBoot, State: uilink.BootReady, OK: fileKey}, "")
		case errors.Is(err, ErrKeyring) && !fileKey:
			t.log.Error("node did not start: the keyring failed; asking about a key file", "err", err)
			t.setBoot(uilink.Msg{Op: uilink.OpBoot, State: uilink.BootKeyring, Text: err.Error()}, ErrKeyring.Error())
			t.opt.UI.Send(uilink.Msg{Op: uilink.OpShow})
		default:
			t.log.Error("node did not start", "err", err, "file_key", fileKey)
			t.setBoot(uilink.Msg{Op: uilink.OpBoot, State: uilink.BootFailed, Text: err.Error()}, err.Error())
			t.opt.UI.Send(uilink.Msg{Op: uilink.OpShow})
		}
	})
}

// setBoot records the boot state, tells a running UI and redraws.
func (t *Tray) setBoot(m uilink.Msg, failed string) {
	t.mu.Lock()
	t.boot = m
	t.state.Err = failed
	t.mu.Unlock()
	t.opt.UI.Update(m)
	t.render()
}

// background runs fn on a goroutine Close waits for.
func (t *Tray) background(fn func()) {
	t.jobs.Add(1)
	go func() {
		defer t.jobs.Done()
		fn()
	}()
}

// attach subscribes to the node, loads what the menu shows and follows
// its events.
func (t *Tray) attach(be localapi.Backend) {
	events, cancel := be.Subscribe(eventBuf)
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		cancel()
		return
	}
	t.be, t.unsub = be, cancel
	t.state.Self = be.Key()
	t.mu.Unlock()
	t.reload(menu.PartAll)
	t.background(func() { t.eventLoop(events) })
}

// classify says which parts of the menu's state ev makes stale.
func classify(ev peer.Event) menu.Parts {
	switch ev.Type {
	case peer.EventLine, peer.EventThread:
		return menu.PartThreads
	case peer.EventPeerUp, peer.EventPeerDown:
		return menu.PartPeers | menu.PartThreads // thread items name peers
	case peer.EventApproval, peer.EventApprovalDone:
		return menu.PartPending
	}
	return 0
}

// eventLoop hands every event to the notifier and reloads, once per
// burst, what the events made stale.
func (t *Tray) eventLoop(ch <-chan peer.Event) {
	for {
		var mask menu.Parts
		var prompts []string
		take := func(ev peer.Event) {
			if n := t.getNotifier(); n != nil {
				n.HandleEvent(ev)
			}
			mask |= classify(ev)
			if ev.Type == peer.EventApproval && ev.Approval != nil {
				prompts = append(prompts, ev.Approval.ID)
			}
		}
		if !burst.Next(t.ctx, ch, take) {
			return
		}
		if mask != 0 {
			t.reload(mask)
		}
		if len(prompts) > 0 && t.opt.PromptWindow != nil && t.opt.PromptWindow() {
			// No notification can carry Allow and Deny: the window must.
			t.opt.UI.Send(uilink.Msg{Op: uilink.OpApprovals, ID: prompts[len(prompts)-1]})
		}
	}
}

// reload reads the parts named from the node and redraws.
func (t *Tray) reload(parts menu.Parts) {
	t.mu.Lock()
	be := t.be
	t.mu.Unlock()
	if be == nil {
		return
	}
	r := menu.Load(be, parts, t.log)
	t.mu.Lock()
	r.Apply(&t.state)
	t.mu.Unlock()
	t.render()
}

// State returns what the menu shows now (tests, logs).
func (t *Tray) State() menu.State {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.state
	return s
}

// render brings the tray's menu, icon and tooltip up to date, touching the
// Host only for what changed.
func (t *Tray) render() {
	if t.opt.Host == nil {
		return
	}
	// The state is read under renderMu, so the last render shows the
	// latest state whichever goroutine rendered first.
	t.renderMu.Lock()
	defer t.renderMu.Unlock()
	now := t.opt.Now()
	s := t.State()
	items := menu.Build(s, now, t.opt.Loc)
	tip := menu.Tooltip(s, now, t.opt.Loc)
	if fp := fingerprint(items); fp != t.shown {
		t.shown = fp
		t.opt.Host.SetMenu(items, t.Do)
	}
	if png, changed := t.icons.PNG(s.Icon()); changed {
		t.opt.Host.SetIcon(png)
	}
	if tip != t.tooltip {
		t.tooltip = tip
		t.opt.Host.SetTooltip(tip)
	}
}

// fingerprint is what a menu shows and does, to compare two.
func fingerprint(items []menu.Item) string {
	var b strings.Builder
	var walk func([]menu.Item, int)
	walk = func(items []menu.Item, depth int) {
		for _, it := range items {
			fmt.Fprintf(&b, "%d|%s|%v|%v|%+v\n", depth, it.Label, it.Disabled, it.Separator, it.Action)
			walk(it.Children, depth+1)
		}
	}
	walk(items, 0)
	return b.String()
}

// windowOps are the UI process's ops of the menu items that only show a
// window.
var windowOps = map[menu.Kind]string{
	menu.ShowThreads:   uilink.OpShow,
	menu.ShowPresence:  uilink.OpPresence,
	menu.ShowApprovals: uilink.OpApprovals,
	menu.CopyInvite:    uilink.OpInvite,
	menu.AddPeer:       uilink.OpAddPeer,
	menu.ShowSettings:  uilink.OpSettings,
}

// Do carries out a menu click.
func (t *Tray) Do(a menu.Action) {
	if op, ok := windowOps[a.Kind]; ok {
		t.opt.UI.Send(uilink.Msg{Op: op})
		return
	}
	switch a.Kind {
	case menu.OpenThread:
		t.opt.UI.Send(uilink.Msg{Op: uilink.OpThread, Th: a.Th, From: a.From})
	case menu.OpenApproval:
		t.opt.UI.Send(uilink.Msg{Op: uilink.OpApprovals, ID: a.ID})
	case menu.PauseHour, menu.PauseTomorrow, menu.PauseForever, menu.Resume:
		t.SetPause(menu.PauseFor(a.Kind, t.opt.Now(), t.opt.Loc))
	case menu.Quit:
		t.Quit()
	}
}

// Quit ends the tray process (Options.Quit), once.
func (t *Tray) Quit() {
	t.quitOnce.Do(func() {
		t.log.Info("quitting")
		if t.opt.Quit != nil {
			t.opt.Quit()
		}
	})
}

// Close stops following the node and waits for background work. It does
// not close the node (main owns it). Safe to call twice.
func (t *Tray) Close() {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return
	}
	t.closed = true
	unsub := t.unsub
	if t.pauseT != nil {
		t.pauseT.Stop()
	}
	t.mu.Unlock()
	t.stop()
	if unsub != nil {
		unsub()
	}
	t.jobs.Wait()
}
