//lint:file-ignore SA1019 the built-in light and dark variants (theme.LightTheme, DarkTheme), on purpose

package app

import (
	"image/color"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/awp-tray/awp-tray/app/render"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

// themes are the built-in light and dark themes the screenshot and golden
// tests render in, by name.
var themes = []struct {
	name string
	th   fyne.Theme
}{{"light", theme.LightTheme()}, {"dark", theme.DarkTheme()}}

// A row of the threads list: compact (more than twice as many fit as the
// two-label rows of before, 78 px), its second line and chips meeting
// WCAG AA on the background in both themes, the pill, the avatar and the
// offline marker drawn.
func TestThreadRowLooks(t *testing.T) {
	f := newFakeNode()
	f.threads = []peer.ThreadInfo{
		{Th: "thr_a", Peer: aliceKey, Subject: "Port the auth middleware", Updated: "2026-09-25T17:00:00Z", Unread: 3,
			Mine: "working", Theirs: "open", LastText: "the tests are in services/api", LastFrom: aliceKey},
		{Th: "thr_b", Peer: bobKey, Subject: "Release build", Updated: "2026-09-25T18:00:00Z",
			LastText: "on it", LastFrom: meKey},
	}
	f.peers = []peer.PeerInfo{{Key: aliceKey, Name: "alice", Up: true}, {Key: bobKey, Name: "bob"}}
	a, _ := newTestApp(t, f)
	h := a.main
	for _, v := range themes {
		test.ApplyTheme(t, v.th)
		rows := map[string]*threadRow{}
		for i := range h.shown {
			o := h.list.CreateItem().(*threadRow)
			h.list.UpdateItem(i, o)
			o.Resize(fyne.NewSize(700, o.MinSize().Height))
			rows[h.shown[i].Th] = o
		}
		ra, rb := rows["thr_a"], rows["thr_b"]
		t.Logf("%s: row height %v", v.name, ra.MinSize().Height)
		if hgt := ra.MinSize().Height; hgt > 78/2+12 {
			t.Errorf("%s: row height %v, want compact (at most 51)", v.name, hgt)
		}
		rr := test.TempWidgetRenderer(t, ra).(*threadRowRenderer)
		bg := v.th.Color(theme.ColorNameBackground, fyne.CurrentApp().Settings().ThemeVariant())
		for what, c := range map[string]color.Color{"preview": rr.preview.Color, "time": rr.when.Color, "subject": rr.title.Color} {
			if got := render.Contrast(c, bg); got < render.AAContrast {
				t.Errorf("%s: %s %v on %v: %.2f:1, below AA", v.name, what, c, bg, got)
			}
		}
		for i, tx := range rr.chipText {
			if tx.Visible() {
				if got := render.Contrast(tx.Color, render.Over(rr.chipBG[i].FillColor, bg)); got < render.AAContrast {
					t.Errorf("%s: chip %q %.2f:1", v.name, tx.Text, got)
				}
			}
		}
		if got := render.Contrast(rr.count.Color, rr.pill.FillColor); got < render.AAContrast {
			t.Errorf("%s: pill count %.2f:1", v.name, got)
		}
		if !rr.pill.Visible() || rr.count.Text != "3" || !rr.title.TextStyle.Bold {
			t.Errorf("%s: unread pill %v %q bold %v", v.name, rr.pill.Visible(), rr.count.Text, rr.title.TextStyle.Bold)
		}
		if rr.initial.Text != "A" || rr.avatar.FillColor != render.AvatarColor(aliceKey.String()) {
			t.Errorf("%s: avatar %q %v", v.name, rr.initial.Text, rr.avatar.FillColor)
		}
		if !strings.Contains(rr.preview.Text, "the tests are in services/api") {
			t.Errorf("%s: preview %q", v.name, rr.preview.Text)
		}
		chips := 0
		for _, tx := range rr.chipText {
			if tx.Visible() {
				chips++
			}
		}
		if chips != 2 {
			t.Errorf("%s: %d state chips shown, want 2", v.name, chips)
		}
		up := v.th.Color(theme.ColorNameSuccess, fyne.CurrentApp().Settings().ThemeVariant())
		if rr.dot.FillColor != up {
			t.Errorf("%s: alice is up, dot %v", v.name, rr.dot.FillColor)
		}
		rb2 := test.TempWidgetRenderer(t, rb).(*threadRowRenderer)
		if rb2.dot.FillColor == up || !strings.Contains(rb2.preview.Text, "(offline)") || !strings.Contains(rb2.preview.Text, "you: on it") {
			t.Errorf("%s: bob offline: dot %v, %q", v.name, rb2.dot.FillColor, rb2.preview.Text)
		}
		if rb2.pill.Visible() || rb2.title.TextStyle.Bold {
			t.Errorf("%s: a read thread shows a pill or bold", v.name)
		}
	}
	// In the window's 420 px of list, far more rows than 4-5 fit.
	h.w.Resize(fyne.NewSize(720, 520))
	if n := int(h.list.Size().Height / (h.list.CreateItem().MinSize().Height + theme.Padding())); n < 7 {
		t.Errorf("%d rows fit in %v", n, h.list.Size())
	}
}

// The chat's colours: text on my lines' tint and in a code box meets AA
// in both themes.
func TestChatContrast(t *testing.T) {
	a, _ := newTestApp(t, newFakeNode())
	_ = a
	for _, v := range themes {
		test.ApplyTheme(t, v.th)
		vr := fyne.CurrentApp().Settings().ThemeVariant()
		bg := v.th.Color(theme.ColorNameBackground, vr)
		fg := v.th.Color(theme.ColorNameForeground, vr)
		for _, r := range []render.Row{{Kind: render.RowText, Mine: true}, {Kind: render.RowMono}, {Kind: render.RowCaption, Mine: true}} {
			fill, _ := rowFills(r)
			if got := render.Contrast(fg, render.Over(fill, bg)); got < render.AAContrast {
				t.Errorf("%s: row kind %d mine %v: %.2f:1", v.name, r.Kind, r.Mine, got)
			}
			if fill == color.Transparent {
				t.Errorf("%s: row kind %d mine %v has no fill: not told apart", v.name, r.Kind, r.Mine)
			}
		}
	}
}

// The composer: Enter sends, Shift+Enter is a new line, Esc closes the
// window; attachments are chips that come off; a send scrolls to the end.
func TestComposerKeys(t *testing.T) {
	f, a, tw := openBigThread(t, "thr_keys", 200)
	tw.w.Resize(fyne.NewSize(800, 600))
	tw.list.ScrollToTop()
	c := tw.compose
	tw.w.Canvas().Focus(c.text)

	test.Type(c.text, "first line")
	c.text.KeyDown(&fyne.KeyEvent{Name: desktop.KeyShiftLeft})
	c.text.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	c.text.KeyUp(&fyne.KeyEvent{Name: desktop.KeyShiftLeft})
	test.Type(c.text, "second")
	if c.text.Text != "first line\nsecond" || len(f.sent) != 0 {
		t.Fatalf("Shift+Enter: text %q, %d sent", c.text.Text, len(f.sent))
	}

	c.files = []string{"/tmp/a.log", "/tmp/b.png", "/tmp/c.txt"}
	c.showFiles()
	if len(c.chips.Objects) != 3 {
		t.Fatalf("%d chips for 3 files", len(c.chips.Objects))
	}
	test.Tap(findButton(c.chips, "b.png"))
	if strings.Join(c.files, ",") != "/tmp/a.log,/tmp/c.txt" || len(c.chips.Objects) != 2 {
		t.Errorf("after removing b.png: files %v, %d chips", c.files, len(c.chips.Objects))
	}

	// Enter sends the text and the files; the new line lands at the end,
	// and the view follows it though it was scrolled up.
	f.with(func() {
		k := threadKey{"thr_keys", key.PublicKey{}}
		f.lines[k] = append(f.lines[k], msgLine("out", meKey, 201, "thr_keys", "first line\nsecond"))
	})
	c.text.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	a.Wait()
	f.with(func() {
		if len(f.sent) != 1 || len(f.sent[0].Blobs) != 2 || !strings.Contains(string(f.sent[0].Parts[0]), `first line\nsecond`) {
			t.Fatalf("sent %+v", f.sent)
		}
	})
	if c.text.Text != "" || len(c.chips.Objects) != 0 {
		t.Errorf("after send: text %q, %d chips", c.text.Text, len(c.chips.Objects))
	}
	a.handle(peer.Event{Type: peer.EventLine, Th: "thr_keys", Line: &peer.LineInfo{Seq: 201}})
	if !tw.atBottom() || tw.list.GetScrollOffset() == 0 {
		t.Errorf("after send the view is at %v, not at the end", tw.list.GetScrollOffset())
	}
	if last := tw.rows[len(tw.rows)-1]; last.Text != "second" || !last.Mine {
		t.Errorf("last row %+v", last)
	}

	// Esc closes the window.
	c.text.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if a.threads[threadKey{"thr_keys", key.PublicKey{}}] != nil {
		t.Error("Esc left the window open")
	}
}

// A file I sent shows as sent, with Save enabled: the node lists it under
// its recipient, complete (it used to show "(waiting for data) 0%").
func TestSentBlobShowsSent(t *testing.T) {
	f := newFakeNode()
	info := peer.ThreadInfo{Th: "thr_s", Peer: aliceKey, Subject: "logs"}
	raw := `{"t":"msg","id":"01A","ts":"2026-09-25T17:03:11Z","th":"thr_s","parts":[{"k":"blob","ref":"b1","name":"build.log","size":100}]}`
	f.with(func() {
		f.threads = []peer.ThreadInfo{info}
		f.lines[threadKey{"thr_s", key.PublicKey{}}] = []peer.LineInfo{{Dir: "out", From: meKey, Line: []byte(raw), Seq: 1, Acked: true}}
		f.blobs = []peer.BlobInfo{{Ref: "b1", From: aliceKey, Th: "thr_s", Size: 100, Received: 100, Complete: true, Dir: "out"}}
	})
	a, _ := newTestApp(t, f)
	tw := a.openThread(info)
	a.Wait()
	found := false
	for i, r := range tw.rows {
		if r.Kind != render.RowBlob {
			continue
		}
		found = true
		view := newRowView()
		tw.updateRow(i, view)
		label, _, bar, save := rowParts(view)
		if !strings.Contains(label.Text, "(sent)") || bar.Value != 1 || save.Disabled() {
			t.Errorf("sent file: %q bar %v save disabled %v", label.Text, bar.Value, save.Disabled())
		}
	}
	if !found {
		t.Fatal("no file row")
	}
}

// A mirrored thread is read-only: a banner says why, and there is no
// composer.
func TestMirroredBanner(t *testing.T) {
	f := newFakeNode()
	f.peers = []peer.PeerInfo{{Key: aliceKey, Name: "alice"}}
	a, _ := newTestApp(t, f)
	tw := a.openThread(peer.ThreadInfo{Th: "thr_m", Peer: bobKey, MirroredFrom: aliceKey})
	a.Wait()
	if !tw.banner.Visible() || !strings.Contains(tw.banner.Text, "Read-only") || !strings.Contains(tw.banner.Text, "alice") {
		t.Errorf("banner %q visible %v", tw.banner.Text, tw.banner.Visible())
	}
	if tw.compose.box.Visible() {
		t.Error("the composer shows on a mirrored thread")
	}
	mine := a.openThread(peer.ThreadInfo{Th: "thr_own", Peer: bobKey})
	a.Wait()
	if mine.banner.Visible() || !mine.compose.box.Visible() {
		t.Error("my own thread is read-only")
	}
}
