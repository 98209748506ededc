//go:build smoke

package smoketest

import (
	"bufio"
	"context"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/awp-tray/awp-tray/app/icon"
	"github.com/awp-tray/awp-tray/app/trayhost"
	"github.com/awp-tray/awp-tray/app/trayhost/watchertest"
	"github.com/awp-tray/awp-tray/internal/testsync"
)

// A real tray host (issue 20 item 7): xfce4-panel with its system tray
// plugin, on Xvfb and a private session bus, shows the tray's icon; the
// tests look at the screen's pixels, not at D-Bus, for what a person sees.

// xfcePanelConfig is a panel with one plugin, the system tray, across the
// top of the screen. XFCE_PANEL_MIGRATE_DEFAULT=1 makes the panel take it
// (from $XDG_CONFIG_DIRS/xfce4/panel/default.xml) without asking.
const xfcePanelConfig = `<?xml version="1.0" encoding="UTF-8"?>
<channel name="xfce4-panel" version="1.0">
  <property name="configver" type="int" value="2"/>
  <property name="panels" type="array">
    <value type="int" value="1"/>
    <property name="panel-1" type="empty">
      <property name="position" type="string" value="p=6;x=0;y=0"/>
      <property name="length" type="uint" value="100"/>
      <property name="position-locked" type="bool" value="true"/>
      <property name="size" type="uint" value="32"/>
      <property name="plugin-ids" type="array">
        <value type="int" value="1"/>
      </property>
    </property>
  </property>
  <property name="plugins" type="empty">
    <property name="plugin-1" type="string" value="systray"/>
  </property>
</channel>
`

// xfconfService is where Debian's xfconf puts the D-Bus service that
// starts xfconfd.
const xfconfService = "/usr/share/dbus-1/services/org.xfce.Xfconf.service"

// Pixel thresholds. At the panel's 32 px the icon is drawn at 22-24 px:
// its disc covers some 300 pixels and the badge about 100, so these leave
// room for fonts and scaling while nothing else on the screen has those
// colours (the tests check that before the icon is there).
const (
	minDiscPixels  = 30   // pixels of the disc's colour: the icon shows
	minBadgePixels = 12   // pixels of the badge's red: the badge shows
	minMenuPixels  = 4000 // light pixels below the panel: a menu is open
	colorTolerance = 12   // per channel, for the host's scaling
	menuLight      = 235  // a menu's background (Adwaita: white)
	tooltipText    = 190  // a tooltip's text (Adwaita: light on dark)
)

// xfce is a running xfce4-panel with its system tray.
type xfce struct {
	display string
	bus     string // the session bus address
	conn    *dbus.Conn
	panel   image.Rectangle      // the panel on the screen
	watcher *watchertest.Watcher // ours, when it owns the watcher's name
}

// startXfce starts Xvfb, a private session bus (dbus-run-session) and
// xfce4-panel on them with a one-plugin config, and waits until the
// panel is drawn and a StatusNotifierWatcher owns its name on the bus.
// With ownWatcher, app/trayhost/watchertest claims the watcher's name
// before the panel starts, and the panel's tray is only a host;
// otherwise the panel's tray is the watcher too, as on an Xfce desktop.
func startXfce(ctx context.Context, t *testing.T, ownWatcher bool) *xfce {
	t.Helper()
	need(t, "Xvfb", "dbus-run-session", "xfce4-panel", "xdotool", "import")
	svc, err := os.ReadFile(xfconfService)
	if err != nil {
		t.Fatalf("xfconf is not installed (apt-get install xfconf): %v", err)
	}
	x := &xfce{display: startXvfb(t)}

	// The private bus can start xfconfd, where the panel keeps its
	// settings, and nothing else: the stock session config would start
	// whatever desktop services the machine has (dunst among them).
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	for p, data := range map[string]string{
		"xdg/xfce4/panel/default.xml":      xfcePanelConfig,
		"services/org.xfce.Xfconf.service": string(svc),
		"bus.conf":                         watchertest.BusConfig(filepath.Join(dir, "services")),
	} {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The bus and what it starts (xfconfd) get the same private home as
	// the panel: xfconfd writes the panel's settings under it.
	env := []string{
		"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "XDG_DATA_HOME=" + filepath.Join(home, ".local/share"),
		"XDG_CONFIG_DIRS=" + filepath.Join(dir, "xdg"), "XDG_RUNTIME_DIR=" + t.TempDir(),
		"XFCE_PANEL_MIGRATE_DEFAULT=1", "NO_AT_BRIDGE=1",
		"DISPLAY=" + x.display, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8",
	}
	x.bus = startSessionBus(ctx, t, filepath.Join(dir, "bus.conf"), env)
	if ownWatcher {
		w, err := watchertest.Start(x.bus)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close() })
		x.watcher = w
	}

	panel := &testsync.Buffer{}
	cmd := exec.Command("xfce4-panel", "--disable-wm-check")
	cmd.Env = append(env, "DBUS_SESSION_BUS_ADDRESS="+x.bus)
	cmd.Stdout, cmd.Stderr = panel, panel
	stopGroup(t, cmd, "xfce4-panel", panel, 0)

	// The panel's system tray claims the watcher's name; trayhost.Detect
	// is what the tray app asks before it sets up its icon.
	if err := until(ctx, "xfce4-panel's StatusNotifierWatcher on the bus", func() bool {
		c, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		return trayhost.DetectAt(c, x.bus).OK()
	}); err != nil {
		t.Fatalf("%v\nxfce4-panel:\n%s", err, panel.String())
	}
	var perr error
	if err := until(ctx, "the panel drawn", func() bool {
		x.panel, perr = findPanel(x.display)
		return perr == nil
	}); err != nil {
		t.Fatalf("%v (%v)\nxfce4-panel:\n%s", err, perr, panel.String())
	}
	t.Logf("xfce4-panel at %v", x.panel)
	x.conn, err = dbus.Connect(x.bus)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.conn.Close() })
	return x
}

