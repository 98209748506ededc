package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"github.com/awp-tray/awp-tray/app"
	"github.com/awp-tray/awp-tray/app/uilink"
	"github.com/awp-tray/awp-tray/assets"
)

// uiLinger is how long the UI process lives on after its last window
// closed: long enough that a window opened again soon opens at once, short
// enough that the GL driver's polling (fyne-io/fyne#2506) stops soon after
// the person is done. $AWP_TRAY_UI_LINGER (a Go duration) overrides it,
// for tests.
const uiLinger = 30 * time.Second

// runUI runs the UI process: the windows, over the node's control socket,
// on the line the tray process gave it (fd 3). It returns the exit status.
func runUI(args []string) int {
	fs := flag.NewFlagSet("awp-tray "+uiFlag, flag.ContinueOnError)
	verbose := fs.Bool("verbose", false, "log debug messages")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	log := newLogger(*verbose).With("proc", "ui")
	log.Debug("UI process up")
	conn, err := uilink.Open()
	if err != nil {
		fmt.Fprintln(os.Stderr, "awp-tray:", err)
		return 2
	}
	defer conn.Close()
	m, err := conn.Recv()
	if err != nil || m.Op != uilink.OpInit || m.Init == nil {
		fmt.Fprintf(os.Stderr, "awp-tray: the tray process did not say whom this UI serves (%v)\n", err)
		return 2
	}
	init := m.Init
	linger := uiLinger
	if v := os.Getenv("AWP_TRAY_UI_LINGER"); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			linger = d
		}
	}
	fa := fyneapp.NewWithID(appID)
	fa.SetIcon(assets.Icon)
	exe, _ := os.Executable()
	ui, err := newUI(fa, app.Options{
		DataDir:  init.DataDir,
		Listen:   init.Listen,
		Logger:   log.With("component", "app"),
		Exec:     exe,
		ExecArgs: init.ExecArgs,
		Tray:     app.LinkTray{C: conn},
		NoTray:   init.NoTray,
		Linger:   linger,
		Stuck:    func() { os.Exit(0) },
	})
	if err != nil {
		noDisplay(err)
		return 1
	}
	log.Debug("windows built")
	go ui.ServeLink(conn)
	ui.Run()
	return 0
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
