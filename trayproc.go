package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/awp-tray/awp-tray/app/appearance"
	"github.com/awp-tray/awp-tray/app/instance"
	"github.com/awp-tray/awp-tray/app/tray"
	"github.com/awp-tray/awp-tray/app/trayhost"
	"github.com/awp-tray/awp-tray/app/uilink"
	"github.com/awp-tray/awp-tray/keystore"
	"github.com/awp-tray/awp-tray/notify"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/localapi"
)

// Timings of the tray process.
const (
	// keyringTimeout bounds each keyring call (an unlock prompt may be up).
	keyringTimeout = 20 * time.Second
	// detectTimeout bounds the look for a tray host on the session bus.
	detectTimeout = 3 * time.Second
	// capsTimeout bounds asking the notification server what it can do
	// (the answer is cached).
	capsTimeout = 2 * time.Second
)

// runTray runs the tray process: the node, the tray icon and menu,
// notifications, and the UI process on demand. It returns the exit status.
func runTray(c config) int {
	mode, err := keystore.ModeFromEnv(c.keyringFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, "awp-tray:", err)
		return 2
	}
	if goruntime.GOOS == "linux" && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		fmt.Fprintln(os.Stderr, "awp-tray: no display (DISPLAY and WAYLAND_DISPLAY are unset); for a headless peer use `awp run`")
		return 1
	}
	// The windows open later, in the UI process: say now, not at the
	// first click, that the display does not answer.
	if err := probeDisplay(); err != nil {
		noDisplay(err)
		return 1
	}
	// Without a session bus, keep libraries (godbus in notify and
	// systray, Fyne in the UI process) from autolaunching one with
	// dbus-launch: it would outlive the app. The tray is not set up then.
	if trayhost.SessionAddress() == "" {
		os.Setenv("DBUS_SESSION_BUS_ADDRESS", "disabled:")
	}
	// A second launch brings the first one's window forward and exits.
	inst, err := instance.Claim(instance.Address(c.dir), c.log.With("component", "instance"))
	if errors.Is(err, instance.ErrRunning) {
		c.log.Info("AWP is already running for this data directory; asked it to show its window", "data", c.dir)
		return 0
	}
	if err != nil {
		c.log.Warn("single-instance check unavailable", "err", err)
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "awp-tray:", err)
		return 1
	}
	p := newTrayProcess(c, mode, exe, detectTray(c.log))
	return p.run(inst)
}

// detectTray says why there is no tray ("" when there is one).
// fyne.io/systray panics at quit without a session bus, and shows nothing
// without a StatusNotifierWatcher: the tray is set up only when both
// answered.
func detectTray(log *slog.Logger) string {
	ctx, cancel := context.WithTimeout(context.Background(), detectTimeout)
	defer cancel()
	host := trayhost.Detect(ctx)
	if !host.OK() {
		log.Warn("no system tray: showing the main window instead", "reason", host.Reason, "bus", host.Address)
		return host.Reason
	}
	log.Info("system tray host found", "bus", host.Address)
	return ""
}

// newTrayProcess wires the tray, the UI launcher and the boot.
func newTrayProcess(c config, mode keystore.Mode, exe, noTray string) *trayProcess {
	p := &trayProcess{log: c.log, noTray: noTray, quit: make(chan struct{})}
	p.ui = &uilink.Launcher{
		Command: func() *exec.Cmd {
			args := []string{uiFlag}
			if c.verbose {
				args = append(args, "--verbose")
			}
			cmd := exec.Command(exe, args...)
			cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
			return cmd
		},
		Init:   uilink.Init{DataDir: c.dir, Listen: c.listen, ExecArgs: autostartArgs(c.dataFlag, c.dir, c.keyringFlag, c.listen), NoTray: noTray},
		State:  func() []uilink.Msg { return p.tray.UIState() },
		OnMsg:  func(m uilink.Msg) { p.tray.HandleUI(m) },
		OnExit: p.uiExited,
		Logger: c.log.With("component", "uilink"),
	}
	opts := tray.Options{
		UI: p.ui,
		Boot: func(ctx context.Context, fileKey bool) (localapi.Backend, error) {
			return p.rt.start(ctx, c, mode, fileKey, p)
		},
		FileKey:      mode == keystore.ModeFile,
		PromptWindow: p.rt.promptWindow,
		PrefsPath:    filepath.Join(c.dir, tray.PrefsName),
		Quit:         p.stop,
		Logger:       c.log.With("component", "tray"),
		// The icon's variant follows the desktop's light or dark panel;
		// AWP_TRAY_ICON_PANEL=light or dark overrides it.
		FollowDesktop: true,
		IconMode:      iconMode(c.log),
		Desktop:       os.Getenv("XDG_CURRENT_DESKTOP"),
	}
	if noTray == "" {
		p.host = &tray.Systray{Log: c.log.With("component", "systray")}
		opts.Host = p.host
	}
	p.tray = tray.New(opts)
	return p
}

