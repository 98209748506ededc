// Command awp-tray is the desktop home of the Agent Wire Protocol: a tray
// app that runs an AWP peer in the background (the same node and local
// API as `awp run`, so `awp` commands work against it), and shows
// presence, threads and approvals.
//
// Usage:
//
//	awp-tray [--data DIR] [--keyring keyring|file] [--listen ADDR]… [--verbose]
//
// This file only wires the packages together: flags, the single-instance
// claim, the identity (keystore), the node (peer), its control socket
// (peer/localapi), notifications (notify) and the UI (app).
// It must not hold logic of its own: that lives in app, notify and peer.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"github.com/awp-tray/awp-tray/app"
	"github.com/awp-tray/awp-tray/app/instance"
	"github.com/awp-tray/awp-tray/app/trayhost"
	"github.com/awp-tray/awp-tray/assets"
	"github.com/awp-tray/awp-tray/keystore"
	"github.com/awp-tray/awp-tray/notify"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/localapi"
)

// appID is the Fyne app id (FyneApp.toml) and the D-Bus/desktop name.
const appID = "dev.awp.tray"

// defaultListen is where the tray's peer listens without --listen, as
// `awp run`.
const defaultListen = "tcp://127.0.0.1:0"

// keyringTimeout bounds each keyring call (an unlock prompt may be up).
const keyringTimeout = 20 * time.Second

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	fs := flag.NewFlagSet("awp-tray", flag.ContinueOnError)
	data := fs.String("data", "", "data directory (default $AWP_DATA, else the user config dir's awp/)")
	keyring := fs.String("keyring", "", "where the identity is kept: keyring (default, or $AWP_KEYRING) or file")
	var listen listFlag
	fs.Var(&listen, "listen", "address to listen on (repeatable; default "+defaultListen+")")
	verbose := fs.Bool("verbose", false, "log debug messages")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "awp-tray: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	dir, err := dataDir(*data)
	if err != nil {
		fmt.Fprintln(os.Stderr, "awp-tray:", err)
		return 1
	}
	mode, err := keystore.ModeFromEnv(*keyring)
	if err != nil {
		fmt.Fprintln(os.Stderr, "awp-tray:", err)
		return 2
	}
	if len(listen) == 0 {
		listen = listFlag{defaultListen}
	}
	if goruntime.GOOS == "linux" && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		fmt.Fprintln(os.Stderr, "awp-tray: no display (DISPLAY and WAYLAND_DISPLAY are unset); for a headless peer use `awp run`")
		return 1
	}

	// Without a session bus, keep libraries (Fyne's notifications and
	// settings portal, godbus) from autolaunching one with dbus-launch: it
	// would outlive the app. The tray is not set up then (trayhost).
	if trayhost.SessionAddress() == "" {
		os.Setenv("DBUS_SESSION_BUS_ADDRESS", "disabled:")
	}

	// A second launch brings the first one's window forward and exits.
	inst, err := instance.Claim(instance.Address(dir), log.With("component", "instance"))
	if errors.Is(err, instance.ErrRunning) {
		log.Info("AWP is already running for this data directory; asked it to show its window", "data", dir)
		return 0
	}
	if err != nil {
		log.Warn("single-instance check unavailable", "err", err)
	}

	fa := fyneapp.NewWithID(appID)
	fa.SetIcon(assets.Icon)

	var rt services // what boot started, for shutdown
	var ui *app.App
	boot := func(ctx context.Context, fileKey bool) (app.Backend, error) {
		m := mode
		if fileKey {
			m = keystore.ModeFile
		}
		return rt.start(ctx, startConfig{
			dir: dir, mode: m, listen: listen, log: log, ui: ui,
			fallback: func(title, body string) { fa.SendNotification(fyne.NewNotification(title, body)) },
		})
	}
	// shutdown closes what boot started; once, from the main goroutine
	// after the Fyne loop, or from the app's watchdog when that loop does
	// not return after a quit (app.Options.Stuck).
	var (
		shutOnce sync.Once
		shutCode int
	)
	shutdown := func() int {
		shutOnce.Do(func() {
			if inst != nil {
				inst.Close()
			}
			if err := rt.close(); err != nil {
				log.Error("shutdown", "err", err)
				shutCode = 1
			}
		})
		return shutCode
	}
	exe, _ := os.Executable()
	ui, err = newUI(fa, app.Options{
		DataDir:  dir,
		FileKey:  mode == keystore.ModeFile,
		Listen:   listen,
		Boot:     boot,
		Logger:   log.With("component", "app"),
		Exec:     exe,
		ExecArgs: autostartArgs(*data, dir, *keyring, listen),
		Stuck:    func() { os.Exit(shutdown()) },
	})
	if err != nil {
		shutdown()
		fmt.Fprintf(os.Stderr, "awp-tray: cannot open the display %s: %v\n", displayName(), err)
		fmt.Fprintln(os.Stderr, "awp-tray: is the X server (or Wayland compositor) running and reachable? For a headless peer use `awp run`")
		return 1
	}
	if inst != nil {
		go func() {
			if err := inst.Serve(ui.ShowMainAsync); err != nil {
				log.Warn("single-instance socket", "err", err)
			}
		}()
	}
	ui.Run()
	return shutdown()
}

