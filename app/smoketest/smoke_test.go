//go:build smoke

package smoketest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrayMenu starts the tray with a tray host, reads its menu over
// dbusmenu, opens Threads from it, checks a second launch and the awp
// command line against the tray's peer, and quits from the menu.
func TestTrayMenu(t *testing.T) {
	d := startDesktopTray(t, "--listen", "tcp://127.0.0.1:0")
	ctx, tr, conn, item, mp := d.ctx, d.tr, d.conn, d.item, d.menu
	t.Logf("tray item: %+v", item)

	// Wait for the node to boot: the status line leaves "starting…".
	items := d.untilStatus("AWP: no peers yet")
	for _, want := range []string{"Threads", "Presence", "Approvals", "Copy my invite", "Add peer…", "Pause notifications", "Settings", "Quit (your peer goes offline)"} {
		if _, ok := find(items, want); !ok {
			t.Errorf("menu lacks %q: %s", want, labels(items))
		}
	}
	if pause, _ := find(items, "Pause notifications"); len(pause.Children) != 3 || !strings.HasPrefix(pause.Children[1].Label, "Until tomorrow ") {
		t.Errorf("Pause notifications submenu: %s", labels(pause.Children))
	}
	if items[0].Enabled {
		t.Errorf("status line %q is clickable", items[0].Label)
	}
	if tip := tooltip(conn, item); tip != "AWP: no peers yet" {
		t.Errorf("tooltip = %q", tip)
	}
	if visibleWindow(d.display, "AWP") {
		t.Error("the main window is shown at start although a tray exists")
	}
	if n := len(tree(tr.cmd.Process.Pid)); n != 1 {
		t.Errorf("%d processes before any window, want the tray's alone", n)
	}

	if err := tr.clickUntil(ctx, conn, item.Bus, mp, "Threads", "the main window after Threads", func() bool { return visibleWindow(d.display, "AWP") }); err != nil {
		t.Fatal(err)
	}
	screenshot(ctx, t, d.display, "tray-threads.png")

	// The awp command line works against the tray's peer.
	out, err := exec.CommandContext(ctx, d.awpBin, "threads", "--data", d.data, "--json").Output()
	if err != nil {
		t.Fatalf("awp threads against the tray: %v", err)
	}
	var list []json.RawMessage
	if err := json.Unmarshal(out, &list); err != nil {
		t.Errorf("awp threads --json printed %q: %v", out, err)
	}

	// A second launch asks the first to show its window and exits 0.
	second := startTray(t, d.trayBin, d.env, "--data", d.data)
	if err := second.wait(ctx); err != nil {
		t.Errorf("second launch: %v\n%s", err, second.out.String())
	}
	if !strings.Contains(tr.out.String(), "another launch asked to show the window") {
		t.Errorf("the first instance was not asked to show its window")
	}

	// Pause for an hour: the status line says until when.
	if err := tr.clickUntil(ctx, conn, item.Bus, mp, "For 1 hour", "the pause in the status line", func() bool {
		items, err := readMenu(conn, item.Bus, mp)
		return err == nil && len(items) > 0 && strings.Contains(items[0].Label, "notifications paused until ")
	}); err != nil {
		t.Fatal(err)
	}

	// Quit takes the UI process with it.
	procs := tree(tr.cmd.Process.Pid)
	if len(procs) != 2 {
		t.Errorf("%d processes with the main window up, want the tray's and the UI's", len(procs))
	}
	if err := tr.clickUntil(ctx, conn, item.Bus, mp, "Quit", "the app to quit after Quit", tr.exited); err != nil {
		t.Fatal(err)
	}
	if err := tr.wait(ctx); err != nil {
		t.Errorf("quit from the menu: %v", err)
	}
	for _, p := range procs {
		if err := until(ctx, "the UI process gone", func() bool { _, err := readStat(p.pid); return err != nil }); err != nil {
			t.Errorf("process %d outlived the tray: %v", p.pid, err)
		}
	}
	if strings.Contains(tr.out.String(), "panic:") {
		t.Errorf("panic in the output:\n%s", tr.out.String())
	}
}

// TestNoTrayHost covers a session bus without a tray host and no session
// bus at all: the app says so, shows its main window, and shuts down
// cleanly on SIGTERM without the systray panic.
func TestNoTrayHost(t *testing.T) {
	need(t, "Xvfb", "dbus-daemon", "xdotool", "import")
	trayBin, _ := binaries(t)
	display := startXvfb(t)
	for _, tc := range []struct {
		name, bus, reason string
	}{
		{"bus without watcher", startBus(t), "no system tray host"},
		{"no session bus", "", "no D-Bus session bus"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := deadline(t)
			tr := startTray(t, trayBin, env(t, display, tc.bus), "--data", filepath.Join(t.TempDir(), "data"))
			if err := tr.until(ctx, "the main window", func() bool { return visibleWindow(display, "AWP") }); err != nil {
				t.Fatal(err)
			}
			if err := tr.until(ctx, "the reason in the log", func() bool { return strings.Contains(tr.out.String(), tc.reason) }); err != nil {
				t.Error(err)
			}
			// The window is up before the node: let the screenshot show it running.
			if err := tr.until(ctx, "the node to start", func() bool { return strings.Contains(tr.out.String(), "node started") }); err != nil {
				t.Error(err)
			}
			screenshot(ctx, t, display, "no-tray-"+strings.ReplaceAll(tc.name, " ", "-")+".png")
			if err := tr.cmd.Process.Signal(sigterm); err != nil {
				t.Fatal(err)
			}
			if err := tr.wait(ctx); err != nil {
				t.Errorf("exit after SIGTERM: %v", err)
			}
			if strings.Contains(tr.out.String(), "the UI loop did not stop") {
				t.Log("Fyne's loop hung at shutdown; the app's watchdog shut it down (docs/app.md, Quitting)")
			}
			if strings.Contains(tr.out.String(), "panic:") {
				t.Errorf("panic in the output:\n%s", tr.out.String())
			}
		})
	}
}

