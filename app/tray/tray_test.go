package tray

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/app/menu"
	"github.com/awp-tray/awp-tray/app/uilink"
	"github.com/awp-tray/awp-tray/internal/nodetest"
	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/localapi"
)

// fakeHost records what the tray shows.
type fakeHost struct {
	mu      sync.Mutex
	menus   [][]menu.Item
	icons   int
	icon    []byte // the last icon
	tooltip string
	click   func(menu.Action)
}

func (h *fakeHost) SetIcon(b []byte) {
	h.mu.Lock()
	h.icons++
	h.icon = b
	h.mu.Unlock()
}

// shown returns the icon shown last.
func (h *fakeHost) shown() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.icon
}

func (h *fakeHost) SetTooltip(s string) {
	h.mu.Lock()
	h.tooltip = s
	h.mu.Unlock()
}

func (h *fakeHost) SetMenu(items []menu.Item, click func(menu.Action)) {
	h.mu.Lock()
	h.menus = append(h.menus, items)
	h.click = click
	h.mu.Unlock()
}

// labels are the top-level labels of the menu shown.
func (h *fakeHost) labels() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.menus) == 0 {
		return nil
	}
	var out []string
	for _, it := range h.menus[len(h.menus)-1] {
		out = append(out, it.Label)
	}
	return out
}

// has reports whether the menu shown has an item labelled l.
func (h *fakeHost) has(l string) bool {
	for _, x := range h.labels() {
		if x == l {
			return true
		}
	}
	return false
}

// clickItem clicks the item labelled l (in a submenu too).
func (h *fakeHost) clickItem(t *testing.T, l string) {
	t.Helper()
	h.mu.Lock()
	items, click := h.menus[len(h.menus)-1], h.click
	h.mu.Unlock()
	var find func([]menu.Item) (menu.Item, bool)
	find = func(items []menu.Item) (menu.Item, bool) {
		for _, it := range items {
			if it.Label == l {
				return it, true
			}
			if c, ok := find(it.Children); ok {
				return c, true
			}
		}
		return menu.Item{}, false
	}
	it, ok := find(items)
	if !ok {
		t.Fatalf("no item %q in %q", l, h.labels())
	}
	click(it.Action)
}

func (h *fakeHost) counts() (menus, icons int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.menus), h.icons
}

// fakeUI records what the tray tells the UI process.
type fakeUI struct {
	mu      sync.Mutex
	sent    []uilink.Msg
	updates []uilink.Msg
}

func (u *fakeUI) Send(m uilink.Msg)   { u.mu.Lock(); u.sent = append(u.sent, m); u.mu.Unlock() }
func (u *fakeUI) Update(m uilink.Msg) { u.mu.Lock(); u.updates = append(u.updates, m); u.mu.Unlock() }

// last returns the last command sent (zero if none).
func (u *fakeUI) last() uilink.Msg {
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.sent) == 0 {
		return uilink.Msg{}
	}
	return u.sent[len(u.sent)-1]
}

func (u *fakeUI) sentCount() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.sent)
}

// fakeNotifier records events.
type fakeNotifier struct {
	events atomic.Int32
	mu     sync.Mutex
	read   []string
}

func (n *fakeNotifier) HandleEvent(peer.Event) { n.events.Add(1) }
func (n *fakeNotifier) Read(th string, from key.PublicKey) {
	n.mu.Lock()
	n.read = append(n.read, th)
	n.mu.Unlock()
}

// newTray starts a Tray whose Boot returns be (or the error boot gives).
func newTray(t *testing.T, boot BootFunc, mod ...func(*Options)) (*Tray, *fakeHost, *fakeUI, *atomic.Int32) {
	t.Helper()
	host, ui := &fakeHost{}, &fakeUI{}
	var quits atomic.Int32
	o := Options{Host: host, UI: ui, Boot: boot, Quit: func() { quits.Add(1) },
		PrefsPath: filepath.Join(t.TempDir(), PrefsName)}
	for _, m := range mod {
		m(&o)
	}
	tr := New(o)
	tr.Start()
	t.Cleanup(tr.Close)
	return tr, host, ui, &quits
}

