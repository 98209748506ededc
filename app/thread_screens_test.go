//lint:file-ignore SA1019 the built-in light and dark variants (theme.LightTheme, DarkTheme), on purpose

package app

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/awp-tray/awp-tray/internal/nodetest"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// TestThreadScreens renders the threads list and a thread, light and
// dark, at scale 1 and 2, into $AWP_SCREENS (a temporary directory
// without it) for a person to look at; it checks each image has the
// window's size at its scale.
func TestThreadScreens(t *testing.T) {
	dir := screensDir(t)
	s := newGoldenScene(t)
	na := s.na
	// A longer exchange: a paragraph that wraps, code, JSON, two lines
	// in a row from alice, my state.
	ctx := context.Background()
	nodetest.Say(t, s.alice, s.me.Key(), goldenThA, "", "Here is where it fails. The middleware reads the session cookie before the CSRF check runs, so a request without a cookie never reaches the handler that would have answered 401; it panics instead on the nil session, and the recovery middleware turns that into a 500.")
	nodetest.Say(t, s.alice, s.me.Key(), goldenThA, "", "The stack trace, for reference, is in the attached log.")
	data, _ := wire.DataPart("application/json", json.RawMessage(`{"status":500,"route":"/v1/session","cookie":null}`))
	if _, err := s.alice.Send(ctx, peer.SendRequest{To: s.me.Key(), Th: goldenThA, Parts: []json.RawMessage{
		wire.TextPart("A fix that reads the session after the check:"),
		wire.CodePart("func (m *Middleware) ServeHTTP(w http.ResponseWriter, r *http.Request) {\n\tif !m.csrf.Valid(r) {\n\t\thttp.Error(w, \"forbidden\", 403)\n\t\treturn\n\t}\n\tm.next.ServeHTTP(w, r)\n}", "go", "services/api/auth.go"),
		data,
	}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.me.SetState(ctx, goldenThA, "done", "merged in #42"); err != nil {
		t.Fatal(err)
	}
	na.pump(t, "the new lines", func() bool { ti, _ := na.thread(goldenThA); return ti.Lines >= 7 })
	info, _ := na.thread(goldenThA)
	for _, v := range themes {
		for _, scale := range []float32{1, 2} {
			test.ApplyTheme(t, v.th)
			shot := func(w fyne.Window, name string, size fyne.Size) {
				writeShot(t, w, filepath.Join(dir, fmt.Sprintf("%s-%s-%gx.png", name, v.name, scale)), size, scale)
			}
			na.refresh(dirtyAll)
			na.Wait()
			shot(na.main.w, "threads", fyne.NewSize(720, 420))
			tw := na.openThread(info)
			na.Wait()
			tw.w.Resize(fyne.NewSize(860, 560))
			tw.list.ScrollToTop()
			shot(tw.w, "thread-top", fyne.NewSize(860, 560))
			tw.list.ScrollToBottom()
			shot(tw.w, "thread", fyne.NewSize(860, 560))
			tw.closeAsked()
			for _, ti := range na.main.shown {
				if ti.Subject == peer.RequestsSubject {
					rw := na.openThread(ti)
					na.Wait()
					shot(rw.w, "thread-requests", fyne.NewSize(860, 560))
					rw.closeAsked()
				}
			}
		}
	}
	// A thread mirrored to me, on a fake node (its own app, so after the
	// others): read-only, a banner, no composer.
	for _, v := range themes {
		for _, scale := range []float32{1, 2} {
			f := newFakeNode()
			f.peers = []peer.PeerInfo{{Key: aliceKey, Name: "alice", Up: true}, {Key: bobKey, Name: "bob"}}
			mi := peer.ThreadInfo{Th: "thr_m", Peer: bobKey, PeerName: "bob", Subject: "Flaky integration test", MirroredFrom: aliceKey}
			f.threads = []peer.ThreadInfo{mi}
			f.lines[threadKey{"thr_m", aliceKey}] = []peer.LineInfo{
				msgLine("out", aliceKey, 1, "thr_m", "the integration test fails one run in five on arm64"),
				msgLine("in", bobKey, 2, "thr_m", "I can reproduce it with -count=20; looking at the timeout"),
			}
			for i := range f.lines[threadKey{"thr_m", aliceKey}] {
				f.lines[threadKey{"thr_m", aliceKey}][i].MirroredFrom = aliceKey
			}
			fa, _ := newTestApp(t, f)
			test.ApplyTheme(t, v.th)
			mw := fa.openThread(mi)
			fa.Wait()
			writeShot(t, mw.w, filepath.Join(dir, fmt.Sprintf("thread-mirrored-%s-%gx.png", v.name, scale)), fyne.NewSize(860, 400), scale)
		}
	}
}
