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
// tray's peer and sends a msg; over D-Bus the tray menu lists the unread
// thread under the status line; a click on it opens the thread's window in
// the UI process. Then the peer asks to run a command: the menu lists the
// request ("smoke-peer wants exec `echo smoke`"), a click opens Approvals,
// and `awp decide` against the tray's peer answers it.
//
// The message counts as shown when both hold: an X window named
// "AWP: <subject>" is mapped, and the UI logged "thread view loaded" for
// that thread with last_id = the id `awp send` returned, i.e. the view's
// rows were built from the line. The screenshot is taken after.
func TestMessageShown(t *testing.T) {
	d := startDesktopTray(t, "--listen", "tcp://127.0.0.1:0")
	ctx, tr, conn, item, mp := d.ctx, d.tr, d.conn, d.item, d.menu
	d.untilStatus("AWP: no peers yet")

	// A headless peer dials the tray and sends a msg.
	trayKey, trayListen := trayStatus(ctx, t, d.awpBin, d.data)
	peerData := filepath.Join(t.TempDir(), "peer")
	run := startTray(t, d.awpBin, d.env, "run", "--data", peerData, "--keyring", "file", "--name", "smoke-peer",
		"--listen", "tcp://127.0.0.1:0", "--dial", trayListen[0])
	const subject, text = "Smoke hello", "hello from a headless awp peer"
	var sent struct{ ID, Th string }
	if err := run.until(ctx, "awp send", func() bool {
		out, err := exec.CommandContext(ctx, d.awpBin, "send", "--data", peerData, "--to", trayKey,
			"--subject", subject, "--text", text).Output()
		return err == nil && json.Unmarshal(out, &sent) == nil && sent.ID != ""
	}); err != nil {
		t.Fatalf("%v\nawp run output:\n%s", err, run.out.String())
	}
	t.Logf("sent %s in %s", sent.ID, sent.Th)

	const threadItem = "smoke-peer: " + subject + " (1)"
	if items, err := tr.untilMenu(ctx, "the unread thread in the tray menu", conn, item.Bus, mp, func(items []menuItem) bool {
		threads, ok := find(items, "Threads")
		_, listed := find(items, threadItem)
		return ok && threads.Label == "Threads (1 unread)" && listed && items[0].Label == "AWP: 1/1 peer up"
	}); err != nil {
		t.Fatalf("%v; menu: %s", err, labels(items))
	}
	// The tooltip is set right after the menu.
	var tip string
	if err := tr.until(ctx, "the tooltip with the unread thread", func() bool {
		tip = tooltip(conn, item)
		return tip == "AWP: 1/1 peer up · 1 unread in 1 thread"
	}); err != nil {
		t.Errorf("%v: tooltip = %q", err, tip)
	}
	title := "AWP: " + subject
	if err := tr.clickUntil(ctx, conn, item.Bus, mp, threadItem, "the thread window", func() bool { return visibleWindow(d.display, title) }); err != nil {
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
	raise(d.display, title)
	screenshot(ctx, t, d.display, "tray-thread-message.png")
	// Viewing the thread read it: the menu no longer lists it.
	if items, err := tr.untilMenu(ctx, "the thread read in the menu", conn, item.Bus, mp, func(items []menuItem) bool {
		_, listed := find(items, threadItem)
		threads, _ := find(items, "Threads")
		return !listed && threads.Label == "Threads"
	}); err != nil {
		t.Fatalf("%v; menu: %s", err, labels(items))
	}
	if err := tr.clickUntil(ctx, conn, item.Bus, mp, "Threads", "the main window after Threads", func() bool { return visibleWindow(d.display, "AWP") }); err != nil {
		t.Fatal(err)
	}
	screenshot(ctx, t, d.display, "tray-threads.png")

	// The peer asks to run a command: the menu says so, a click opens
	// Approvals, and the decision reaches the peer.
	answer := requestEcho(ctx, d.awpBin, peerData, trayKey, "smoke")
	const reqItem = "smoke-peer wants exec `echo smoke`"
	if items, err := tr.untilMenu(ctx, "the request in the tray menu", conn, item.Bus, mp, func(items []menuItem) bool {
		_, listed := find(items, reqItem)
		return listed && strings.HasSuffix(items[0].Label, "· 1 waiting for you")
	}); err != nil {
		t.Fatalf("%v; menu: %s", err, labels(items))
	}
	if err := tr.clickUntil(ctx, conn, item.Bus, mp, reqItem, "the Approvals window", func() bool { return visibleWindow(d.display, "AWP: Approvals") }); err != nil {
		t.Fatal(err)
	}
	raise(d.display, "AWP: Approvals")
	screenshot(ctx, t, d.display, "tray-approval.png")
	var pending []struct{ ID string }
	out, err := exec.CommandContext(ctx, d.awpBin, "pending", "--data", d.data, "--json").Output()
	if err != nil || json.Unmarshal(out, &pending) != nil || len(pending) != 1 {
		t.Fatalf("awp pending: %v %s", err, out)
	}
	if out, err := exec.CommandContext(ctx, d.awpBin, "decide", "--data", d.data, pending[0].ID, "allow").CombinedOutput(); err != nil {
		t.Fatalf("awp decide: %v %s", err, out)
	}
	select {
	case err := <-answer:
		if err != nil {
			t.Errorf("the allowed request: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the request never got its answer")
	}
	if items, err := tr.untilMenu(ctx, "the request gone from the menu", conn, item.Bus, mp, func(items []menuItem) bool {
		_, listed := find(items, reqItem)
		return !listed
	}); err != nil {
		t.Fatalf("%v; menu: %s", err, labels(items))
	}
	if strings.Contains(tr.out.String(), "panic:") {
		t.Errorf("panic in the output:\n%s", tr.out.String())
	}
}