func bootNode(n localapi.Backend) BootFunc {
	return func(context.Context, bool) (localapi.Backend, error) { return n, nil }
}

// TestTrayFollowsNode: against real nodes, the menu says what needs me
// (an unread thread, a waiting request, peers up of known), a click asks
// the UI process for the right window, a request brings the Approvals
// window up when notifications cannot carry Allow and Deny, and events
// that change nothing shown leave the tray alone.
func TestTrayFollowsNode(t *testing.T) {
	me := nodetest.New(t, "me", 1, func(c *peer.Config) { c.Workspace = t.TempDir() })
	alice := nodetest.New(t, "alice", 2)
	nodetest.Link(t, alice, me)
	n := &fakeNotifier{}
	tr, host, ui, _ := newTray(t, bootNode(me), func(o *Options) { o.PromptWindow = func() bool { return true } })
	tr.SetNotifier(n)
	testsync.Eventually(t, "the menu with alice up", func() bool {
		l := host.labels()
		return len(l) > 0 && l[0] == "AWP: 1/1 peer up"
	})

	res := nodetest.Say(t, alice, me.Key(), "", "Port the auth middleware", "can you take this?")
	item := "alice: Port the auth middleware (1)"
	testsync.Eventually(t, "the unread thread in the menu", func() bool { return host.has(item) })
	if !host.has("Threads (1 unread)") {
		t.Errorf("menu: %q", host.labels())
	}
	testsync.Eventually(t, "the tooltip with the unread thread", func() bool {
		host.mu.Lock()
		defer host.mu.Unlock()
		return host.tooltip == "AWP: 1/1 peer up · 1 unread in 1 thread"
	})
	host.clickItem(t, item)
	if m := ui.last(); m.Op != uilink.OpThread || m.Th != res.Th || !m.From.IsZero() {
		t.Errorf("click on the thread sent %+v", m)
	}
	if n.events.Load() == 0 {
		t.Error("the notifier got no event")
	}

	answer := nodetest.ExecRequest(alice, me.Key(), "echo approved")
	req := "alice wants exec `echo approved`"
	testsync.Eventually(t, "the request in the menu", func() bool { return host.has(req) })
	var id string
	for _, p := range me.Pending() {
		id = p.ID
	}
	testsync.Eventually(t, "the Approvals window asked for", func() bool {
		m := ui.last()
		return m.Op == uilink.OpApprovals && m.ID == id
	})
	if l := host.labels(); l[0] != "AWP: 1/1 peer up · 1 waiting for you" {
		t.Errorf("status = %q", l[0])
	}
	host.clickItem(t, "Approvals (1 pending)")
	if m := ui.last(); m.Op != uilink.OpApprovals || m.ID != "" {
		t.Errorf("Approvals item sent %+v", m)
	}
	host.clickItem(t, req)
	if m := ui.last(); m.Op != uilink.OpApprovals || m.ID != id {
		t.Errorf("click on the request sent %+v", m)
	}
	if err := me.Decide(id, peer.Decision{Allow: true, By: "test"}); err != nil {
		t.Fatal(err)
	}
	if err := <-answer; err != nil {
		t.Fatalf("allowed request: %v", err)
	}
	testsync.Eventually(t, "the request gone from the menu", func() bool { return !host.has(req) })

	if err := me.MarkRead(res.Th, key.PublicKey{}); err != nil {
		t.Fatal(err)
	}
	testsync.Eventually(t, "the thread read", func() bool { return !host.has(item) })

	// Events that change nothing the menu shows do not touch the tray.
	tr.reload(menu.PartAll) // catch up with whatever changed last
	tr.renderMu.Lock()      // and with a render in flight
	menus, icons := host.counts()
	tr.renderMu.Unlock()
	tr.reload(menu.PartAll)
	if m, i := host.counts(); m != menus || i != icons {
		t.Errorf("an unchanged state re-set the tray: menus %d→%d, icons %d→%d", menus, m, icons, i)
	}
	for _, want := range []menu.Kind{menu.ShowPresence, menu.ShowSettings, menu.CopyInvite, menu.AddPeer, menu.ShowThreads} {
		tr.Do(menu.Action{Kind: want})
	}
	var ops []string
	ui.mu.Lock()
	for _, m := range ui.sent[len(ui.sent)-5:] {
		ops = append(ops, m.Op)
	}
	ui.mu.Unlock()
	if strings.Join(ops, " ") != "presence settings invite addpeer show" {
		t.Errorf("window items sent %v", ops)
	}
}

