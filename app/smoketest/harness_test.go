//go:build smoke

package smoketest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/awp-tray/awp-tray/app/trayhost/watchertest"
	"github.com/awp-tray/awp-tray/internal/testbin"
	"github.com/awp-tray/awp-tray/internal/testsync"
)

// moduleRoot is the module's root, from this package's directory.
const moduleRoot = "../.."

// need skips the test when a tool is missing.
func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
}

// bins are the binaries the tests run: awp-tray (cgo, Fyne) and awp
// (CGO_ENABLED=0), built once, or taken from $AWP_TRAY_BIN and $AWP_BIN.
var bins = testbin.Set{Pattern: "awp-smoke-bin-", Bins: []testbin.Binary{
	{Name: "awp-tray", Pkg: moduleRoot, Env: "AWP_TRAY_BIN", Cgo: true},
	{Name: "awp", Pkg: moduleRoot + "/cmd/awp", Env: "AWP_BIN"},
}}

// TestMain removes the binaries the tests built (some 100 MB a run).
func TestMain(m *testing.M) {
	code := m.Run()
	bins.Remove()
	os.Exit(code)
}

// binaries returns awp-tray and awp (see bins), building them the first
// time.
func binaries(t *testing.T) (tray, awp string) {
	t.Helper()
	return bins.Path(t, "awp-tray"), bins.Path(t, "awp")
}

// deadline is the context every wait of a test shares: a broken run
// fails instead of hanging. No assertion depends on how fast anything is.
func deadline(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// The virtual screen's size.
const screenWidth, screenHeight = 1280, 800

// startXvfb starts a virtual display on a free display number and
// returns its DISPLAY. (Xvfb's -displayfd proved unreliable here, so the
// number is picked by its lock file and the server is probed.)
func startXvfb(t *testing.T) string {
	t.Helper()
	return startXvfbSize(t, screenWidth, screenHeight)
}

// startXvfbSize is startXvfb with a screen of width × height pixels.
func startXvfbSize(t *testing.T, width, height int) string {
	t.Helper()
	for n := 90 + os.Getpid()%50; n < 300; n++ {
		if _, err := os.Stat(fmt.Sprintf("/tmp/.X%d-lock", n)); err == nil {
			continue
		}
		if _, err := os.Stat(fmt.Sprintf("/tmp/.X11-unix/X%d", n)); err == nil {
			continue
		}
		display := fmt.Sprintf(":%d", n)
		xlog := &testsync.Buffer{}
		// -noreset: by default the server resets when its last client
		// leaves (the probe below, a tray that quit), and a client that
		// connects during the reset is refused ("Failed to open display").
		cmd := exec.Command("Xvfb", display, "-screen", "0", fmt.Sprintf("%dx%dx24", width, height), "-nolisten", "tcp", "-noreset")
		cmd.Stdout, cmd.Stderr = xlog, xlog
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		up := until(ctx, "Xvfb on "+display, func() bool {
			select {
			case <-exited:
				cancel() // it died (display taken meanwhile): try the next
				return false
			default:
			}
			c := exec.Command("xdotool", "getdisplaygeometry")
			c.Env = append(os.Environ(), "DISPLAY="+display)
			return c.Run() == nil
		})
		cancel()
		if up != nil {
			cmd.Process.Kill()
			<-exited
			t.Logf("Xvfb %s did not come up: %v\n%s", display, up, xlog.String())
			continue
		}
		// SIGTERM lets Xvfb remove its lock and socket for the next one.
		t.Cleanup(func() {
			cmd.Process.Signal(syscall.SIGTERM)
			<-exited
			if t.Failed() {
				t.Logf("Xvfb %s output:\n%s", display, xlog.String())
			}
		})
		return display
	}
	t.Fatal("no free X display")
	return ""
}

// startBus starts a private session bus.
func startBus(t *testing.T) string {
	t.Helper()
	bus, err := watchertest.StartBus(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bus.Close() })
	return bus.Address
}

// tray is a running awp-tray process.
type tray struct {
	t    *testing.T
	cmd  *exec.Cmd
	out  *testsync.Buffer
	done chan struct{}
	err  error
	env  []string
}