// newUI builds the app's windows. Fyne's first window initialises GLFW,
// which panics when the display cannot be opened (a wrong DISPLAY, an X
// server that went away); that becomes an error here so the user gets one
// line saying what is wrong instead of a goroutine dump. Any other panic
// is a bug and stays one.
func newUI(fa fyne.App, o app.Options) (ui *app.App, err error) {
	defer func() {
		if r := recover(); r != nil {
			if !strings.Contains(fmt.Sprint(r), "GLFW") {
				panic(r)
			}
			err = fmt.Errorf("%v", r)
		}
	}()
	return app.New(fa, o), nil
}

// displayName is the display the app tries to open, for messages.
func displayName() string {
	if d := os.Getenv("WAYLAND_DISPLAY"); d != "" {
		return "wayland:" + d
	}
	return os.Getenv("DISPLAY")
}

// dataDir resolves --data like `awp`: the flag, else $AWP_DATA, else the
// user config dir's awp/; absolute.
func dataDir(flagValue string) (string, error) {
	d := flagValue
	if d == "" {
		d = os.Getenv("AWP_DATA")
	}
	if d == "" {
		cfg, err := os.UserConfigDir()
		if err != nil {
			return "", fmt.Errorf("no data directory: give --data or set AWP_DATA (%w)", err)
		}
		d = filepath.Join(cfg, "awp")
	}
	return filepath.Abs(d)
}

// autostartArgs are the flags the login entry repeats: only those given.
func autostartArgs(dataFlag, dir, keyringFlag string, listen []string) []string {
	var a []string
	if dataFlag != "" {
		a = append(a, "--data", dir)
	}
	if keyringFlag != "" {
		a = append(a, "--keyring", keyringFlag)
	}
	for _, l := range listen {
		if l != defaultListen {
			a = append(a, "--listen", l)
		}
	}
	return a
}

// startConfig is what services.start needs.
type startConfig struct {
	dir      string
	mode     keystore.Mode
	listen   []string
	log      *slog.Logger
	ui       *app.App
	fallback func(title, body string)
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
// notifications. A keyring failure is returned wrapping app.ErrKeyring.
func (rt *services) start(ctx context.Context, c startConfig) (app.Backend, error) {
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	st, err := keystore.Open(keystore.Options{DataDir: c.dir, Mode: c.mode, Timeout: keyringTimeout})
	if err != nil {
		return nil, fmt.Errorf("identity: %w", err)
	}
	priv, created, err := st.LoadOrCreate(ctx)
	if err != nil {
		if errors.Is(err, keystore.ErrNoKeyring) || errors.Is(err, keystore.ErrLocked) || errors.Is(err, keystore.ErrKeyringTimeout) {
			return nil, fmt.Errorf("%w: %w", app.ErrKeyring, err)
		}
		return nil, fmt.Errorf("identity: %w", err)
	}
	if created {
		c.log.Info("created a new identity", "key", priv.Public().String(), "where", st.Location())
	}
	// WarmBuffers stays off, unlike `awp run`: a desktop app should not
	// hold 76 MiB for blob transfers that may never come (docs/protocol.md
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
		Self:          n.Key().String(),
		Paused:        c.ui.Paused,
		Focused:       c.ui.Focused,
		OpenThread:    c.ui.OpenThread,
		OpenThreads:   c.ui.ShowMainAsync,
		OpenApprovals: c.ui.OpenApprovals,
		Decide:        n.Decide,
		Lookup: func(th, from string) (peer.ThreadInfo, bool) {
			t, err := n.Thread(th, from)
			return t, err == nil
		},
		Fallback:     c.fallback,
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
	if err := mgr.Start(); err != nil {
		c.log.Warn("notifications", "err", err)
	}
	c.ui.SetNotifier(mgr)

	rt.mu.Lock()
	rt.node, rt.api, rt.served, rt.mgr, rt.dbus = n, api, served, mgr, db
	rt.mu.Unlock()
	c.log.Info("ready", "key", n.Key().String(), "listen", n.ListenAddrs(), "socket", localapi.SocketPath(c.dir))
	return n, nil
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