// iconMode reads $AWP_TRAY_ICON_PANEL (auto, light or dark): the panel
// the tray icon is drawn for when the desktop does not say, or says
// wrong. A bad value is logged and auto is used.
func iconMode(log *slog.Logger) appearance.Mode {
	m, err := appearance.ParseMode(os.Getenv("AWP_TRAY_ICON_PANEL"))
	if err != nil {
		log.Warn("AWP_TRAY_ICON_PANEL", "err", err)
	}
	return m
}

// run runs the tray until a quit, then shuts down: no more events into
// the tray, the UI quits, then the node (every acked line is already
// durable). It returns the exit status.
func (p *trayProcess) run(inst *instance.Instance) int {
	if inst != nil {
		go func() {
			if err := inst.Serve(p.tray.ShowThreads); err != nil {
				p.log.Warn("single-instance socket", "err", err)
			}
		}()
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		select {
		case s := <-sig:
			p.log.Info("quitting", "signal", s.String())
			p.stop()
		case <-p.quit:
		}
	}()

	p.tray.Start()
	if p.noTray != "" {
		p.ui.Send(uilink.Msg{Op: uilink.OpShow}) // the main window is the app
	} else if err := tray.RunSystray("AWP", nil); err != nil {
		p.log.Error("system tray", "err", err)
		p.stop()
	}
	<-p.quit
	signal.Stop(sig)

	code := p.exitCode()
	p.tray.Close()
	if err := p.ui.Close(); err != nil {
		p.log.Warn("UI process", "err", err)
	}
	if inst != nil {
		inst.Close()
	}
	if err := p.rt.close(); err != nil {
		p.log.Error("shutdown", "err", err)
		code = 1
	}
	return code
}

// trayProcess is what runTray started.
type trayProcess struct {
	log    *slog.Logger
	noTray string
	tray   *tray.Tray
	host   *tray.Systray
	ui     *uilink.Launcher
	rt     services

	quit     chan struct{}
	quitOnce sync.Once

	mu sync.Mutex
	// mu guards:
	uiFailed error // the UI process of a tray-less app ended by itself
}

// stop ends the tray process's loop (once).
func (p *trayProcess) stop() {
	p.quitOnce.Do(func() {
		close(p.quit)
		if p.host != nil {
			tray.QuitSystray()
		}
	})
}

// uiExited follows a UI process's end. Without a tray the main window is
// the app: when its process ends by itself (it failed), the app ends too,
// with its status.
func (p *trayProcess) uiExited(err error) {
	p.tray.UIExited()
	if p.noTray == "" {
		return
	}
	select {
	case <-p.quit:
		return // we asked it to quit
	default:
	}
	if err != nil {
		p.mu.Lock()
		p.uiFailed = err
		p.mu.Unlock()
		p.log.Error("the main window's process ended; quitting", "err", err)
	}
	p.stop()
}

// exitCode is 1 when the UI of a tray-less app failed, else 0.
func (p *trayProcess) exitCode() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.uiFailed != nil {
		return 1
	}
	return 0
}

// services holds what boot started, in start order.
type services struct {
	mu     sync.Mutex
	node   *peer.Node
	api    *localapi.Server
	served chan error
	mgr    *notify.Manager
	dbus   *notify.DBusBackend
}

