//go:build smoke

package smoketest

import (
	"image"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/app/menu"
	"github.com/awp-tray/awp-tray/app/trayhost/watchertest"
)

// TestXfcePanel runs the tray in xfce4-panel's system tray, the panel
// being the StatusNotifierWatcher as on an Xfce desktop, and checks what
// shows on the screen (checkXfcePanel). Screenshots:
// build/screenshots/xfce-*.png.
func TestXfcePanel(t *testing.T) {
	checkXfcePanel(t, false, "xfce-")
}

// TestXfcePanelOurWatcher is TestXfcePanel with the watcher the other
// smoke tests use (app/trayhost/watchertest) owning the watcher's name and
// xfce4-panel only the host: a real host finds the tray through it.
// Screenshots: build/screenshots/xfce-ourwatcher-*.png.
func TestXfcePanelOurWatcher(t *testing.T) {
	checkXfcePanel(t, true, "xfce-ourwatcher-")
}

// checkXfcePanel checks what a person sees of the tray in xfce4-panel:
// the icon appears in the panel, its tooltip says the state and follows
// it (xfce4-panel reads the tooltip again only when told with
// NewToolTip), a click opens the menu, the icon turns teal when a peer is
// up and gets the red badge when a message arrives, the menu then holds
// the unread thread, and choosing it in the panel's menu opens its
// window. Screenshots are saved as prefix + what.
func checkXfcePanel(t *testing.T, ownWatcher bool, prefix string) {
	trayBin, awpBin := binaries(t)
	ctx := deadline(t)
	x := startXfce(ctx, t, ownWatcher)

	empty, err := x.screen()
	if err != nil {
		t.Fatal(err)
	}
	empty.save(t, prefix+"empty.png")
	// Nothing on the screen has the icon's colours before it is there:
	// the counts below are the icon's.
	if n := empty.count(image.Rectangle{}, iconColors); n != 0 {
		t.Fatalf("%d pixels of the icon's colours before the tray started", n)
	}
	if n := empty.count(image.Rectangle{}, near(trayPalette.Badge, colorTolerance)); n != 0 {
		t.Fatalf("%d pixels of the badge's colour before the tray started", n)
	}

	e := env(t, x.display, x.bus)
	trayData := filepath.Join(t.TempDir(), "tray")
	tr := startTray(t, trayBin, e, "--data", trayData, "--listen", "tcp://127.0.0.1:0")
	item, err := x.item(ctx, tr)
	if err != nil {
		t.Fatalf("%v\n%s", err, tr.out.String())
	}
	mp := menuPath(x.conn, item)
	if items, err := tr.untilMenu(ctx, "the node running", x.conn, item.Bus, mp, func(items []menuItem) bool {
		return len(items) > 0 && items[0].Label == "AWP: no peers yet" && tooltip(x.conn, item) == "AWP: no peers yet"
	}); err != nil {
		t.Fatalf("%v; menu: %s", err, labels(items))
	}

	// The icon shows in the panel, grey: no peer up.
	s, err := x.waitScreen(ctx, tr, "the grey icon in the panel", func(s shot) bool {
		return s.count(x.panel, near(trayPalette.Offline, colorTolerance)) >= minDiscPixels
	})
	if err != nil {
		t.Fatal(err)
	}
	s.save(t, prefix+"icon.png")
	iconBox := s.bounds(x.panel, iconColors)
	at := image.Pt((iconBox.Min.X+iconBox.Max.X)/2, (iconBox.Min.Y+iconBox.Max.Y)/2)
	t.Logf("icon at %v", iconBox)
	if n := s.count(image.Rectangle{}, near(trayPalette.Badge, colorTolerance)); n != 0 {
		t.Errorf("%d badge pixels with nothing unread", n)
	}
	if x.watcher != nil {
		// The panel found the item through our watcher, not one of its own.
		var owner string
		if err := x.conn.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, watchertest.Name).Store(&owner); err != nil || owner != x.watcher.Conn().Names()[0] {
			t.Errorf("%s is owned by %q (%v), not by our watcher %v", watchertest.Name, owner, err, x.watcher.Conn().Names())
		}
		if got := x.watcher.Items(); len(got) != 1 || got[0].Bus != item.Bus {
			t.Errorf("our watcher has %+v, the tray is %s", got, item.Bus)
		}
	}

	// The tooltip says the state.
	s, idleWidth, err := x.tooltip(ctx, tr, at, "the tooltip", func(int) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	s.save(t, prefix+"tooltip.png")
	t.Logf("tooltip text %d px wide", idleWidth)
	if n := s.count(x.below(), brighter(menuLight)); n >= minMenuPixels {
		t.Fatalf("%d light pixels under the panel before any click: the menu check below would pass with no menu", n)
	}

	// A click opens the menu.
	s, idleMenu, err := x.openMenu(ctx, tr, at, "the menu open after a click on the icon")
	if err != nil {
		t.Fatal(err)
	}
	s.save(t, prefix+"menu.png")
	t.Logf("menu at %v", idleMenu)
	if err := x.closeMenu(ctx, tr); err != nil {
		t.Fatal(err)
	}

	// Only the tooltip changes (the icon does not): the host must be told.
	// "AWP: no peers yet · notifications paused" is twice as wide as "AWP:
	// no peers yet"; a host that missed the change shows the old one.
	if err := tr.clickUntil(ctx, x.conn, item.Bus, mp, menu.LabelPauseUntil, "notifications paused", func() bool {
		return strings.HasSuffix(tooltip(x.conn, item), "· notifications paused")
	}); err != nil {
		t.Fatal(err)
	}
	s, width, err := x.tooltip(ctx, tr, at, "the tooltip to say notifications are paused", func(w int) bool { return w > idleWidth*3/2 })
	if err != nil {
		t.Fatalf("%v: the tooltip shown is %d px wide, as before (%d px): the panel was not told that it changed", err, width, idleWidth)
	}
	s.save(t, prefix+"tooltip-paused.png")

	// A peer comes up: the icon turns teal, without a badge.
	peerData, _ := idlePeerRun(ctx, t, tr, awpBin, trayData, e)
	s, err = x.waitScreen(ctx, tr, "the teal icon", func(s shot) bool {
		return s.count(x.panel, near(trayPalette.Online, colorTolerance)) >= minDiscPixels
	})
	if err != nil {
		t.Fatal(err)
	}
	s.save(t, prefix+"online.png")
	if n := s.count(image.Rectangle{}, near(trayPalette.Badge, colorTolerance)); n != 0 {
		t.Errorf("%d badge pixels with nothing unread", n)
	}

	// A message arrives: the red badge shows.
	trayKey, _ := trayStatus(ctx, t, awpBin, trayData)
	out, err := exec.CommandContext(ctx, awpBin, "send", "--data", peerData, "--to", trayKey,
		"--subject", "Pixels", "--text", "does the badge show?").CombinedOutput()
	if err != nil {
		t.Fatalf("awp send: %v %s", err, out)
	}
	s, err = x.waitScreen(ctx, tr, "the red badge on the icon", func(s shot) bool {
		return s.count(x.panel, near(trayPalette.Badge, colorTolerance)) >= minBadgePixels
	})
	if err != nil {
		t.Fatal(err)
	}
	s.save(t, prefix+"badge.png")
	if badge := s.bounds(x.panel, near(trayPalette.Badge, colorTolerance)); !badge.Overlaps(iconBox.Inset(-4)) {
		t.Errorf("the badge %v is not on the icon %v", badge, iconBox)
	}

	// A click opens the menu, which now lists the thread (a separator and
	// a row more than before).
	// The panel may draw the menu from the layout it had before it read
	// the new one (dbusmenu's LayoutUpdated is asynchronous): reopen it a
	// few times before judging its height.
	var unreadMenu image.Rectangle
	for attempt := 1; ; attempt++ {
		s, unreadMenu, err = x.openMenu(ctx, tr, at, "the menu with the unread thread")
		if err != nil {
			t.Fatal(err)
		}
		if unreadMenu.Dy() >= idleMenu.Dy()+16 || attempt == menuReopens {
			break
		}
		t.Logf("the menu is %d px tall (without the thread %d px): reopening it", unreadMenu.Dy(), idleMenu.Dy())
		if err := x.closeMenu(ctx, tr); err != nil {
			t.Fatal(err)
		}
	}
	s.save(t, prefix+"menu-unread.png")
	if unreadMenu.Dy() < idleMenu.Dy()+16 {
		t.Errorf("the menu with an unread thread is %d px tall, without %d px", unreadMenu.Dy(), idleMenu.Dy())
	}
	if items, err := readMenu(x.conn, item.Bus, mp); err != nil {
		t.Fatal(err)
	} else if _, ok := find(items, "idle-peer: Pixels (1)"); !ok {
		t.Errorf("menu: %s", labels(items))
	}
	// The panel's menu carries out a choice: its first item that can be
	// chosen (the thread's; the status line cannot) opens the thread.
	const thread = "AWP: Pixels"
	var last time.Time
	if err := tr.until(ctx, "the thread's window, chosen in the panel's menu", func() bool {
		if visibleWindow(x.display, thread) {
			return true
		}
		if time.Since(last) > 5*time.Second {
			last = time.Now()
			if s, err := x.screen(); err == nil && s.count(x.below(), brighter(menuLight)) >= minMenuPixels {
				_ = x.xdotool("key", "Down", "Return")
			}
		}
		return false
	}); err != nil {
		t.Fatal(err)
	}
	raise(x.display, thread)
	screenshot(ctx, t, x.display, prefix+"thread.png")
	if strings.Contains(tr.out.String(), "panic:") {
		t.Errorf("panic in the output:\n%s", tr.out.String())
	}
}
