package app

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"github.com/awp-tray/awp-tray/app/icon"
	"github.com/awp-tray/awp-tray/app/trayhost"
	"github.com/awp-tray/awp-tray/assets"
	"github.com/awp-tray/awp-tray/peer"
)

// Options configure an App. Zero values are usable except Boot.
type Options struct {
	// DataDir is the node's data directory, shown in Settings.
	DataDir string
	// FileKey says the identity is kept in DATA/identity.key (--keyring
	// file), not the OS keyring.
	FileKey bool
	// Listen are the listen addresses asked for (--listen), shown in
	// Settings until the node reports the bound ones.
	Listen []string
	// Boot starts the node; called off the UI goroutine.
	Boot BootFunc
	// BootTimeout bounds one Boot call (the keyring may wait for an unlock
	// prompt); 0 means 30s.
	BootTimeout time.Duration
	// Logger receives the app's logs; nil is silent.
	Logger *slog.Logger
	// Exec and ExecArgs are the program and arguments the login autostart
	// entry runs (usually os.Executable and the flags given).
	Exec     string
	ExecArgs []string
	// AutostartDir overrides the XDG autostart directory (tests).
	AutostartDir string
	// DetectTray checks for a tray host; nil means trayhost.Detect with a
	// 3s timeout.
	DetectTray func(ctx context.Context) trayhost.Result
	// Tray overrides the tray the app drives (tests); nil means the
	// fyne.App's desktop.App when DetectTray says a host exists.
	Tray desktop.App
	// Stuck is called, from another goroutine, when the Fyne loop has not
	// returned QuitTimeout after a quit was asked for (the Quit item, the
	// main window closed without a tray, SIGTERM or SIGINT). Fyne 2.7.1
	// can lose its own stop hook in a race at shutdown and then waits for
	// it forever (see docs/app.md "Quitting"); Stuck should shut the
	// node down and exit the process. Nil: wait for the loop.
	Stuck func()
	// QuitTimeout is how long the loop gets to return; 0 means 5s.
	QuitTimeout time.Duration
}

// App is the tray app's UI. Build it with New; call Run once.
type App struct {
	fa   fyne.App
	opt  Options
	log  *slog.Logger
	ctx  context.Context // ends at Close
	stop context.CancelFunc
	jobs sync.WaitGroup // background work started by views

	icons icon.Cache
	tray  desktop.App // nil without a tray host
	// trayReason says why there is no tray ("" with one).
	trayReason string

	// The fields below are used on the UI goroutine only.
	main      *homeWindow
	presence  *presenceWindow
	approvals *approvalsWindow
	settings  *settingsWindow
	threads   map[threadKey]*threadWindow
	menu      *trayMenu
	paused    bool // notifications paused
	status    string

	pausedFlag atomic.Bool               // a.paused, for other goroutines
	focused    atomic.Pointer[threadKey] // the thread window shown last, if open

	quitting chan struct{} // closed once a quit was asked for
	quitOnce sync.Once

	mu sync.Mutex
	// mu guards:
	notifier Notifier
	be       Backend
	snap     snapshot // the latest counts
	closed   bool
	unsub    func()
}

// snapshot holds the counts the tray shows.
type snapshot struct {
	Online    bool
	PeersUp   int
	Unread    int
	Approvals int
	Booted    bool
	Err       string // why the node is not running
}

// New builds the app's windows (hidden). Call it on the main goroutine
// before Run.
func New(fa fyne.App, o Options) *App {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.BootTimeout <= 0 {
		o.BootTimeout = 30 * time.Second
	}
	if o.QuitTimeout <= 0 {
		o.QuitTimeout = 5 * time.Second
	}
	ctx, stop := context.WithCancel(context.Background())
	a := &App{fa: fa, opt: o, log: o.Logger, ctx: ctx, stop: stop,
		threads: map[threadKey]*threadWindow{}, quitting: make(chan struct{})}
	if fa.Icon() == nil {
		fa.SetIcon(assets.Icon)
	}
	a.paused = fa.Preferences().BoolWithFallback(prefPaused, false)
	a.pausedFlag.Store(a.paused)
	a.main = newHomeWindow(a)
	a.status = "starting…"
	return a
}

// prefPaused is the preference key of "Pause notifications".
const prefPaused = "notifications.paused"