// env is the environment of a tray run: a fresh HOME and config dir, the
// display, and the bus ("" for none at all).
func env(t *testing.T, display, bus string) []string {
	home := t.TempDir()
	e := []string{
		"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_RUNTIME_DIR=" + t.TempDir(), "DISPLAY=" + display, "LANG=en_US.UTF-8",
		"PATH=" + os.Getenv("PATH"), "AWP_KEYRING=file",
	}
	if bus != "" {
		e = append(e, "DBUS_SESSION_BUS_ADDRESS="+bus)
	}
	return e
}

// startTray runs awp-tray with args in env.
func startTray(t *testing.T, bin string, env []string, args ...string) *tray {
	t.Helper()
	tr := &tray{t: t, out: &testsync.Buffer{}, done: make(chan struct{}), env: env}
	tr.cmd = exec.Command(bin, args...)
	tr.cmd.Env = env
	tr.cmd.Stdout, tr.cmd.Stderr = tr.out, tr.out
	if err := tr.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { tr.err = tr.cmd.Wait(); close(tr.done) }()
	t.Cleanup(func() {
		select {
		case <-tr.done:
		default:
			// SIGQUIT first: a Go program prints every goroutine's stack,
			// which says where a hang is.
			tr.cmd.Process.Signal(syscall.SIGQUIT)
			select {
			case <-tr.done:
			case <-time.After(5 * time.Second):
				tr.cmd.Process.Kill()
				<-tr.done
			}
		}
		if t.Failed() {
			t.Logf("awp-tray output:\n%s", tr.out.String())
		}
	})
	return tr
}

// wait waits for the process to end and returns its error.
func (tr *tray) wait(ctx context.Context) error {
	select {
	case <-tr.done:
		return tr.err
	case <-ctx.Done():
		return fmt.Errorf("awp-tray still running: %w", ctx.Err())
	}
}

// until is the package's until that gives up at once when the tray
// process has exited, saying how it ended.
func (tr *tray) until(ctx context.Context, what string, cond func() bool) error {
	return poll(ctx, tr.done, what, cond)
}

// until polls cond (every 200ms) until it holds or ctx ends.
func until(ctx context.Context, what string, cond func() bool) error {
	return poll(ctx, nil, what, cond)
}