// Pausing from the menu: notifications are paused, the status line says
// until when, the UI hears it, the pause is kept across a restart, and
// the tray redraws when it ends.
func TestTrayPause(t *testing.T) {
	var clock atomic.Int64
	start := time.Date(2026, 3, 5, 15, 4, 0, 0, time.UTC)
	clock.Store(start.UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()).UTC() }
	prefsPath := filepath.Join(t.TempDir(), PrefsName)
	opts := func(o *Options) { o.Now, o.Loc, o.PrefsPath = now, time.UTC, prefsPath }
	tr, host, ui, _ := newTray(t, func(context.Context, bool) (localapi.Backend, error) {
		return nil, errors.New("no node in this test")
	}, opts)
	if tr.Paused() {
		t.Fatal("paused at start")
	}
	host.clickItem(t, menu.LabelPauseHour)
	if !tr.Paused() || !strings.Contains(host.labels()[0], "notifications paused until 16:04") || !host.has(menu.LabelResume) {
		t.Fatalf("after For 1 hour: paused %v, menu %q", tr.Paused(), host.labels())
	}
	ui.mu.Lock()
	u := ui.updates[len(ui.updates)-1]
	ui.mu.Unlock()
	if u.Op != uilink.OpPause || u.Pause == nil || !u.Pause.Until.Equal(start.Add(time.Hour)) {
		t.Errorf("the UI heard %+v", u)
	}

	// Kept: a new tray on the same preferences is paused.
	again := New(Options{UI: &fakeUI{}, PrefsPath: prefsPath, Now: now})
	if !again.Paused() {
		t.Error("the pause was not kept")
	}
	again.Close()

	// Until resumed, then Resume.
	host.clickItem(t, menu.LabelResume)
	host.clickItem(t, menu.LabelPauseUntil)
	if !tr.Paused() || !strings.HasSuffix(host.labels()[0], "notifications paused") {
		t.Errorf("until resumed: %q", host.labels()[0])
	}
	host.clickItem(t, menu.LabelResume)
	if tr.Paused() || !host.has(menu.LabelPause) {
		t.Errorf("after Resume: paused %v, %q", tr.Paused(), host.labels())
	}

	// A pause that ends soon redraws the menu when it does.
	tr.SetPause(menu.Pause{Until: now().Add(50 * time.Millisecond)})
	if !host.has(menu.LabelResume) {
		t.Fatal("not paused")
	}
	clock.Add(int64(time.Second))
	testsync.Eventually(t, "the menu after the pause ended", func() bool { return host.has(menu.LabelPause) })
}

