//go:build smoke

package smoketest

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMessageShown is phase 2: a headless `awp run` peer connects to the
// tray's peer and sends a msg; over D-Bus the tray menu shows it unread;
// Threads opens the main window; a click on the first row opens the
// thread, whose window (found by name with xdotool) shows the message.
//
// The message counts as shown when both hold: an X window named
// "AWP: <subject>" is mapped, and the app logged "thread view loaded"
// for that thread with last_id = the id `awp send` returned, i.e. the
// view's rows were built from the line. The screenshot is taken after.
func TestMessageShown(t *testing.T) {
	need(t, "Xvfb", "dbus-daemon", "xdotool", "import")
	trayBin, awpBin := binaries(t)
	ctx := deadline(t)
	display, bus, w := desktop(t)

	e := env(t, display, bus)
	trayData := filepath.Join(t.TempDir(), "tray")
	tr := startTray(t, trayBin, e, "--data", trayData, "--listen", "tcp://127.0.0.1:0")
	item, err := w.WaitItem(ctx)
	if err != nil {
		t.Fatalf("the tray never registered: %v\n%s", err, tr.out.String())
	}
	conn := w.Conn()
	mp := menuPath(conn, item)
	var items []menuItem
	if err := tr.until(ctx, "the node running", func() bool {
		items, err = readMenu(conn, item.Bus, mp)
		return err == nil && len(items) > 0 && strings.HasPrefix(items[0].Label, "AWP: offline")
	}); err != nil {
		t.Fatalf("%v; menu: %s", err, labels(items))
	}

	// The tray's key and address, through its local API.
	var status struct {
		Key    string   `json:"key"`
		Listen []string `json:"listen"`
	}
	out, err := exec.CommandContext(ctx, awpBin, "status", "--data", trayData).Output()
	if err != nil || json.Unmarshal(out, &status) != nil || len(status.Listen) == 0 {
		t.Fatalf("awp status against the tray: %v %s", err, out)
	}

	// A headless peer dials the tray and sends a msg.
	peerData := filepath.Join(t.TempDir(), "peer")
	run := startTray(t, awpBin, e, "run", "--data", peerData, "--keyring", "file", "--name", "smoke-peer",
		"--listen", "tcp://127.0.0.1:0", "--dial", status.Listen[0])
	_ = run
	const subject, text = "Smoke hello", "hello from a headless awp peer"
	var sent struct{ ID, Th string }
	if err := run.until(ctx, "awp send", func() bool {
		out, err := exec.CommandContext(ctx, awpBin, "send", "--data", peerData, "--to", status.Key,
			"--subject", subject, "--text", text).Output()
		return err == nil && json.Unmarshal(out, &sent) == nil && sent.ID != ""
	}); err != nil {
		t.Fatalf("%v\nawp run output:\n%s", err, run.out.String())
	}
	t.Logf("sent %s in %s", sent.ID, sent.Th)

	if err := tr.until(ctx, "the unread msg in the tray menu", func() bool {
		items, err = readMenu(conn, item.Bus, mp)
		threads, ok := find(items, "Threads")
		return err == nil && ok && threads.Label == "Threads (1 unread)"
	}); err != nil {
		t.Fatalf("%v; menu: %s", err, labels(items))
	}
	if err := tr.clickUntil(ctx, conn, item.Bus, mp, "Threads", "the main window after Threads", func() bool { return visibleWindow(display, "AWP") }); err != nil {
		t.Fatal(err)
	}
	screenshot(ctx, t, display, "tray-threads-unread.png")

	// Click the first row of the threads list (below status, actions and
	// filter: y≈145 in the window) until the thread window is up.
	title := "AWP: " + subject
	if err := tr.until(ctx, "the thread window", func() bool {
		if visibleWindow(display, title) {
			return true
		}
		cmd := exec.CommandContext(ctx, "xdotool", "search", "--onlyvisible", "--name", "^AWP$",
			"mousemove", "--window", "%1", "120", "145", "click", "1")
		cmd.Env = append(cmd.Environ(), "DISPLAY="+display)
		_ = cmd.Run()
		return visibleWindow(display, title)
	}); err != nil {
		t.Fatalf("%v\n%s", err, tr.out.String())
	}
	if err := tr.until(ctx, "the thread view to show the msg", func() bool {
		for _, l := range strings.Split(tr.out.String(), "\n") {
			if strings.Contains(l, `msg="thread view loaded"`) && strings.Contains(l, " th="+sent.Th+" ") && strings.Contains(l, " last_id="+sent.ID) {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("%v\n%s", err, tr.out.String())
	}
	screenshot(ctx, t, display, "tray-thread-message.png")
	if strings.Contains(tr.out.String(), "panic:") {
		t.Errorf("panic in the output:\n%s", tr.out.String())
	}
}
