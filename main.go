// Command awp-tray is the desktop home of the Agent Wire Protocol: a tray
// app that runs an AWP peer in the background (the same node and local
// API as `awp run`, so `awp` commands work against it), and shows
// presence, threads and approvals.
//
// Usage:
//
//	awp-tray [--data DIR] [--keyring keyring|file] [--listen ADDR]… [--verbose]
//
// It runs as two processes (docs/app.md): the tray process (tray.go here)
// holds the node, its control socket, the tray icon and menu and desktop
// notifications, with no Fyne; it starts the UI process (ui.go: the same
// binary with --ui) when a window is wanted, which talks to the node over
// the control socket and exits a while after its last window closed.
//
// This package only wires the packages together: flags, the
// single-instance claim, the identity (keystore), the node (peer), its
// control socket (peer/localapi), notifications (notify), the tray
// (app/tray), the line between the processes (app/uilink) and the windows
// (app). It must not hold logic of its own: that lives in app, notify and
// peer.
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/awp-tray/awp-tray/internal/datadir"
)

// appID is the Fyne app id (FyneApp.toml) and the D-Bus/desktop name.
const appID = "dev.awp.tray"

// defaultListen is where the tray's peer listens without --listen, as
// `awp run`.
const defaultListen = "tcp://127.0.0.1:0"

// uiFlag starts the UI process; the tray process passes it, people do not.
const uiFlag = "--ui"

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func main() { os.Exit(run(os.Args[1:])) }

// config is what the flags say.
type config struct {
	dataFlag, keyringFlag string
	dir                   string
	listen                []string
	verbose               bool
	log                   *slog.Logger
}

func run(args []string) int {
	if len(args) > 0 && args[0] == uiFlag {
		return runUI(args[1:])
	}
	fs := flag.NewFlagSet("awp-tray", flag.ContinueOnError)
	data := fs.String("data", "", datadir.FlagUsage)
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
	dir, err := datadir.Resolve(*data, os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "awp-tray:", err)
		return 1
	}
	if len(listen) == 0 {
		listen = listFlag{defaultListen}
	}
	return runTray(config{dataFlag: *data, keyringFlag: *keyring, dir: dir, listen: listen,
		verbose: *verbose, log: newLogger(*verbose)})
}

// newLogger logs text lines to stderr (both processes share it).
func newLogger(verbose bool) *slog.Logger {
	level := slog.LevelInfo
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}

// displayName is the display the app opens, for messages.
func displayName() string {
	if d := os.Getenv("WAYLAND_DISPLAY"); d != "" && os.Getenv("DISPLAY") == "" {
		return "wayland:" + d
	}
	return os.Getenv("DISPLAY")
}

// noDisplay says that the display cannot be opened, and what to do.
func noDisplay(err error) {
	fmt.Fprintf(os.Stderr, "awp-tray: cannot open the display %s: %v\n", displayName(), err)
	fmt.Fprintln(os.Stderr, "awp-tray: is the X server (or Wayland compositor) running and reachable? For a headless peer use `awp run`")
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
