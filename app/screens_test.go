//lint:file-ignore SA1019 the built-in light and dark variants (theme.LightTheme, DarkTheme), on purpose

package app

import (
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/presence"
)

// TestPanelScreens renders the Presence, Approvals and Settings windows,
// the dialogs of the thread controls and the main window's dial notice, light and dark, at scale 1 and 2,
// into $AWP_SCREENS (a temporary directory without it) for a person to look
// at; it checks each image has the window's size at its scale.
func TestPanelScreens(t *testing.T) {
	dir := screensDir(t)
	for _, v := range themes {
		for _, scale := range []float32{1, 2} {
			f := newFakeNode()
			clock := newArmClock().(*testClock)
			now := clock.now
			f.peers = []peer.PeerInfo{
				{Key: aliceKey, Name: "alice", Up: true, RTTms: 12, Trusted: true},
				{Key: bobKey, Name: "bob", Listen: []string{"tcp://10.0.0.2:7000"}, IntroducedBy: aliceKey,
					LastSeen: time.Now().Add(-5 * time.Minute).Format(time.RFC3339Nano)},
			}
			doc := func(d presence.Doc, hops int) peer.PresenceInfo {
				b, _ := json.Marshal(d)
				return peer.PresenceInfo{Doc: b, Hops: hops}
			}
			f.Fake.PresenceList = []peer.PresenceInfo{
				doc(presence.Doc{Origin: aliceKey.String(), Name: "alice", Harness: "claude-code", Model: "opus", Host: "build-box", Version: "0.1.0",
					Threads: []presence.ThreadEntry{{Th: "thr_d", Peer: carolKey.String(), Subject: "Deploy", Mine: "working"}}}, 1),
				doc(presence.Doc{Origin: carolKey.String(), Name: "carol", Harness: "codex", Model: "gpt-5", Host: "ci-7"}, 2),
			}
			f.threads = []peer.ThreadInfo{
				{Th: "thr_p", Peer: aliceKey, PeerName: "alice", Subject: "Port the auth middleware", Mine: "working", Unread: 2, Updated: "2026-09-25T16:59:00Z"},
				{Th: "thr_r", Peer: aliceKey, PeerName: "alice", Subject: "Release build", Theirs: "blocked", Updated: "2026-09-25T16:50:00Z", Private: true},
			}
			f.Fake.Hosts = []key.PublicKey{aliceKey}
			req := execReq("apr_1", aliceKey, "make test")
			req.FromName, req.Reason = "alice", "no grant"
			req.Created, req.Deadline = now.Add(-48*time.Second).Format(time.RFC3339Nano), now.Add(4*time.Minute+12*time.Second).Format(time.RFC3339Nano)
			f.Fake.History = []peer.ApprovalRecord{
				{Request: execReq("apr_0", bobKey, "rm -rf build"), Decision: peer.Decision{By: "timeout"}, At: now.Add(-20 * time.Minute).Format(time.RFC3339Nano)},
				{Request: readReq("apr_x", aliceKey, "notes/todo.md"), Decision: peer.Decision{Allow: true, For: time.Hour, By: "user"}, At: now.Add(-45 * time.Minute).Format(time.RFC3339Nano)},
			}
			a, _ := newTestApp(t, f)
			test.ApplyTheme(t, v.th)
			a.refresh(dirtyAll)
			a.Wait()
			shot := func(w fyne.Window, name string, size fyne.Size) {
				t.Helper()
				writeShot(t, w, filepath.Join(dir, fmt.Sprintf("%s-%s-%gx.png", name, v.name, scale)), size, scale)
			}

			a.showPresence()
			a.Wait()
			shot(a.presence.w, "presence", fyne.NewSize(760, 520))
			row := a.presence.list.CreateItem()
			a.presence.list.UpdateItem(1, row)
			test.Tap(a.presence.views[row].trust)
			shot(a.presence.w, "presence-trust", fyne.NewSize(760, 520))
			a.presence.list.UpdateItem(0, row)
			test.Tap(a.presence.views[row].msg)
			shot(a.presence.w, "presence-message", fyne.NewSize(760, 520))

			arrive(a, f, req)
			w := a.approvals
			w.clock = clock
			w.rearm()
			w.looked()
			a.refresh(dirtyApprovals)
			a.Wait()
			shot(w.w, "approvals", fyne.NewSize(860, 620))

			a.showSettings()
			a.Wait()
			shot(a.settings.w, "settings", fyne.NewSize(620, 640))
			a.settings.presence.SetSelected("none") // the fake's detail is full
			if a.settings.save.Disabled() {
				t.Error("Save disabled after a change")
			}
			shot(a.settings.w, "settings-changed", fyne.NewSize(620, 640))
			test.Tap(a.settings.save)
			a.Wait()
			shot(a.settings.w, "settings-saved", fyne.NewSize(620, 640))

			f.Fake.AddErr = fmt.Errorf("%w: illegal base64 data at input byte 16", peer.ErrBadInvite)
			d := a.addPeerIn(a.main.w)
			d.items[0].Widget.(*widget.Entry).SetText("awp:eyJrZXkiOiJlZDI1NTE5OkFBQUFB%%")
			test.Tap(d.ok)
			a.Wait()
			shot(a.main.w, "addpeer-error", fyne.NewSize(720, 420))
			d.d.Hide()

			tw := a.openThread(f.threads[1])
			a.Wait()
			shot(tw.w, "thread-private", fyne.NewSize(860, 300))
			f.Fake.Hosts = nil
			a.refresh(dirtyThreads)
			a.Wait()
			tw0 := a.openThread(f.threads[0])
			a.Wait()
			test.Tap(tw0.private)
			shot(tw0.w, "thread-keep-private", fyne.NewSize(860, 400))

			a.handle(peer.Event{Type: peer.EventDialError, Of: "tcp://10.0.0.2:7000", Peer: bobKey, Err: "transport: dial tcp://10.0.0.2:7000: connection refused"})
			// Two layouts, as the running app makes them on its next frames:
			// the first gives the wrapped notice its width, the second the
			// height its lines take (the test canvas lays out on a resize).
			a.main.w.Resize(fyne.NewSize(720, 430))
			shot(a.main.w, "home-dial-error", fyne.NewSize(720, 440))
		}
	}
}

// screensDir is where the screenshot tests write: $AWP_SCREENS, or a
// temporary directory.
func screensDir(t *testing.T) string {
	dir := os.Getenv("AWP_SCREENS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// writeShot sizes w at scale, checks its image has that size in pixels and
// writes it to path as PNG.
func writeShot(t *testing.T, w fyne.Window, path string, size fyne.Size, scale float32) {
	t.Helper()
	w.Canvas().(test.WindowlessCanvas).SetScale(scale)
	w.Resize(size)
	img := w.Canvas().Capture()
	if b := img.Bounds(); b.Dx() != int(size.Width*scale) || b.Dy() != int(size.Height*scale) {
		t.Errorf("%s: image %v at scale %v", filepath.Base(path), b, scale)
	}
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if err := png.Encode(out, img); err != nil {
		t.Fatal(err)
	}
}