// start loads the identity, starts the node, its local API and
// notifications. A keyring failure is returned wrapping tray.ErrKeyring.
func (rt *services) start(ctx context.Context, c config, mode keystore.Mode, fileKey bool, p *trayProcess) (localapi.Backend, error) {
	if fileKey {
		mode = keystore.ModeFile
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	st, err := keystore.Open(keystore.Options{DataDir: c.dir, Mode: mode, Timeout: keyringTimeout})
	if err != nil {
		return nil, fmt.Errorf("identity: %w", err)
	}
	priv, created, err := st.LoadOrCreate(ctx)
	if err != nil {
		if errors.Is(err, keystore.ErrNoKeyring) || errors.Is(err, keystore.ErrLocked) || errors.Is(err, keystore.ErrKeyringTimeout) {
			return nil, fmt.Errorf("%w: %w", tray.ErrKeyring, err)
		}
		return nil, fmt.Errorf("identity: %w", err)
	}
	if created {
		c.log.Info("created a new identity", "key", priv.Public().String(), "where", st.Location())
	}
	// WarmBuffers stays off, unlike `awp run`: a desktop app should not
	// hold 76 MiB for blob transfers that may never come (docs/protocol/choices.md
	// "Warm buffers").
	n, err := peer.New(peer.Config{Key: priv, DataDir: c.dir, Listen: c.listen, Logger: c.log.With("component", "peer")})
	if err != nil {
		return nil, err
	}
	if err := n.Start(); err != nil {
		return nil, errors.Join(fmt.Errorf("start: %w", err), n.Close())
	}
	l, err := localapi.Listen(localapi.SocketPath(c.dir))
	if err != nil {
		return nil, errors.Join(err, n.Close())
	}
	api := &localapi.Server{Backend: n, Logger: c.log.With("component", "localapi")}
	served := make(chan error, 1)
	go func() { served <- api.Serve(l) }()

	mgr := &notify.Manager{
		Self:          n.Key(),
		Paused:        p.tray.Paused,
		Focused:       p.tray.Focused,
		OpenThread:    p.tray.OpenThread,
		OpenThreads:   p.tray.ShowThreads,
		OpenApprovals: p.tray.ShowApprovals,
		Decide:        n.Decide,
		Lookup: func(th string, from key.PublicKey) (peer.ThreadInfo, bool) {
			t, err := n.Thread(th, from)
			return t, err == nil
		},
		Logger:       c.log.With("component", "notify"),
		AppName:      "AWP",
		DesktopEntry: appID,
	}
	var db *notify.DBusBackend
	if trayhost.SessionAddress() != "" { // never autolaunch a bus
		if db, err = notify.DBus(notify.DBusConfig{Logger: c.log.With("component", "notify-dbus")}); err != nil {
			c.log.Warn("desktop notifications without actions", "err", err)
			db = nil
		} else {
			mgr.Backend = db
		}
	}
	mgr.Fallback = notifyFallback(db, p.ui, c.log)
	if err := mgr.Start(); err != nil {
		c.log.Warn("notifications", "err", err)
	}
	p.tray.SetNotifier(mgr)

	rt.mu.Lock()
	rt.node, rt.api, rt.served, rt.mgr, rt.dbus = n, api, served, mgr, db
	rt.mu.Unlock()
	c.log.Info("ready", "key", n.Key().String(), "listen", n.ListenAddrs(), "socket", localapi.SocketPath(c.dir))
	return n, nil
}

// promptWindow reports whether a new request must bring the Approvals
// window up: when no notification can carry Allow and Deny (no server,
// or one without actions), the window is the prompt.
func (rt *services) promptWindow() bool {
	rt.mu.Lock()
	db := rt.dbus
	rt.mu.Unlock()
	if db == nil {
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), capsTimeout)
	defer cancel()
	caps, err := db.Capabilities(ctx)
	return err != nil || !slices.Contains(caps, notify.CapActions)
}

// close stops, in order: the local API (no new requests), notifications,
// then the node (which keeps every line it acked).
func (rt *services) close() error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	var errs []error
	if rt.api != nil {
		errs = append(errs, rt.api.Close())
		if err := <-rt.served; err != nil {
			errs = append(errs, err)
		}
	}
	if rt.mgr != nil {
		errs = append(errs, rt.mgr.Close())
	}
	if rt.dbus != nil {
		errs = append(errs, rt.dbus.Close())
	}
	if rt.node != nil {
		errs = append(errs, rt.node.Close())
	}
	return errors.Join(errs...)
}
