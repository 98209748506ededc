package app

import (
	"encoding/json"
	"fmt"
	"image/color"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/awp-tray/awp-tray/app/render"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

// openBigThread opens, on an App over a fake node, the window of a
// bigThread th of n lines.
func openBigThread(t *testing.T, th string, n int) (*fakeNode, *App, *threadWindow) {
	t.Helper()
	f := newFakeNode()
	info := bigThread(f, th, n)
	a, _ := newTestApp(t, f)
	tw := a.openThread(info)
	a.Wait()
	return f, a, tw
}

func bigThread(f *fakeNode, th string, n int) peer.ThreadInfo {
	info := peer.ThreadInfo{Th: th, Peer: aliceKey, PeerName: "alice", Subject: "Big", Unread: 3, Lines: n, Updated: "2026-09-25T17:00:00Z"}
	lines := make([]peer.LineInfo, n)
	for i := range lines {
		if i%2 == 0 {
			lines[i] = msgLine("in", aliceKey, uint64(i+1), th, fmt.Sprintf("line %d from alice", i))
		} else {
			lines[i] = msgLine("out", meKey, uint64(i+1), th, fmt.Sprintf("line %d from me", i))
		}
	}
	f.with(func() {
		f.threads = append(f.threads, info)
		f.lines[threadKey{th, key.PublicKey{}}] = lines
	})
	return info
}

func TestThreadOf10000LinesIsVirtualized(t *testing.T) {
	f := newFakeNode()
	info := bigThread(f, "thr_big", 10000)
	a, _ := newTestApp(t, f)

	before := rowViewsMade.Load()
	tw := a.openThread(info)
	a.Wait()
	if got, want := len(tw.rows), 10000*3-1; got != want {
		t.Fatalf("%d rows, want %d", got, want)
	}
	if tw.list.Length() != len(tw.rows) {
		t.Fatalf("list length %d", tw.list.Length())
	}
	tw.w.Resize(fyne.NewSize(800, 600))
	for _, id := range []int{0, 15000, len(tw.rows) - 1, 7} {
		tw.list.ScrollTo(id)
	}
	tw.list.ScrollToBottom()
	made := rowViewsMade.Load() - before
	if made == 0 || made > 200 {
		t.Errorf("%d row views made for %d rows: the list is not recycling", made, len(tw.rows))
	}
	// Viewing an unread thread marks it read.
	f.with(func() {
		if len(f.read) != 1 || f.read[0] != (threadKey{"thr_big", key.PublicKey{}}) {
			t.Errorf("MarkRead calls = %v", f.read)
		}
	})
	if !strings.HasPrefix(tw.w.Title(), "AWP: Big") {
		t.Errorf("title = %q", tw.w.Title())
	}
}

func TestThreadRowRendering(t *testing.T) {
	f := newFakeNode()
	info := peer.ThreadInfo{Th: "thr_x", Peer: aliceKey, Subject: "Parts"}
	raw := `{"t":"msg","id":"01A","ts":"2026-09-25T17:03:11Z","th":"thr_x","parts":[
		{"k":"code","lang":"go","text":"x := 1"},
		{"k":"blob","ref":"b1","name":"out.log","mime":"text/plain","size":100},
		{"k":"blob","ref":"b2","name":"half.bin","size":200}]}`
	f.with(func() {
		f.threads = []peer.ThreadInfo{info}
		f.lines[threadKey{"thr_x", key.PublicKey{}}] = []peer.LineInfo{{Dir: "in", From: aliceKey, Line: json.RawMessage(raw), Seq: 1}}
		f.blobs = []peer.BlobInfo{
			{Ref: "b1", From: aliceKey, Th: "thr_x", Size: 100, Received: 100, Complete: true},
			{Ref: "b2", From: aliceKey, Th: "thr_x", Size: 200, Received: 50},
		}
		f.peers = []peer.PeerInfo{{Key: aliceKey, Name: "alice"}}
	})
	a, _ := newTestApp(t, f)
	tw := a.openThread(info)
	a.Wait()

	kinds := map[render.RowKind]int{}
	for i, r := range tw.rows {
		kinds[r.Kind]++
		view := newRowView()
		tw.updateRow(i, view)
		label, barBox, bar, save := rowParts(view)
		switch r.Kind {
		case render.RowHeader:
			if !label.TextStyle.Bold || !strings.HasPrefix(label.Text, "alice  ") || view.(*rowView).bar.FillColor != render.AvatarColor(aliceKey.String()) {
				t.Errorf("header %q bold=%v", label.Text, label.TextStyle.Bold)
			}
		case render.RowMono:
			if !label.TextStyle.Monospace || label.Text != "x := 1" || view.(*rowView).bg.FillColor == color.Transparent {
				t.Errorf("code row %q mono=%v, not in a box", label.Text, label.TextStyle.Monospace)
			}
		case render.RowCaption:
			if !label.TextStyle.Monospace || label.Text != "go" || view.(*rowView).bg.FillColor == color.Transparent {
				t.Errorf("code caption %q", label.Text)
			}
		case render.RowBlob:
			if !barBox.Visible() || !save.Visible() {
				t.Errorf("blob row %q hides its bar or button", label.Text)
			}
			switch r.Blob.Ref {
			case "b1":
				if bar.Value != 1 || save.Disabled() || !strings.Contains(label.Text, "(complete)") {
					t.Errorf("complete blob: %q bar=%v save disabled=%v", label.Text, bar.Value, save.Disabled())
				}
			case "b2":
				if bar.Value != 0.25 || !save.Disabled() || !strings.Contains(label.Text, "(25%)") {
					t.Errorf("partial blob: %q bar=%v save disabled=%v", label.Text, bar.Value, save.Disabled())
				}
			}
		default:
			if barBox.Visible() || save.Visible() {
				t.Errorf("row %d (%v) shows blob controls", i, r.Kind)
			}
		}
	}
	if kinds[render.RowBlob] != 2 || kinds[render.RowMono] != 1 || kinds[render.RowCaption] != 1 || kinds[render.RowTitle] != 0 {
		t.Errorf("row kinds = %v", kinds)
	}
}

func TestNewLineLoadsOnlyNewLines(t *testing.T) {
	f, a, tw := openBigThread(t, "thr_inc", 10)
	rows := len(tw.rows)
	f.with(func() {
		k := threadKey{"thr_inc", key.PublicKey{}}
		f.lines[k] = append(f.lines[k], msgLine("in", aliceKey, 11, "thr_inc", "eleven"))
	})
	a.handle(peer.Event{Type: peer.EventLine, Th: "thr_inc", Line: &peer.LineInfo{Seq: 11}})
	if len(tw.rows) != rows+3 { // gap, header, text
		t.Fatalf("rows %d → %d, want +3", rows, len(tw.rows))
	}
	if last := tw.rows[len(tw.rows)-1]; last.Text != "eleven" || last.Entry != 10 {
		t.Errorf("last row = %+v", last)
	}
	f.with(func() {
		if len(f.afterArg) != 1 || f.afterArg[0] != 10 {
			t.Errorf("LinesAfter calls = %v, want one after seq 10", f.afterArg)
		}
	})
	// An ack reloads the whole thread (delivery marks change).
	n := f.linesN
	a.handle(peer.Event{Type: peer.EventAck, Th: "thr_inc"})
	if f.linesN != n+1 || len(tw.rows) != rows+3 {
		t.Errorf("after ack: Lines calls %d→%d, rows %d", n, f.linesN, len(tw.rows))
	}
}

func TestMirroredThreadIsReadOnly(t *testing.T) {
	f := newFakeNode()
	a, _ := newTestApp(t, f)
	tw := a.openThread(peer.ThreadInfo{Th: "thr_m", Peer: bobKey, MirroredFrom: aliceKey})
	a.Wait()
	if !tw.compose.send.Disabled() || !tw.compose.text.Disabled() {
		t.Error("compose enabled on a mirrored thread")
	}
	if !tw.mirror.Disabled() {
		t.Error("mirror toggle enabled on a thread mirrored to me")
	}
	// Keep private goes to the other party of one of my own threads: on a
	// thread mirrored to me there is none of mine to ask (the node refuses).
	if !tw.private.Disabled() {
		t.Error("Keep private enabled on a thread mirrored to me")
	}
	// Opening it again brings the same window.
	if again := a.openThread(peer.ThreadInfo{Th: "thr_m", MirroredFrom: aliceKey}); again != tw {
		t.Error("a second window for one thread")
	}
	if th, from, ok := a.Focused(); !ok || th != "thr_m" || from.String() != aliceKey.String() {
		t.Errorf("Focused = %q %q %v", th, from, ok)
	}
}

func TestHomeFilter(t *testing.T) {
	f := newFakeNode()
	f.threads = []peer.ThreadInfo{
		{Th: "thr_a", Peer: aliceKey, Subject: "Port the auth middleware", Updated: "2026-09-25T17:00:00Z"},
		{Th: "thr_b", Peer: bobKey, Subject: "Release build", Updated: "2026-09-25T18:00:00Z", Unread: 2},
	}
	f.peers = []peer.PeerInfo{{Key: bobKey, Name: "bob"}}
	a, _ := newTestApp(t, f)
	h := a.main
	if h.list.Length() != 2 || h.shown[0].Th != "thr_b" {
		t.Fatalf("shown = %v", h.shown)
	}
	test.Type(h.filter, "auth")
	if h.list.Length() != 1 || h.shown[0].Th != "thr_a" {
		t.Errorf("filter auth: %v", h.shown)
	}
	h.filter.SetText("bob")
	if h.list.Length() != 1 || h.shown[0].Th != "thr_b" {
		t.Errorf("filter by peer name: %v", h.shown)
	}
	// A row shows subject, bold while unread, and the peer's name.
	h.filter.SetText("")
	row := h.list.CreateItem()
	h.list.UpdateItem(0, row)
	r := row.(*threadRow).r
	if r.Title != "Release build" || !r.Bold || r.Unread != 2 || r.Who != "bob" {
		t.Errorf("row: %+v", r)
	}
	// Selecting a row opens its thread.
	h.list.Select(1)
	a.Wait()
	if a.threads[threadKey{"thr_a", key.PublicKey{}}] == nil {
		t.Error("selecting a thread did not open it")
	}
}

// A message of 900 KB of text in one line (a line may hold 1 MiB) opens as
// list rows, every byte of it kept in order.
func TestThreadHugeMessage(t *testing.T) {
	f := newFakeNode()
	text := strings.Repeat("0123456789", 90_000)
	info := peer.ThreadInfo{Th: "thr_huge", Peer: aliceKey, Subject: "huge", Lines: 1}
	f.with(func() {
		f.threads = append(f.threads, info)
		f.lines[threadKey{"thr_huge", key.PublicKey{}}] = []peer.LineInfo{msgLine("in", aliceKey, 1, "thr_huge", text)}
	})
	a, _ := newTestApp(t, f)
	tw := a.openThread(info)
	a.Wait()
	tw.w.Resize(fyne.NewSize(800, 600))
	tw.list.ScrollToBottom()
	var got strings.Builder
	for _, r := range tw.rows {
		if r.Kind == render.RowHeader {
			continue
		}
		if r.Kind == render.RowText {
			got.WriteString(r.Text)
		}
	}
	if got.String() != text {
		t.Errorf("the rows hold %d of the text's %d bytes, or out of order", got.Len(), len(text))
	}
	if len(tw.rows) < len(text)/200 {
		t.Errorf("%d rows for %d bytes: not wrapped", len(tw.rows), len(text))
	}
}