// poll polls cond (every 200ms) until it holds, ctx ends or exited
// closes (the process it waits on is gone).
func poll(ctx context.Context, exited <-chan struct{}, what string, cond func() bool) error {
	for {
		if cond() {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		case <-exited:
			if cond() {
				return nil
			}
			return fmt.Errorf("waiting for %s: the process exited", what)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// visibleWindow reports whether a visible window named name exists.
func visibleWindow(display, name string) bool {
	cmd := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^"+name+"$")
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	out, err := cmd.Output()
	return err == nil && len(bytes.TrimSpace(out)) > 0
}

// raise puts the visible window named name on top (there is no window
// manager to do it), for a screenshot.
func raise(display, name string) {
	cmd := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^"+name+"$", "windowraise")
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	_ = cmd.Run()
}

// screenshot saves the whole display under build/screenshots/ once
// something is drawn on it: the empty root and a mapped but unpainted
// window are flat black, a painted window has text in many colors.
func screenshot(ctx context.Context, t *testing.T, display, name string) {
	t.Helper()
	dir := filepath.Join(moduleRoot, "build", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	var colors int
	err := until(ctx, "a painted window", func() bool {
		cmd := exec.Command("import", "-window", "root", p)
		cmd.Env = append(os.Environ(), "DISPLAY="+display)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Logf("import: %v %s", err, out)
			return false
		}
		out, err := exec.Command("identify", "-format", "%k", p).Output()
		if err != nil {
			return false
		}
		colors, _ = strconv.Atoi(strings.TrimSpace(string(out)))
		return colors > 16
	})
	if err != nil {
		t.Fatalf("screenshot %s: %v (%d colors)", p, err, colors)
	}
	abs, _ := filepath.Abs(p)
	t.Logf("screenshot: %s (%d colors)", abs, colors)
}

// menuItem is one dbusmenu item.
type menuItem struct {
	ID       int32
	Label    string
	Enabled  bool
	Children []menuItem
}

// readMenu calls com.canonical.dbusmenu.GetLayout on the item's menu.
func readMenu(conn *dbus.Conn, busName string, path dbus.ObjectPath) ([]menuItem, error) {
	var rev uint32
	var root []any
	call := conn.Object(busName, path).Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{})
	if call.Err != nil {
		return nil, call.Err
	}
	if len(call.Body) != 2 {
		return nil, errors.New("GetLayout: unexpected reply")
	}
	rev, _ = call.Body[0].(uint32)
	_ = rev
	root, ok := call.Body[1].([]any)
	if !ok {
		return nil, fmt.Errorf("GetLayout: layout is %T", call.Body[1])
	}
	it, err := parseItem(root)
	return it.Children, err
}

func parseItem(v []any) (menuItem, error) {
	var it menuItem
	if len(v) != 3 {
		return it, fmt.Errorf("menu item has %d fields", len(v))
	}
	it.ID, _ = v[0].(int32)
	props, _ := v[1].(map[string]dbus.Variant)
	it.Enabled = true
	if l, ok := props["label"]; ok {
		it.Label, _ = l.Value().(string)
	}
	if e, ok := props["enabled"]; ok {
		it.Enabled, _ = e.Value().(bool)
	}
	kids, _ := v[2].([]dbus.Variant)
	for _, k := range kids {
		kv, ok := k.Value().([]any)
		if !ok {
			continue
		}
		c, err := parseItem(kv)
		if err != nil {
			return it, err
		}
		it.Children = append(it.Children, c)
	}
	return it, nil
}

// find returns the item whose label starts with prefix, in submenus too.
func find(items []menuItem, prefix string) (menuItem, bool) {
	for _, it := range items {
		if strings.HasPrefix(it.Label, prefix) {
			return it, true
		}
		if c, ok := find(it.Children, prefix); ok {
			return c, true
		}
	}
	return menuItem{}, false
}

// clickUntil clicks the tray menu item whose label starts with prefix
// until cond holds. It reads the menu again before each click: the app
// rebuilds the menu whenever a label changes (a peer coming up, an unread
// count), which gives every item a new id, so an id read a moment earlier
// may name nothing by the time it is clicked. A click gets a second to
// show its effect before the next one.
func (tr *tray) clickUntil(ctx context.Context, conn *dbus.Conn, busName string, path dbus.ObjectPath, prefix, what string, cond func() bool) error {
	var last time.Time
	return tr.until(ctx, what, func() bool {
		if cond() {
			return true
		}
		if time.Since(last) < time.Second {
			return false
		}
		last = time.Now()
		items, err := readMenu(conn, busName, path)
		if it, ok := find(items, prefix); err == nil && ok {
			_ = click(conn, busName, path, it.ID)
		}
		return false
	})
}

// untilMenu reads the tray's menu until cond holds for it; it returns the
// last menu read, for a failure's message.
func (tr *tray) untilMenu(ctx context.Context, what string, conn *dbus.Conn, busName string, path dbus.ObjectPath, cond func([]menuItem) bool) ([]menuItem, error) {
	var items []menuItem
	err := tr.until(ctx, what, func() bool {
		var err error
		items, err = readMenu(conn, busName, path)
		return err == nil && cond(items)
	})
	return items, err
}

// requestEcho has the peer on peerData ask the tray (trayKey) to run
// `echo word`, in the background; the channel says how it ended: nil once
// the command ran and printed word.
func requestEcho(ctx context.Context, awpBin, peerData, trayKey, word string) <-chan error {
	answer := make(chan error, 1)
	go func() {
		out, err := exec.CommandContext(ctx, awpBin, "request", "exec", "--data", peerData, "--to", trayKey,
			"--timeout", "2m", "--", "echo", word).CombinedOutput()
		if err == nil && !strings.Contains(string(out), word) {
			err = errors.New("no output: " + string(out))
		}
		answer <- err
	}()
	return answer
}

// startRegistered starts the tray (startTray) and waits until it registers
// its item with the tray host w; it fails the test, with the tray's
// output, if it never does.
func startRegistered(ctx context.Context, t *testing.T, w *watchertest.Watcher, bin string, env []string, args ...string) (*tray, watchertest.Item) {
	t.Helper()
	tr := startTray(t, bin, env, args...)
	item, err := w.WaitItem(ctx)
	if err != nil {
		t.Fatalf("the tray never registered with the tray host: %v\n%s", err, tr.out.String())
	}
	return tr, item
}

// desktopTray is awp-tray running on a desktop of its own and registered
// with its tray host (startDesktopTray), with what a test drives it by.
type desktopTray struct {
	t               *testing.T
	ctx             context.Context // the test's deadline
	trayBin, awpBin string
	display         string
	env             []string // the tray's environment
	data            string   // the tray's data directory
	tr              *tray
	conn            *dbus.Conn       // on the session bus, as the tray host is
	item            watchertest.Item // the tray's item
	menu            dbus.ObjectPath  // the item's dbusmenu
}

// startDesktopTray is the opening of the tests that drive the tray's menu
// and take screenshots: it skips the test unless Xvfb, dbus-daemon,
// xdotool and import are installed, builds the binaries, starts a desktop
// and runs awp-tray on it in a fresh environment (env) with a fresh data
// directory and args, and waits until it registers its item.
func startDesktopTray(t *testing.T, args ...string) *desktopTray {
	t.Helper()
	need(t, "Xvfb", "dbus-daemon", "xdotool", "import")
	d := &desktopTray{t: t}
	d.trayBin, d.awpBin = binaries(t)
	d.ctx = deadline(t)
	display, bus, w := desktop(t)
	d.display, d.env = display, env(t, display, bus)
	d.data = filepath.Join(t.TempDir(), "tray")
	d.tr, d.item = startRegistered(d.ctx, t, w, d.trayBin, d.env, append([]string{"--data", d.data}, args...)...)
	d.conn = w.Conn()
	d.menu = menuPath(d.conn, d.item)
	return d
}

// untilStatus waits until the menu's status line (its first item) reads
// want, and returns the menu; it fails the test, with the last menu read,
// if it never does.
func (d *desktopTray) untilStatus(want string) []menuItem {
	d.t.Helper()
	items, err := d.tr.untilMenu(d.ctx, "the status line "+strconv.Quote(want), d.conn, d.item.Bus, d.menu, func(items []menuItem) bool {
		return len(items) > 0 && items[0].Label == want
	})
	if err != nil {
		d.t.Fatalf("%v; menu: %s", err, labels(items))
	}
	return items
}

// untilReady waits until the tray's node has logged that it is ready.
func (tr *tray) untilReady(ctx context.Context) error {
	return tr.until(ctx, "the node ready", func() bool { return strings.Contains(tr.out.String(), "msg=ready") })
}

// exited reports whether the tray process has ended.
func (tr *tray) exited() bool {
	select {
	case <-tr.done:
		return true
	default:
		return false
	}
}

// click sends the dbusmenu "clicked" event to an item.
func click(conn *dbus.Conn, busName string, path dbus.ObjectPath, id int32) error {
	return conn.Object(busName, path).Call("com.canonical.dbusmenu.Event", 0, id, "clicked", dbus.MakeVariant(""), uint32(0)).Err
}

// labels lists item labels for messages.
func labels(items []menuItem) string {
	var s []string
	for _, it := range items {
		s = append(s, fmt.Sprintf("%q", it.Label))
	}
	return strings.Join(s, ", ")
}

// desktop starts what a tray needs around it: an X server, a private
// session bus and a StatusNotifierWatcher on it (closed at the test's end).
func desktop(t *testing.T) (display, bus string, w *watchertest.Watcher) {
	t.Helper()
	return desktopSize(t, screenWidth, screenHeight)
}

// desktopSize is desktop with a screen of width × height pixels.
func desktopSize(t *testing.T, width, height int) (display, bus string, w *watchertest.Watcher) {
	t.Helper()
	display = startXvfbSize(t, width, height)
	bus = startBus(t)
	w, err := watchertest.Start(bus)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return display, bus, w
}

// menuPath is the dbusmenu object of a tray item (the item's Menu
// property, or the conventional path when it has none).
func menuPath(conn *dbus.Conn, item watchertest.Item) dbus.ObjectPath {
	if v, err := conn.Object(item.Bus, item.Path).GetProperty("org.kde.StatusNotifierItem.Menu"); err == nil {
		if p, ok := v.Value().(dbus.ObjectPath); ok {
			return p
		}
	}
	return "/StatusNotifierMenu"
}

// tooltip reads the tray item's ToolTip property: its title part.
func tooltip(conn *dbus.Conn, item watchertest.Item) string {
	v, err := conn.Object(item.Bus, item.Path).GetProperty("org.kde.StatusNotifierItem.ToolTip")
	if err != nil {
		return "(" + err.Error() + ")"
	}
	fields, ok := v.Value().([]any)
	if !ok || len(fields) != 4 {
		return fmt.Sprintf("(a %T)", v.Value())
	}
	title, _ := fields[2].(string)
	return title
}