// TestDisplayUnreachable runs the app against a display no X server
// serves: it must exit 1 with one line saying which display it could not
// open, not GLFW's panic.
func TestDisplayUnreachable(t *testing.T) {
	trayBin, _ := binaries(t)
	ctx := deadline(t)
	n := 300 + os.Getpid()%100
	for ; n < 1000; n++ { // a display number with no server
		if _, err := os.Stat(fmt.Sprintf("/tmp/.X11-unix/X%d", n)); os.IsNotExist(err) {
			break
		}
	}
	display := fmt.Sprintf(":%d", n)
	tr := startTray(t, trayBin, env(t, display, ""), "--data", filepath.Join(t.TempDir(), "data"))
	err := tr.wait(ctx)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit: %v, want status 1\n%s", err, tr.out.String())
	}
	out := tr.out.String()
	if want := "awp-tray: cannot open the display " + display; !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	if strings.Contains(out, "panic:") || strings.Contains(out, "goroutine ") {
		t.Errorf("a panic in the output:\n%s", out)
	}
}

// TestUIExitsWhenIdle: the UI process runs only while it is needed. Copy
// my invite starts one (the clipboard is Fyne's) that shows no window; it
// exits once $AWP_TRAY_UI_LINGER passed without a window, leaving the
// tray alone; the next click starts a new one.
func TestUIExitsWhenIdle(t *testing.T) {
	need(t, "Xvfb", "dbus-daemon", "xdotool", "xsel")
	trayBin, _ := binaries(t)
	ctx := deadline(t)
	display, bus, w := desktop(t)
	e := append(env(t, display, bus), "AWP_TRAY_UI_LINGER=2s")
	tr, item := startRegistered(ctx, t, w, trayBin, e, "--data", filepath.Join(t.TempDir(), "data"))
	conn := w.Conn()
	mp := menuPath(conn, item)
	if err := tr.untilReady(ctx); err != nil {
		t.Fatal(err)
	}
	procs := func() int { return len(tree(tr.cmd.Process.Pid)) }
	if err := tr.clickUntil(ctx, conn, item.Bus, mp, "Copy my invite", "a UI process", func() bool { return procs() == 2 }); err != nil {
		t.Fatal(err)
	}
	// The invite stays pastable: on X11 the clipboard's content lives in
	// the process that set it, so the UI stays while it holds it.
	clipboard := func() string {
		cmd := exec.Command("xsel", "--clipboard", "--output")
		cmd.Env = append(os.Environ(), "DISPLAY="+display)
		out, _ := cmd.Output()
		return string(out)
	}
	if err := tr.until(ctx, "the invite on the clipboard", func() bool { return strings.HasPrefix(clipboard(), "awp:") }); err != nil {
		t.Fatal(err)
	}
	if err := tr.until(ctx, "the UI staying for the clipboard", func() bool {
		return strings.Count(tr.out.String(), "the clipboard holds what this process copied: staying") >= 2
	}); err != nil {
		t.Fatal(err)
	}
	if procs() != 2 || !strings.HasPrefix(clipboard(), "awp:") {
		t.Fatalf("two lingers after the copy: %d processes, clipboard %q", procs(), clipboard())
	}
	// Another app takes the clipboard: the UI exits at its next linger.
	other := exec.Command("xsel", "--clipboard", "--input", "--nodetach")
	other.Env = append(os.Environ(), "DISPLAY="+display)
	other.Stdin = strings.NewReader("something else")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Process.Kill(); other.Wait() })
	if err := tr.until(ctx, "the UI process gone", func() bool { return procs() == 1 }); err != nil {
		t.Fatal(err)
	}
	if out := tr.out.String(); !strings.Contains(out, "no window open: the UI process exits") || !strings.Contains(out, `msg="UI process ended"`) {
		t.Errorf("the log does not tell the idle exit:\n%s", out)
	}
	if err := tr.clickUntil(ctx, conn, item.Bus, mp, "Presence", "the Presence window from a new UI process", func() bool {
		return visibleWindow(display, "AWP: Presence")
	}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(tr.out.String(), `msg="UI process started"`); n != 2 {
		t.Errorf("UI processes started: %d, want 2", n)
	}
}