// SetupTray detects a tray host and, when there is one, installs the tray
// menu and icon; otherwise it logs why and shows the main window. It must
// run before the Fyne loop starts (Fyne starts the tray with its loop).
// It returns whether a tray is set up.
func (a *App) SetupTray() bool {
	tray := a.opt.Tray
	if tray == nil {
		detect := a.opt.DetectTray
		if detect == nil {
			detect = func(ctx context.Context) trayhost.Result {
				ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
				defer cancel()
				return trayhost.Detect(ctx)
			}
		}
		r := detect(a.ctx)
		if !r.OK() {
			a.trayReason = r.Reason
			a.log.Warn("no system tray: showing the main window instead", "reason", r.Reason, "bus", r.Address)
			a.main.setNotice("No system tray here: " + r.Reason + ". Closing this window quits AWP.")
			a.main.w.Show()
			return false
		}
		d, ok := a.fa.(desktop.App)
		if !ok {
			a.trayReason = "this driver has no system tray"
			a.log.Warn("no system tray: the Fyne driver has none")
			a.main.w.Show()
			return false
		}
		a.log.Info("system tray host found", "bus", r.Address)
		tray = d
	}
	a.tray = tray
	a.menu = newTrayMenu(a)
	a.updateTray()
	return true
}

// Run sets up the tray, boots the node in the background and runs the
// Fyne loop until Quit. Call it once, on the main goroutine.
func (a *App) Run() {
	a.SetupTray()
	a.Boot()
	ran := make(chan struct{})
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	go a.quitWatchdog(ran, sig)
	stopped := takeStopHook(a.fa)
	a.fa.Run()
	close(ran)
	signal.Stop(sig)
	if stopped != nil {
		stopped()
	}
	a.Close()
}

// takeStopHook takes the app's stopped hook out of its lifecycle and
// returns it (nil if none), for Run to call once the loop has returned.
// Fyne always has one (it saves the preferences). Fyne 2.7.1 queues it at
// quit to a goroutine that hands it to the loop's queue while the loop
// closes that queue: that goroutine then panics (send on closed channel:
// the smoke test saw awp-tray exit with status 2 on SIGTERM, once, with
// the machine loaded) or waits for good (the hang quitWatchdog is for).
// With no hook nothing is queued at quit.
func takeStopHook(fa fyne.App) func() {
	lc, ok := fa.Lifecycle().(interface {
		OnStopped() func()
		SetOnStopped(func())
		SetOnStoppedHookExecuted(func())
	})
	if !ok {
		return nil
	}
	f := lc.OnStopped()
	lc.SetOnStopped(nil)
	lc.SetOnStoppedHookExecuted(nil)
	return f
}

// markQuitting records that a quit was asked for.
func (a *App) markQuitting() { a.quitOnce.Do(func() { close(a.quitting) }) }

// quitWatchdog waits for a quit (Quit, or SIGTERM/SIGINT on sig) and calls
// Options.Stuck when the Fyne loop has not returned QuitTimeout later.
// Fyne quits on those signals itself, but registers for them only once its
// loop goroutine runs, so a signal also calls its Quit here (idempotent).
func (a *App) quitWatchdog(ran <-chan struct{}, sig <-chan os.Signal) {
	select {
	case s := <-sig:
		a.log.Info("quitting", "signal", s.String())
		fyneQuit(a.fa)
	case <-a.quitting:
	case <-ran:
		return
	}
	t := time.NewTimer(a.opt.QuitTimeout)
	defer t.Stop()
	select {
	case <-ran:
	case <-t.C:
		a.log.Warn("the UI loop did not stop after quit; shutting down without it (a known Fyne 2.7.1 race)",
			"waited", a.opt.QuitTimeout.String())
		if a.opt.Stuck != nil {
			a.opt.Stuck()
		}
	}
}

// fyneQuit asks the Fyne loop to quit from another goroutine. Fyne closes
// its queue at the end of its loop; a call that comes just then would send
// on the closed queue and panic.
func fyneQuit(fa fyne.App) {
	defer func() { _ = recover() }()
	fyne.Do(fa.Quit)
}

// HasTray reports whether the app lives in a system tray.
func (a *App) HasTray() bool { return a.tray != nil }

// Boot starts the node off the UI goroutine; see Options.Boot.
func (a *App) Boot() { a.boot(a.opt.FileKey) }

