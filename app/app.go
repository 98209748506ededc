package app

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"fyne.io/fyne/v2"

	"github.com/awp-tray/awp-tray/app/menu"
	"github.com/awp-tray/awp-tray/assets"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

// Options configure an App. Zero values are usable.
type Options struct {
	// DataDir is the node's data directory: its control socket, and what
	// Settings shows.
	DataDir string
	// FileKey says the identity is kept in DATA/identity.key (--keyring
	// file), not the OS keyring.
	FileKey bool
	// Listen are the listen addresses asked for (--listen), shown in
	// Settings until the node reports the bound ones.
	Listen []string
	// Logger receives the app's logs; nil is silent.
	Logger *slog.Logger
	// Exec and ExecArgs are the program and arguments the login autostart
	// entry runs (usually os.Executable and the flags given).
	Exec     string
	ExecArgs []string
	// AutostartDir overrides the XDG autostart directory (tests).
	AutostartDir string
	// Tray is the line to the tray process; nil: none (tests).
	Tray Tray
	// NoTray says why there is no system tray ("" when there is one): the
	// main window is shown with the reason, closing it quits AWP, and the
	// UI does not exit when idle.
	NoTray string
	// Linger is how long the UI lives on after its last window closed
	// (the UI process exits then); 0: for ever.
	Linger time.Duration
	// Dial connects to the node once the tray says it runs; nil means
	// localapi.DialRemote on DataDir's control socket.
	Dial func(ctx context.Context) (Backend, error)
	// Stuck is called, from another goroutine, when the Fyne loop has not
	// returned QuitTimeout after a quit was asked for (a command, the main
	// window closed without a tray, SIGTERM or SIGINT). Fyne 2.7.1 can
	// lose its own stop hook in a race at shutdown and then waits for it
	// forever (see docs/app.md "Quitting"); Stuck should exit the process.
	// Nil: wait for the loop.
	Stuck func()
	// QuitTimeout is how long the loop gets to return; 0 means 5s.
	QuitTimeout time.Duration
}

// Tray is the UI's line to the tray process, which holds the node, the
// tray icon and notifications.
type Tray interface {
	// Focus says which thread window is in front (th "": none), so its
	// messages are not notified.
	Focus(th string, from key.PublicKey)
	// SetPause pauses notifications (a zero Pause resumes them).
	SetPause(p menu.Pause)
	// FileKey answers the keyring question: keep the identity in a file
	// (true), or quit.
	FileKey(ok bool)
	// Quit quits AWP: the tray, the node and this UI.
	Quit()
}

// dialTimeout bounds connecting to the node's control socket: it is on
// this machine and answers at once when the node runs.
const dialTimeout = 10 * time.Second

// App is the tray app's windows. Build it with New; call Run once.
type App struct {
	fa   fyne.App // tracks the windows shown (windows.go)
	opt  Options
	log  *slog.Logger
	ctx  context.Context // ends at Close
	stop context.CancelFunc
	jobs sync.WaitGroup // background work started by views

	shown  *windowTracker
	linger *time.Timer // the idle exit, while no window is shown

	// The fields below are used on the UI goroutine only.
	clip         clipHold    // what this process put on the clipboard (windows.go)
	relMu        sync.Mutex  // guards relTimer, relGen, relTicks: a timer's callback may run off the UI goroutine (the test driver's fyne.Do)
	relTimer     *time.Timer // redraws relative times while a window is shown
	relGen       int         // the current chain of redraws; an older chain's callback stops
	relTicks     int         // redraws done (tests)
	main         *homeWindow
	presence     *presenceWindow
	approvals    *approvalsWindow
	settings     *settingsWindow
	threads      map[threadKey]*threadWindow
	status       string
	pause        menu.Pause // as the tray says
	bootErr      string     // why the node is not running
	askingKey    bool       // the keyring question is up
	wantApproval string     // the request to show once pending is loaded
	mirrorHosts  []string   // the node's mirror hosts, as last read

	focused atomic.Pointer[threadKey] // the thread window shown last, if open

	quitting chan struct{} // closed once a quit was asked for
	quitOnce sync.Once

	mu sync.Mutex
	// mu guards:
	be     Backend
	closer io.Closer // the Remote, closed with the app
	state  menu.State
	closed bool
	unsub  func()
}