// A keyring failure asks the person (through the UI) about a key file;
// yes boots again with it, no quits. Another failure says why in the menu
// and shows the main window.
func TestTrayBootKeyring(t *testing.T) {
	me := nodetest.New(t, "me", 1)
	var boots []bool
	var mu sync.Mutex
	boot := func(_ context.Context, fileKey bool) (localapi.Backend, error) {
		mu.Lock()
		defer mu.Unlock()
		boots = append(boots, fileKey)
		if !fileKey {
			return nil, fmt.Errorf("%w: %w", ErrKeyring, errors.New("keystore: the OS keyring is locked"))
		}
		return me, nil
	}
	tr, host, ui, quits := newTray(t, boot)
	testsync.Eventually(t, "the keyring question", func() bool {
		s := tr.UIState()
		return s[1].State == uilink.BootKeyring && ui.last().Op == uilink.OpShow
	})
	if s := tr.UIState(); !strings.Contains(s[1].Text, "the OS keyring is locked") {
		t.Errorf("boot state = %+v", s[1])
	}
	if l := host.labels(); l[0] != "AWP: not running: the OS keyring is unavailable" {
		t.Errorf("status = %q", l[0])
	}
	tr.HandleUI(uilink.Msg{Op: uilink.OpFileKey, OK: true})
	testsync.Eventually(t, "the node booted with the key file", func() bool {
		return tr.UIState()[1].State == uilink.BootReady && strings.HasPrefix(host.labels()[0], "AWP: no peers yet")
	})
	if s := tr.UIState(); !s[1].OK {
		t.Errorf("ready without saying the key is in a file: %+v", s[1])
	}
	mu.Lock()
	if fmt.Sprint(boots) != "[false true]" {
		t.Errorf("boots = %v", boots)
	}
	mu.Unlock()
	// An answer nobody asked for changes nothing.
	tr.HandleUI(uilink.Msg{Op: uilink.OpFileKey, OK: false})
	if quits.Load() != 0 {
		t.Error("an unasked answer quit")
	}

	// No: quit.
	tr2, _, _, quits2 := newTray(t, func(context.Context, bool) (localapi.Backend, error) {
		return nil, fmt.Errorf("%w: locked", ErrKeyring)
	})
	testsync.Eventually(t, "the question", func() bool { return tr2.UIState()[1].State == uilink.BootKeyring })
	tr2.HandleUI(uilink.Msg{Op: uilink.OpFileKey, OK: false})
	if quits2.Load() != 1 {
		t.Errorf("quits after no = %d", quits2.Load())
	}

	// Another failure.
	tr3, host3, ui3, _ := newTray(t, func(context.Context, bool) (localapi.Backend, error) {
		return nil, errors.New("peer: the store is held by another process")
	})
	testsync.Eventually(t, "the failure shown", func() bool {
		return tr3.UIState()[1].State == uilink.BootFailed && ui3.last().Op == uilink.OpShow
	})
	if l := host3.labels(); l[0] != "AWP: not running: peer: the store is held by another process" {
		t.Errorf("status = %q", l[0])
	}
}

// The UI says which thread window is in front (notifications skip that
// thread and withdraw its notification); the UI ending forgets it; Quit
// from the menu or the UI quits once.
func TestTrayFocusAndQuit(t *testing.T) {
	tr, host, _, quits := newTray(t, func(context.Context, bool) (localapi.Backend, error) { return nil, errors.New("none") })
	n := &fakeNotifier{}
	tr.SetNotifier(n)
	if _, _, ok := tr.Focused(); ok {
		t.Fatal("focused at start")
	}
	tr.HandleUI(uilink.Msg{Op: uilink.OpFocus, Th: "thr_f", From: key.MustParsePublic("ed25519:xAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")})
	if th, from, ok := tr.Focused(); !ok || th != "thr_f" || from.String() != "ed25519:xAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" {
		t.Errorf("Focused = %q %q %v", th, from, ok)
	}
	n.mu.Lock()
	if len(n.read) != 1 || n.read[0] != "thr_f" {
		t.Errorf("read = %v", n.read)
	}
	n.mu.Unlock()
	tr.UIExited()
	if _, _, ok := tr.Focused(); ok {
		t.Error("focus kept after the UI ended")
	}
	tr.HandleUI(uilink.Msg{Op: uilink.OpPause, Pause: &menu.Pause{Forever: true}})
	if !tr.Paused() {
		t.Error("a pause from Settings did not pause")
	}
	host.clickItem(t, menu.LabelQuit)
	tr.HandleUI(uilink.Msg{Op: uilink.OpQuit})
	if quits.Load() != 1 {
		t.Errorf("quits = %d, want 1", quits.Load())
	}
}

// Without a system tray (Host nil) the tray still boots and follows the
// node; nothing is drawn.
func TestTrayWithoutHost(t *testing.T) {
	me := nodetest.New(t, "me", 1)
	ui := &fakeUI{}
	tr := New(Options{UI: ui, Boot: bootNode(me), Quit: func() {}})
	tr.Start()
	defer tr.Close()
	testsync.Eventually(t, "booted", func() bool { return tr.State().Booted })
	if ui.sentCount() != 0 {
		t.Errorf("commands without a reason: %+v", ui.sent)
	}
}
