// Command awp-tray is the desktop home of the Agent Wire Protocol: a tray
// app that runs an AWP peer in the background (the same node and local
// API as `awp run`, so `awp` commands work against it), and shows
// presence, threads and approvals.
//
// Usage:
//
//	awp-tray [--data DIR] [--keyring keyring|file] [--listen ADDR]… [--verbose] [--version]
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
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strings"

	"github.com/awp-tray/awp-tray/internal/datadir"
	"github.com/awp-tray/awp-tray/internal/flaghelp"
	"github.com/awp-tray/awp-tray/peer"
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
	fs.SetOutput(io.Discard) // the messages below say it once, in awp's words
	data := fs.String("data", "", datadir.FlagUsage)
	keyring := fs.String("keyring", "", "where the identity is kept: keyring (default, or $AWP_KEYRING) or file")
	var listen listFlag
	fs.Var(&listen, "listen", "address to listen on (repeatable; default "+defaultListen+")")
	verbose := fs.Bool("verbose", false, "log debug messages")
	version := fs.Bool("version", false, "print the version and exit")
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		writeUsage(os.Stdout, fs)
		return 0
	case err != nil:
		fmt.Fprintf(os.Stderr, "awp-tray: %v\n%s(awp-tray -h lists the flags)\n", err, usageLine)
		return 2
	case fs.NArg() > 0:
		fmt.Fprintf(os.Stderr, "awp-tray: unexpected argument %q\n%s", fs.Arg(0), usageLine)
		return 2
	case *version:
		fmt.Printf("awp-tray %s (%s %s/%s)\n", peer.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return 0
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

// usageLine is the synopsis -h and bad usage print.
const usageLine = "usage: awp-tray [--data DIR] [--keyring keyring|file] [--listen ADDR]… [--verbose] [--version]\n"

// writeUsage is -h: the synopsis, what the app is, and every flag with its
// description, laid out as awp's -h lays them out.
func writeUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, usageLine)
	fmt.Fprint(w, "\nthe AWP tray app: runs this identity's peer in the background (the same local API as `awp run`,\nso awp commands work against it) and shows peers, threads and approvals\n")
	metavars := map[string]string{"data": "DIR", "keyring": "keyring|file", "listen": "ADDR"}
	flaghelp.Write(w, fs, func(f *flag.Flag) string { return metavars[f.Name] })
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