// startSessionBus runs dbus-run-session with the bus config conf; its
// program prints the bus address and waits on its stdin, which the
// cleanup closes: then dbus-run-session stops the bus.
func startSessionBus(ctx context.Context, t *testing.T, conf string, env []string) string {
	t.Helper()
	out := &testsync.Buffer{}
	cmd := exec.Command("dbus-run-session", "--config-file="+conf, "--",
		"sh", "-c", `printf '%s\n' "$DBUS_SESSION_BUS_ADDRESS"; exec cat >/dev/null`)
	cmd.Env = env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = out
	done := stopGroup(t, cmd, "dbus-run-session", out, 5*time.Second)
	t.Cleanup(func() { stdin.Close() }) // runs before stopGroup's: the bus ends on its own
	addr := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(stdout)
		if s.Scan() {
			addr <- strings.TrimSpace(s.Text())
		}
		close(addr)
	}()
	select {
	case a, ok := <-addr:
		if !ok || a == "" {
			t.Fatalf("dbus-run-session printed no bus address:\n%s", out.String())
		}
		return a
	case <-done:
		t.Fatalf("dbus-run-session exited:\n%s", out.String())
	case <-ctx.Done():
		t.Fatalf("dbus-run-session printed no bus address: %v\n%s", ctx.Err(), out.String())
	}
	return ""
}

// stopGroup starts cmd in a process group of its own and stops the group
// when the test ends (xfce4-panel runs its plugins in child processes,
// the bus starts xfconfd): SIGTERM, and SIGKILL if that was not enough.
// grace is how long it may take to exit on its own first. The returned
// channel closes when cmd exits.
func stopGroup(t *testing.T, cmd *exec.Cmd, name string, out *testsync.Buffer, grace time.Duration) <-chan struct{} {
	t.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	pgid := cmd.Process.Pid
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		select {
		case <-done:
		case <-time.After(grace):
		}
		syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			syscall.Kill(-pgid, syscall.SIGKILL)
			<-done
		}
		if t.Failed() {
			t.Logf("%s output:\n%s", name, out.String())
		}
	})
	return done
}

// findPanel finds the panel: the band of painted rows along the top of
// the screen (Xvfb's root is black), at least half its configured size.
func findPanel(display string) (image.Rectangle, error) {
	s, err := grab(display, image.Rect(0, 0, screenWidth, 100))
	if err != nil {
		return image.Rectangle{}, err
	}
	h := 0
	for h < 100 && s.count(image.Rect(0, h, screenWidth, h+1), black) == 0 {
		h++
	}
	if h < 16 {
		return image.Rectangle{}, fmt.Errorf("%d painted rows at the top", h)
	}
	return image.Rect(0, 0, screenWidth, h), nil
}

// below is the part of the screen under the panel where its tooltips and
// menus open (the tray's icon sits at the panel's left end).
func (x *xfce) below() image.Rectangle {
	return image.Rect(0, x.panel.Max.Y, screenWidth/2, x.panel.Max.Y+400)
}

// screen grabs the panel and what opens under it.
func (x *xfce) screen() (shot, error) {
	return grab(x.display, image.Rect(0, 0, screenWidth/2, x.below().Max.Y))
}

