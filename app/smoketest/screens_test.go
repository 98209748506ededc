//go:build smoke

package smoketest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestScreenshots saves the windows the tray opens, in the light and dark
// themes at scale 1 and 2, with a peer, an unread thread and a request
// waiting (and the main window again after a dial fails while it is open:
// the notice arrives late and must wrap), on a screen as large as the
// scale needs, into $AWP_SCREENS (build/screenshots/<theme>-<scale>-<window>.png
// when it is "1"); the tray menu's labels go beside them as menu.txt. It
// is for looking at the windows (docs/app.md), not a check, and runs only
// when AWP_SCREENS is set.
func TestScreenshots(t *testing.T) {
	dir := os.Getenv("AWP_SCREENS")
	if dir == "" {
		t.Skip("set AWP_SCREENS to a directory (or 1) to save the screenshots")
	}
	if dir == "1" {
		dir = filepath.Join(moduleRoot, "build", "screenshots")
	}
	need(t, "Xvfb", "dbus-daemon", "xdotool", "import")
	trayBin, awpBin := binaries(t)
	for _, theme := range []string{"light", "dark"} {
		for _, scale := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s-%d", theme, scale), func(t *testing.T) {
				ctx := deadline(t)
				// The screen grows with the scale, so that a window at
				// scale 2 is on it whole.
				display, bus, w := desktopSize(t, scale*screenWidth, scale*screenHeight)
				e := append(env(t, display, bus), "FYNE_THEME="+theme, "FYNE_SCALE="+strconv.Itoa(scale))
				// A notification server: the request is a notification,
				// not a window on top of the others.
				d := startDunst(t, e)
				if err := until(ctx, "dunst on the bus", func() bool { _, err := d.ctl(ctx, "count"); return err == nil }); err != nil {
					t.Fatal(err)
				}
				data := filepath.Join(t.TempDir(), "tray")
				tr, item := startRegistered(ctx, t, w, trayBin, e, "--data", data)
				conn := w.Conn()
				mp := menuPath(conn, item)
				if err := tr.untilReady(ctx); err != nil {
					t.Fatal(err)
				}
				peerDir := idlePeer(ctx, t, tr, awpBin, data, e)
				key, _ := trayStatus(ctx, t, awpBin, data)
				if out, err := exec.CommandContext(ctx, awpBin, "send", "--data", peerDir, "--to", key,
					"--subject", "Port the auth middleware", "--text", "can you take this?").CombinedOutput(); err != nil {
					t.Fatalf("awp send: %v %s", err, out)
				}
				go exec.CommandContext(ctx, awpBin, "request", "exec", "--data", peerDir, "--to", key,
					"--timeout", "2m", "--", "make", "test").Run()
				items, err := tr.untilMenu(ctx, "the request in the menu", conn, item.Bus, mp, func(items []menuItem) bool {
					_, ok := find(items, "idle-peer wants exec")
					return ok
				})
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "menu.txt"), []byte(menuText(items, "")), 0o644); err != nil {
					t.Fatal(err)
				}
				shoot := func(shot string) {
					screenshot(ctx, t, display, shot)
					if abs, _ := filepath.Abs(dir); abs != filepath.Join(mustAbs(moduleRoot), "build", "screenshots") {
						b, err := os.ReadFile(filepath.Join(moduleRoot, "build", "screenshots", shot))
						if err == nil {
							os.WriteFile(filepath.Join(dir, shot), b, 0o644)
						}
					}
				}
				for _, win := range []struct{ item, title, file string }{
					{"Threads", "AWP", "threads"},
					{"Settings", "AWP: Settings", "settings"},
					{"Approvals", "AWP: Approvals", "approvals"},
				} {
					if err := tr.clickUntil(ctx, conn, item.Bus, mp, win.item, win.title, func() bool { return visibleWindow(display, win.title) }); err != nil {
						t.Fatal(err)
					}
					time.Sleep(time.Second) // loaded and painted
					shoot(fmt.Sprintf("%s-%d-%s.png", theme, scale, win.file))
					if win.file == "threads" {
						// A dial that fails while the window is open: its
						// notice arrives after the window was laid out.
						if out, err := exec.CommandContext(ctx, awpBin, "connect", "--data", data, "tcp://127.0.0.1:1").CombinedOutput(); err == nil {
							t.Fatalf("awp connect to a closed port succeeded: %s", out)
						}
						time.Sleep(time.Second)
						shoot(fmt.Sprintf("%s-%d-threads-dial-error.png", theme, scale))
					}
					// No window manager stacks them: take this one off the
					// screen before the next.
					unmap := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^"+win.title+"$", "windowunmap")
					unmap.Env = append(os.Environ(), "DISPLAY="+display)
					_ = unmap.Run()
				}
			})
		}
	}
}

func mustAbs(p string) string {
	a, _ := filepath.Abs(p)
	return a
}

// menuText is the menu as indented lines ("-" for a separator).
func menuText(items []menuItem, indent string) string {
	var b strings.Builder
	for _, it := range items {
		l := it.Label
		if l == "" {
			l = "-"
		}
		if !it.Enabled {
			l = "[" + l + "]"
		}
		b.WriteString(indent + l + "\n")
		b.WriteString(menuText(it.Children, indent+"    "))
	}
	return b.String()
}