func (a *App) boot(fileKey bool) {
	if a.opt.Boot == nil {
		return
	}
	a.background(func() {
		ctx, cancel := context.WithTimeout(a.ctx, a.opt.BootTimeout)
		defer cancel()
		be, err := a.opt.Boot(ctx, fileKey)
		if err != nil {
			a.log.Error("node did not start", "err", err, "file_key", fileKey)
			fyne.Do(func() { a.bootFailed(err, fileKey) })
			return
		}
		a.log.Info("node started", "key", be.Key().String(), "listen", be.ListenAddrs())
		if fileKey {
			a.opt.FileKey = true
		}
		a.Attach(be)
	})
}

// bootFailed explains a failed start; for a keyring failure it offers
// keeping the key in a file. UI goroutine.
func (a *App) bootFailed(err error, fileKey bool) {
	a.setStatus("not running")
	a.main.w.Show()
	a.main.w.RequestFocus()
	if errors.Is(err, ErrKeyring) && !fileKey {
		a.main.askFileKey(err, func(ok bool) {
			if ok {
				a.setStatus("starting…")
				a.boot(true)
			}
		})
		return
	}
	a.main.showError(err)
}

// Attach connects the UI to a running node: it subscribes to events and
// loads everything the windows show. Safe from any goroutine.
func (a *App) Attach(be Backend) {
	events, cancel := be.Subscribe(1024)
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		cancel()
		return
	}
	a.be, a.unsub = be, cancel
	a.mu.Unlock()
	// One goroutine does the first load and then every event's refresh,
	// so refreshes never overlap.
	a.background(func() {
		a.refresh(dirtyAll)
		a.eventLoop(events)
	})
}

// backend returns the attached node, or nil before boot.
func (a *App) backend() Backend {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.be
}

// background runs fn on its own goroutine, tracked so Close (and tests)
// can wait for it.
func (a *App) background(fn func()) {
	a.jobs.Add(1)
	go func() {
		defer a.jobs.Done()
		fn()
	}()
}

// Wait blocks until background work finishes (tests, shutdown).
func (a *App) Wait() { a.jobs.Wait() }

// ShowMain brings the main window forward; a second launch asks for it.
// UI goroutine.
func (a *App) ShowMain() {
	a.main.w.Show()
	a.main.w.RequestFocus()
}

// SetNotifier connects the notifications manager: it receives every
// event from now on and hears when a thread is read. Safe from any
// goroutine.
func (a *App) SetNotifier(n Notifier) {
	a.mu.Lock()
	a.notifier = n
	a.mu.Unlock()
}

func (a *App) getNotifier() Notifier {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.notifier
}

// Paused reports whether notifications are paused (tray menu, Settings).
// Safe from any goroutine: notify.Manager.Paused.
func (a *App) Paused() bool { return a.pausedFlag.Load() }

// Focused names the thread whose window was shown last and is still
// open. Safe from any goroutine: notify.Manager.Focused.
func (a *App) Focused() (th, from string, ok bool) {
	k := a.focused.Load()
	if k == nil {
		return "", "", false
	}
	return k.th, k.from, true
}

// OpenThread shows a thread's window. Safe from any goroutine (a click on
// a notification).
func (a *App) OpenThread(th, from string) {
	fyne.Do(func() {
		for _, t := range a.main.all {
			if t.Th == th && t.MirroredFrom == from {
				a.openThread(t)
				return
			}
		}
		a.openThread(peer.ThreadInfo{Th: th, MirroredFrom: from})
	})
}

// OpenApprovals shows the Approvals window. Safe from any goroutine.
func (a *App) OpenApprovals() { fyne.Do(a.showApprovals) }

// ShowMainAsync is ShowMain from any goroutine (a second launch).
func (a *App) ShowMainAsync() { fyne.Do(a.ShowMain) }

// Backend returns the attached node, or nil before it started. Safe from
// any goroutine.
func (a *App) Backend() Backend { return a.backend() }

// Quit ends the Fyne loop.
func (a *App) Quit() {
	a.markQuitting()
	a.fa.Quit()
}

// Close unsubscribes from the node and waits for background work. It
// does not close the node (main owns it). Safe to call twice.
func (a *App) Close() {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return
	}
	a.closed = true
	unsub := a.unsub
	a.mu.Unlock()
	a.stop()
	if unsub != nil {
		unsub()
	}
	a.jobs.Wait()
}

// identityPlace says where the identity is kept, for Settings.
func (a *App) identityPlace() string {
	if a.opt.FileKey {
		return "in a file: " + filepath.Join(a.opt.DataDir, "identity.key")
	}
	return "in the OS keyring (Secret Service)"
}
