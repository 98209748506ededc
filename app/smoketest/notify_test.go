//go:build smoke

package smoketest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// dunst is a notification server on the test's display and bus, with a
// dmenu script that picks a named action from its context menu.
type dunst struct {
	dir string
	env []string
}

func startDunst(t *testing.T, e []string) *dunst {
	t.Helper()
	d := &dunst{dir: t.TempDir(), env: e}
	script := fmt.Sprintf("#!/bin/sh\ncat > %[1]s/menu\ngrep -m1 -F \"#$(cat %[1]s/pick)\" %[1]s/menu\n", d.dir)
	rc := fmt.Sprintf("[global]\n    dmenu = %s/dmenu.sh\n    notification_limit = 0\n[urgency_low]\n    timeout = 0\n[urgency_normal]\n    timeout = 0\n[urgency_critical]\n    timeout = 0\n", d.dir)
	for name, body := range map[string]string{"dmenu.sh": script, "dunstrc": rc, "pick": ""} {
		if err := os.WriteFile(filepath.Join(d.dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	log, err := os.Create(filepath.Join(d.dir, "dunst.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("dunst", "-config", filepath.Join(d.dir, "dunstrc"))
	cmd.Env, cmd.Stdout, cmd.Stderr = e, log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		log.Close()
	})
	return d
}

// ctl runs dunstctl on the test's bus.
func (d *dunst) ctl(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "dunstctl", args...)
	cmd.Env = d.env
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

// displayed is how many notifications dunst shows.
func (d *dunst) displayed(ctx context.Context) int {
	out, err := d.ctl(ctx, "count", "displayed")
	if err != nil {
		return -1
	}
	n, _ := strconv.Atoi(out)
	return n
}

// TestNotificationsWithoutWindow: with no window open, a message and a
// request reach the person as notifications (dunst), the request is
// allowed from its notification, and no UI process is started for any of
// it; a click on the message's notification then opens its thread.
func TestNotificationsWithoutWindow(t *testing.T) {
	need(t, "Xvfb", "dbus-daemon", "xdotool", "dunst", "dunstctl")
	trayBin, awpBin := binaries(t)
	ctx := deadline(t)
	display, bus, w := desktop(t)
	e := env(t, display, bus)
	d := startDunst(t, e)
	if err := until(ctx, "dunst on the bus", func() bool { _, err := d.ctl(ctx, "count"); return err == nil }); err != nil {
		t.Fatal(err)
	}

	trayData := filepath.Join(t.TempDir(), "tray")
	tr, _ := startRegistered(ctx, t, w, trayBin, e, "--data", trayData)
	if err := tr.untilReady(ctx); err != nil {
		t.Fatal(err)
	}
	peerDir := idlePeer(ctx, t, tr, awpBin, trayData, e)
	trayKey, _ := trayStatus(ctx, t, awpBin, trayData)
	procs := func() int { return len(tree(tr.cmd.Process.Pid)) }

	// A message: one notification, no window.
	out, err := exec.CommandContext(ctx, awpBin, "send", "--data", peerDir, "--to", trayKey,
		"--subject", "Build is red", "--text", "arm64 fails").Output()
	var sent struct{ ID, Th string }
	if err != nil || json.Unmarshal(out, &sent) != nil {
		t.Fatalf("awp send: %v %s", err, out)
	}
	if err := tr.until(ctx, "the message's notification", func() bool { return d.displayed(ctx) == 1 }); err != nil {
		t.Fatal(err)
	}

	// A request: a notification with Allow once; allowed from it.
	answer := requestEcho(ctx, awpBin, peerDir, trayKey, "allowed-from-dunst")
	if err := tr.until(ctx, "the request's notification", func() bool { return d.displayed(ctx) == 2 }); err != nil {
		t.Fatal(err)
	}
	if n := procs(); n != 1 {
		t.Errorf("%d processes after a message and a request, want the tray's alone (no window)", n)
	}
	if err := os.WriteFile(filepath.Join(d.dir, "pick"), []byte("Allow once"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ctl(ctx, "context"); err != nil {
		t.Fatalf("dunstctl context: %v", err)
	}
	select {
	case err := <-answer:
		if err != nil {
			t.Fatalf("the request allowed from its notification: %v\n%s", err, tr.out.String())
		}
	case <-time.After(time.Minute):
		b, _ := os.ReadFile(filepath.Join(d.dir, "menu"))
		t.Fatalf("no answer after Allow once; dunst's menu was:\n%s", b)
	}
	if n := procs(); n != 1 {
		t.Errorf("%d processes after the decision, want 1", n)
	}

	// A click on the message's notification opens its thread.
	if err := tr.until(ctx, "the request's notification withdrawn", func() bool { return d.displayed(ctx) == 1 }); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ctl(ctx, "action", "0"); err != nil {
		t.Fatalf("dunstctl action: %v", err)
	}
	if err := tr.until(ctx, "the thread's window", func() bool { return visibleWindow(display, "AWP: Build is red") }); err != nil {
		t.Fatalf("%v\n%s", err, tr.out.String())
	}
	raise(display, "AWP: Build is red")
	screenshot(ctx, t, display, "tray-notification-click.png")
}