// New builds the app's windows (hidden; the main window is shown when
// there is no tray). Call it on the main goroutine before Run.
func New(fa fyne.App, o Options) *App {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.QuitTimeout <= 0 {
		o.QuitTimeout = 5 * time.Second
	}
	ctx, stop := context.WithCancel(context.Background())
	a := &App{opt: o, log: o.Logger, ctx: ctx, stop: stop,
		threads: map[threadKey]*threadWindow{}, quitting: make(chan struct{})}
	if fa.Icon() == nil {
		fa.SetIcon(assets.Icon)
	}
	a.shown = &windowTracker{changed: a.windowsChanged}
	a.fa = &trackedApp{App: fa, t: a.shown}
	a.main = newHomeWindow(a)
	a.status = "starting…"
	if o.NoTray != "" {
		a.log.Warn("no system tray: the main window is the app", "reason", o.NoTray)
		a.main.setNotice("No system tray here: " + o.NoTray + ". Closing this window quits AWP.")
		a.main.w.Show()
	}
	a.windowsChanged(a.shown.count())
	return a
}

// Run runs the Fyne loop until Quit. Call it once, on the main goroutine.
func (a *App) Run() {
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
		a.markQuitting()
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
func (a *App) HasTray() bool { return a.opt.NoTray == "" }

// attach connects the UI to a running node: it subscribes to events and
// loads everything the windows show, the open thread windows included.
// Any goroutine but the UI's.
func (a *App) attach(be Backend) {
	events, cancel := be.Subscribe(1024)
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		cancel()
		return
	}
	a.be, a.unsub = be, cancel
	a.mu.Unlock()
	// The first load runs here, so what comes after attach finds the
	// windows filled (the UI process's first command); then one goroutine
	// does every event's refresh, so refreshes never overlap.
	w := work{mask: dirtyAll}
	fyne.DoAndWait(func() {
		for k := range a.threads {
			w.thread(k.th, k.from, true)
		}
	})
	start := time.Now()
	a.apply(w)
	a.log.Debug("first load", "took", time.Since(start).String())
	a.background(func() { a.eventLoop(events) })
}

// backend returns the attached node, or nil before it runs.
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

// ShowMain brings the main window forward. UI goroutine.
func (a *App) ShowMain() {
	a.main.w.Show()
	a.main.w.RequestFocus()
}

// setFocused records the thread window in front (nil: none) and tells the
// tray. UI goroutine.
func (a *App) setFocused(k *threadKey) {
	a.focused.Store(k)
	if a.opt.Tray == nil {
		return
	}
	if k == nil {
		a.opt.Tray.Focus("", key.PublicKey{})
	} else {
		a.opt.Tray.Focus(k.th, k.from)
	}
}

// Focused names the thread whose window was shown last and is still
// open. Safe from any goroutine.
func (a *App) Focused() (th string, from key.PublicKey, ok bool) {
	k := a.focused.Load()
	if k == nil {
		return "", key.PublicKey{}, false
	}
	return k.th, k.from, true
}

// openThreadKey shows a thread's window (a menu item, a notification).
// UI goroutine.
func (a *App) openThreadKey(th string, from key.PublicKey) {
	for _, t := range a.main.all {
		if t.Th == th && t.MirroredFrom == from {
			a.openThread(t)
			return
		}
	}
	a.openThread(peer.ThreadInfo{Th: th, MirroredFrom: from})
}

// openApprovals shows the Approvals window, at request id when it is set
// and still pending. UI goroutine.
func (a *App) openApprovals(id string) {
	a.wantApproval = id
	a.showApprovals()
}

// Backend returns the attached node, or nil before it runs. Safe from any
// goroutine.
func (a *App) Backend() Backend { return a.backend() }

// Quit ends the Fyne loop: this UI quits; the tray and the node go on.
func (a *App) Quit() {
	a.markQuitting()
	a.fa.Quit()
}

// quitAll quits AWP: the tray process is told (it quits this UI too), and
// this UI quits at once in case the tray is gone. UI goroutine.
func (a *App) quitAll() {
	if a.opt.Tray != nil {
		a.opt.Tray.Quit()
	}
	a.Quit()
}

// Close unsubscribes from the node, closes the line to it and waits for
// background work. Safe to call twice.
func (a *App) Close() {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return
	}
	a.closed = true
	unsub, closer := a.unsub, a.closer
	a.mu.Unlock()
	a.stop()
	if unsub != nil {
		unsub()
	}
	a.jobs.Wait()
	if closer != nil {
		closer.Close()
	}
}

// identityPlace says where the identity is kept, for Settings.
func (a *App) identityPlace() string {
	if a.opt.FileKey {
		return "in a file: " + filepath.Join(a.opt.DataDir, "identity.key")
	}
	return "in the OS keyring (Secret Service)"
}