// xdotool runs xdotool on the display.
func (x *xfce) xdotool(args ...string) error {
	cmd := exec.Command("xdotool", args...)
	cmd.Env = append(os.Environ(), "DISPLAY="+x.display)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("xdotool %s: %v %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// item is the StatusNotifierItem the panel's watcher lists, once there
// is one.
func (x *xfce) item(ctx context.Context, tr *tray) (watchertest.Item, error) {
	var it watchertest.Item
	err := tr.until(ctx, "the tray item registered with the panel's watcher", func() bool {
		v, err := x.conn.Object(watchertest.Name, watchertest.Path).GetProperty(watchertest.Name + ".RegisteredStatusNotifierItems")
		items, _ := v.Value().([]string)
		if err != nil || len(items) != 1 {
			return false
		}
		i := strings.Index(items[0], "/")
		if i <= 0 {
			return false
		}
		it = watchertest.Item{Bus: items[0][:i], Path: dbus.ObjectPath(items[0][i:])}
		return true
	})
	return it, err
}

// waitScreen grabs the screen until ok holds for it.
func (x *xfce) waitScreen(ctx context.Context, tr *tray, what string, ok func(shot) bool) (shot, error) {
	var last shot
	err := tr.until(ctx, what, func() bool {
		s, err := x.screen()
		if err != nil {
			return false
		}
		last = s
		return ok(s)
	})
	return last, err
}

// trayPalette is the icon's colours as the tray draws them here: the
// test's bus has no settings portal, so the tray draws the variant for a
// dark panel, the default (icon.PanelDark).
var trayPalette = icon.Palettes[icon.PanelDark]

// iconColors are the pixels of the icon's disc in any state.
func iconColors(r, g, b uint8) bool {
	return near(trayPalette.Offline, colorTolerance)(r, g, b) || near(trayPalette.Online, colorTolerance)(r, g, b) ||
		near(trayPalette.Approval, colorTolerance)(r, g, b)
}

// hover puts the pointer on p, from elsewhere, so the host shows the
// tooltip afresh (it shows one per entry).
func (x *xfce) hover(p image.Point) error {
	if err := x.xdotool("mousemove", fmt.Sprint(screenWidth-10), fmt.Sprint(screenHeight-10)); err != nil {
		return err
	}
	return x.xdotool("mousemove", fmt.Sprint(p.X), fmt.Sprint(p.Y))
}

// tooltip hovers over the icon until the host shows a tooltip whose text
// is wide enough for ok (xfce4-panel draws it under the panel: light text
// on a dark box over Xvfb's black root). It returns the text's width.
func (x *xfce) tooltip(ctx context.Context, tr *tray, at image.Point, what string, ok func(width int) bool) (shot, int, error) {
	var last time.Time
	var width int
	s, err := x.waitScreen(ctx, tr, what, func(s shot) bool {
		if s.count(x.below(), brighter(menuLight)) >= minMenuPixels {
			return false // a menu is open, not a tooltip
		}
		width = s.bounds(x.below(), brighter(tooltipText)).Dx()
		if width > 0 && ok(width) {
			return true
		}
		if time.Since(last) > 4*time.Second {
			last = time.Now()
			_ = x.hover(at)
		}
		return false
	})
	return s, width, err
}

// openMenu clicks the icon until its menu shows; it returns the menu's
// bounds.
func (x *xfce) openMenu(ctx context.Context, tr *tray, at image.Point, what string) (shot, image.Rectangle, error) {
	var last time.Time
	s, err := x.waitScreen(ctx, tr, what, func(s shot) bool {
		if s.count(x.below(), brighter(menuLight)) >= minMenuPixels {
			return true
		}
		if time.Since(last) > 3*time.Second {
			last = time.Now()
			_ = x.xdotool("mousemove", fmt.Sprint(at.X), fmt.Sprint(at.Y), "click", "1")
		}
		return false
	})
	if err != nil {
		return s, s.bounds(x.below(), brighter(menuLight)), err
	}
	return x.settledMenu(s)
}

// menuSettle is how long the menu's bounds must stay the same before a
// test measures it: GTK may map the menu at the size of the layout it
// showed last and grow it a moment later (seen once at 235 px against the
// 251 px the new layout takes, five opens in a row, on a loaded host).
const menuSettle = 200 * time.Millisecond

// menuSettleTries bounds how many screenshots settledMenu takes (2 s).
const menuSettleTries = 10

// settledMenu takes screenshots menuSettle apart until the menu's bounds
// are the same on two in a row, and returns the last one.
func (x *xfce) settledMenu(s shot) (shot, image.Rectangle, error) {
	r := s.bounds(x.below(), brighter(menuLight))
	for range menuSettleTries {
		time.Sleep(menuSettle)
		next, err := x.screen()
		if err != nil {
			return s, r, err
		}
		nr := next.bounds(x.below(), brighter(menuLight))
		s = next
		if nr == r {
			break
		}
		r = nr
	}
	return s, r, nil
}

// menuReopens is how many times a test opens the panel's menu before it
// judges what the menu shows (the panel may draw an outdated layout once).
const menuReopens = 5

// closeMenu presses Escape until the menu is gone.
func (x *xfce) closeMenu(ctx context.Context, tr *tray) error {
	var last time.Time
	_, err := x.waitScreen(ctx, tr, "the menu closed", func(s shot) bool {
		if s.count(x.below(), brighter(menuLight)) < minMenuPixels {
			return true
		}
		if time.Since(last) > 3*time.Second {
			last = time.Now()
			_ = x.xdotool("key", "Escape")
		}
		return false
	})
	return err
}
