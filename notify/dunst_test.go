//go:build linux

package notify_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/notify"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

// dunstChildEnv marks the test binary re-executed under dbus-run-session
// and xvfb-run.
const dunstChildEnv = "AWP_NOTIFY_DUNST_CHILD"

// TestDunst runs the Manager and the DBus backend against a real
// notification server: dunst, on a private session bus and a virtual X
// display. It checks what dunst shows (dunstctl history) and takes actions
// as the person would (dunstctl action, and dunst's dmenu hook for the
// named actions).
func TestDunst(t *testing.T) {
	if os.Getenv(dunstChildEnv) != "" {
		dunstChild(t)
		return
	}
	if testing.Short() {
		t.Skip("real-server test skipped in -short mode")
	}
	for _, tool := range []string{"dunst", "dunstctl", "busctl", "dbus-send", "dbus-run-session", "xvfb-run", "Xvfb", "xauth"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("real-server test needs %s (apt-get install dunst xvfb xauth dbus-daemon dbus-bin systemd): %v", tool, err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "xvfb-run", "-a", "dbus-run-session", "--",
		os.Args[0], "-test.run=^TestDunst$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), dunstChildEnv+"=1")
	// Its own process group, so that a timeout kills Xvfb, the bus and
	// dunst too, not only xvfb-run.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	t.Logf("under dbus-run-session and xvfb-run:\n%s", out)
	if err != nil {
		t.Fatalf("real-server test: %v", err)
	}
	if !bytes.Contains(out, []byte("--- PASS: TestDunst")) {
		t.Fatal("real-server test did not pass (skipped?)")
	}
}

// dunstChild is TestDunst inside the private session.
func dunstChild(t *testing.T) {
	d := startDunst(t)
	b, err := notify.DBus(notify.DBusConfig{Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	d.waitUp(t, b)
	caps, err := b.Capabilities(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("dunst capabilities: %v", caps)

	p := newDunstPeer(t)
	rec := &recordingBackend{Backend: b}
	opened := make(chan string, 10)
	m := &notify.Manager{
		Backend:    rec,
		Self:       p.Self(),
		Logger:     testLogger(t),
		Rules:      notify.Rules{MinInterval: -1}, // the wall clock runs here: no waiting on the throttle
		Decide:     p.Decide,
		OpenThread: func(th string, from key.PublicKey) { opened <- th + "|" + from.String() },
	}
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	go func() {
		for ev := range p.Events() {
			m.HandleEvent(ev)
		}
	}()

	// A message; a click on it (the default action) opens its thread.
	thA := p.Send(t, "", "Deploy the API", "build is green")
	rec.waitSent(t, 1)
	dunstctl(t, "action", "0")
	if got := waitChan(t, opened, "OpenThread"); got != thA+"|" {
		t.Errorf("click opened %q, want %q", got, thA+"|")
	}

	// Two messages in one thread: one notification, replaced.
	thB := p.Send(t, "", "Port auth", "first")
	p.Send(t, thB, "", "second <b>bold</b> & more")
	p.Send(t, "", "Fix flaky test", "done")
	rec.waitSent(t, 4)

	// A request: "Allow once" through dunst's context menu.
	apr1 := p.Ask(t)
	rec.waitSent(t, 5)
	d.pick(t, "Allow once")
	if got := p.Decided(t, apr1); got != notify.AllowOnce() {
		t.Errorf("decision from dunst %+v, want %+v", got, notify.AllowOnce())
	}
	if menu := d.menu(t); !strings.Contains(menu, "#Deny") || !strings.Contains(menu, "#Open Approvals") {
		t.Errorf("context menu lacks the request's actions:\n%s", menu)
	}

	// Two more threads: the fourth busy one folds them all into a summary.
	n := len(rec.sent())
	p.Send(t, "", "Bump deps", "go 1.26")
	p.Send(t, "", "Docs", "typo")
	rec.waitSent(t, n+2)

	hist := d.history(t)
	t.Logf("dunst history: %q", hist)
	want := map[string]string{
		"Alice: Deploy the API":       "build is green",
		"Alice: Port auth":            escapeIf(caps, "second <b>bold</b> & more") + "\n(2 new messages)",
		"Alice: Fix flaky test":       "done",
		"Alice: Bump deps":            "go 1.26", // shown, then withdrawn into the summary
		"5 new messages in 4 threads": "Alice: Docs\nAlice: Bump deps\nAlice: Fix flaky test\nand 1 more",
	}
	if got := hist["Alice asks to fs:read"]; len(got) != 1 || !strings.HasPrefix(got[0], "note.txt") {
		t.Errorf("dunst shows the request as %q", got)
	}
	delete(hist, "Alice asks to fs:read")
	for title, body := range want {
		got := hist[title]
		if len(got) != 1 || got[0] != body {
			t.Errorf("dunst shows %q as %q, want once as %q", title, got, body)
		}
	}
	if len(hist) != len(want) {
		t.Errorf("dunst history %q, want only %v", hist, want)
	}

	// The server goes away with a request on screen and comes back: the
	// request is shown again and "Deny" still works.
	n = len(rec.sent())
	apr2 := p.Ask(t)
	rec.waitSent(t, n+1)
	d.restart(t, b)
	rec.waitSent(t, n+2)
	d.pick(t, "Deny")
	if got := p.Decided(t, apr2); got != notify.Deny() {
		t.Errorf("decision after restart %+v, want %+v", got, notify.Deny())
	}
	p.Send(t, "", "After restart", "still here")
	rec.waitSent(t, n+3)
	hist = d.history(t)
	if got := hist["Alice: After restart"]; len(got) != 1 || got[0] != "still here" {
		t.Errorf("after restart dunst shows %q", hist)
	}
}

// dunstPeer is where the real-server test's events come from: the node the
// tray app runs (Self, Events, Decide) and a remote peer writing to it
// (Send, Ask).
type dunstPeer interface {
	Self() key.PublicKey
	Events() <-chan peer.Event
	// Send has the remote peer send a msg; th "" opens a new thread. It
	// returns the thread.
	Send(t *testing.T, th, subject, text string) string
	// Ask has the remote peer make a request that waits for the person;
	// it returns the approval id.
	Ask(t *testing.T) string
	Decide(id string, d peer.Decision) error
	// Decided waits for the decision taken on approval id.
	Decided(t *testing.T, id string) peer.Decision
}

// newDunstPeer returns the event source of TestDunst: two real nodes.
func newDunstPeer(t *testing.T) dunstPeer { return newNodePeer(t) }

// nodePeer is the tray's node ("Bob", local) receiving from Alice's node
// (remote) over tcp on 127.0.0.1. Alice's requests are fs:read of a file
// in Bob's workspace, without a grant, so Bob's node asks the person.
type nodePeer struct {
	local, remote *peer.Node
	events        chan peer.Event

	mu sync.Mutex
	// mu guards:
	decided map[string]chan peer.Decision // approval id → its decision, from EventApprovalDone
}

func newNodePeer(t *testing.T) *nodePeer {
	p := &nodePeer{events: make(chan peer.Event, 256), decided: make(map[string]chan peer.Decision)}
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "note.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.local = startNode(t, "Bob", ws)
	p.remote = startNode(t, "Alice", t.TempDir())
	sub, cancel := p.local.Subscribe(256)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(p.events)
		for ev := range sub {
			if ev.Type == peer.EventApprovalDone && ev.Approval != nil && ev.Decision != nil {
				p.decidedChan(ev.Approval.ID) <- *ev.Decision
			}
			p.events <- ev
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	ctx, stop := context.WithTimeout(t.Context(), 20*time.Second)
	defer stop()
	if _, err := p.remote.Connect(ctx, p.local.ListenAddrs()[0]); err != nil {
		t.Fatalf("connect: %v", err)
	}
	return p
}

func startNode(t *testing.T, name, workspace string) *peer.Node {
	k, err := key.NewPrivate()
	if err != nil {
		t.Fatal(err)
	}
	n, err := peer.New(peer.Config{
		Key: k, DataDir: t.TempDir(), Name: name, Listen: []string{"tcp://127.0.0.1:0"},
		Workspace: workspace, Logger: testLogger(t).With("node", name),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

func (p *nodePeer) Self() key.PublicKey       { return p.local.Key() }
func (p *nodePeer) Events() <-chan peer.Event { return p.events }

func (p *nodePeer) Decide(id string, d peer.Decision) error { return p.local.Decide(id, d) }

func (p *nodePeer) Send(t *testing.T, th, subject, text string) string {
	part, _ := json.Marshal(map[string]string{"k": "text", "text": text})
	res, err := p.remote.Send(t.Context(), peer.SendRequest{
		To: p.local.Key(), Th: th, Subject: subject, Parts: []json.RawMessage{part},
	})
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	return res.Th
}

func (p *nodePeer) Ask(t *testing.T) string {
	before := map[string]bool{}
	for _, r := range p.local.Pending() {
		before[r.ID] = true
	}
	go p.remote.Request(t.Context(), p.local.Key(), "application/vnd.awp.fs-read+json",
		json.RawMessage(`{"path":"note.txt"}`), "")
	var id string
	testsync.Eventually(t, "the request pending on the local node", func() bool {
		for _, r := range p.local.Pending() {
			if !before[r.ID] {
				id = r.ID
				return true
			}
		}
		return false
	})
	return id
}

func (p *nodePeer) Decided(t *testing.T, id string) peer.Decision {
	return waitChan(t, p.decidedChan(id), "decision on "+id)
}

func (p *nodePeer) decidedChan(id string) chan peer.Decision {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.decided[id] == nil {
		p.decided[id] = make(chan peer.Decision, 1)
	}
	return p.decided[id]
}

// recordingBackend counts what the Manager sent, so the test can wait for
// it before asking dunst.
type recordingBackend struct {
	notify.Backend
	mu sync.Mutex
	// mu guards:
	ns []notify.Notification
}

func (r *recordingBackend) Notify(ctx context.Context, n notify.Notification) (uint32, error) {
	id, err := r.Backend.Notify(ctx, n)
	if err == nil {
		r.mu.Lock()
		r.ns = append(r.ns, n)
		r.mu.Unlock()
	}
	return id, err
}

func (r *recordingBackend) sent() []notify.Notification {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]notify.Notification(nil), r.ns...)
}

func (r *recordingBackend) waitSent(t *testing.T, n int) {
	t.Helper()
	testsync.Eventually(t, fmt.Sprintf("%d notifications sent", n), func() bool { return len(r.sent()) >= n })
}

// dunst is a dunst process with a config in a temp dir; its dmenu is a
// script that picks the line named in the file "pick".
type dunst struct {
	dir string
	cmd *exec.Cmd
}

func startDunst(t *testing.T) *dunst {
	d := &dunst{dir: t.TempDir()}
	script := fmt.Sprintf("#!/bin/sh\ncat > %[1]s/menu\ngrep -m1 -F \"#$(cat %[1]s/pick)\" %[1]s/menu\n", d.dir)
	rc := fmt.Sprintf(`[global]
    dmenu = %s/dmenu.sh
    history_length = 100
    notification_limit = 0
    stack_duplicates = false
[urgency_low]
    timeout = 0
[urgency_normal]
    timeout = 0
[urgency_critical]
    timeout = 0
`, d.dir)
	for name, body := range map[string]string{"dmenu.sh": script, "dunstrc": rc, "pick": ""} {
		if err := os.WriteFile(filepath.Join(d.dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	d.start(t)
	t.Cleanup(func() { d.stop() })
	return d
}

func (d *dunst) start(t *testing.T) {
	t.Helper()
	log, err := os.OpenFile(filepath.Join(d.dir, "dunst.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	d.cmd = exec.Command("dunst", "-config", filepath.Join(d.dir, "dunstrc"))
	d.cmd.Stdout, d.cmd.Stderr = log, log
	if err := d.cmd.Start(); err != nil {
		t.Fatalf("start dunst: %v", err)
	}
}

func (d *dunst) stop() {
	if d.cmd != nil && d.cmd.Process != nil {
		d.cmd.Process.Kill()
		d.cmd.Wait()
		d.cmd = nil
	}
}

// waitUp waits until dunst owns the name.
func (d *dunst) waitUp(t *testing.T, b *notify.DBusBackend) {
	t.Helper()
	testsync.Eventually(t, "dunst on the bus", func() bool {
		name, _, err := b.ServerInfo(t.Context())
		return err == nil && name == "dunst"
	})
}

// restart kills dunst, waits until its name is gone, and starts it again.
func (d *dunst) restart(t *testing.T, b *notify.DBusBackend) {
	t.Helper()
	d.stop()
	testsync.Eventually(t, "dunst gone", func() bool {
		_, _, err := b.ServerInfo(t.Context())
		return err != nil
	})
	d.start(t)
	d.waitUp(t, b)
}

// pick opens dunst's context menu; the dmenu script picks the line of the
// action labelled label.
func (d *dunst) pick(t *testing.T, label string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(d.dir, "pick"), []byte(label), 0o644); err != nil {
		t.Fatal(err)
	}
	dunstctl(t, "context")
}

// menu is what dunst last offered dmenu.
func (d *dunst) menu(t *testing.T) string {
	b, err := os.ReadFile(filepath.Join(d.dir, "menu"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// history closes everything on screen (dunst keeps only closed ones) and
// returns dunst's history: the bodies shown under each title. dunstctl
// 1.9 cannot clear the history: call it once per dunst process.
func (d *dunst) history(t *testing.T) map[string][]string {
	t.Helper()
	dunstctl(t, "close-all")
	var h struct {
		Data [][]map[string]struct {
			Data json.RawMessage `json:"data"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(dunstctl(t, "history")), &h); err != nil || len(h.Data) != 1 {
		t.Fatalf("dunstctl history: %v", err)
	}
	out := map[string][]string{}
	for _, n := range h.Data[0] {
		var title, body string
		json.Unmarshal(n["summary"].Data, &title)
		json.Unmarshal(n["body"].Data, &body)
		out[title] = append(out[title], body)
	}
	return out
}

func dunstctl(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), "dunstctl", args...).Output()
	if err != nil {
		t.Fatalf("dunstctl %v: %v", args, err)
	}
	return string(out)
}

// escapeIf is s as a server that wants markup must receive it.
func escapeIf(caps []string, s string) string {
	for _, c := range caps {
		if c == notify.CapBodyMarkup {
			return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
		}
	}
	return s
}

func waitChan[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("gave up waiting for %s", what)
		panic("unreachable")
	}
}
