package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/awp-tray/awp-tray/app/menu"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/localapi"
	"github.com/awp-tray/awp-tray/peer/localapi/localapitest"
)

var _ localapi.Backend = (*fakeNode)(nil)

// Keys used by the tests.
var (
	meKey    = mustKey(1)
	aliceKey = mustKey(2)
	bobKey   = mustKey(3)
)

func mustKey(b byte) key.PublicKey {
	k, err := key.PublicFromBytes(bytes.Repeat([]byte{b}, 32))
	if err != nil {
		panic(err)
	}
	return k
}

// fakeNode is an in-memory Backend that records what the UI asks. It is
// localapitest.Fake (the local API's fake, which implements the whole
// Backend) with the methods the UI tests count or stage overridden.
type fakeNode struct {
	*localapitest.Fake

	mu       sync.Mutex
	threads  []peer.ThreadInfo
	lines    map[threadKey][]peer.LineInfo
	peers    []peer.PeerInfo
	blobs    []peer.BlobInfo
	pending  []peer.ApprovalRequest
	sent     []peer.SendRequest
	states   []string
	read     []threadKey
	decided  map[string]peer.Decision
	trusted  map[key.PublicKey]bool
	dialed   []string
	dialKey  map[string]key.PublicKey // address → key that answers
	afterArg []uint64                 // LinesAfter calls
	linesN   int                      // Lines calls
	events   chan peer.Event
	blobData map[string][]byte
}

func newFakeNode() *fakeNode {
	return &fakeNode{
		Fake:  &localapitest.Fake{InviteV: "awp:fake-invite"},
		lines: map[threadKey][]peer.LineInfo{}, decided: map[string]peer.Decision{},
		trusted: map[key.PublicKey]bool{}, dialKey: map[string]key.PublicKey{}, blobData: map[string][]byte{},
		events: make(chan peer.Event, 64),
	}
}

func (f *fakeNode) Key() key.PublicKey    { return meKey }
func (f *fakeNode) Name() string          { return "me@test" }
func (f *fakeNode) ListenAddrs() []string { return []string{"tcp://127.0.0.1:7100"} }

func (f *fakeNode) Connect(ctx context.Context, addr string) (key.PublicKey, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dialed = append(f.dialed, addr)
	if k, ok := f.dialKey[addr]; ok {
		return k, nil
	}
	return key.PublicKey{}, errors.New("connection refused")
}

func (f *fakeNode) Send(ctx context.Context, r peer.SendRequest) (peer.SendResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, r)
	th := r.Th
	if th == "" {
		th = fmt.Sprintf("thr_new%d", len(f.sent))
	}
	return peer.SendResult{ID: fmt.Sprintf("01SENT%d", len(f.sent)), Th: th}, nil
}

func (f *fakeNode) SetState(ctx context.Context, th, state, note string) (peer.SendResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.states = append(f.states, th+" "+state+" "+note)
	return peer.SendResult{ID: "01STATE", Th: th}, nil
}

func (f *fakeNode) Threads() ([]peer.ThreadInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]peer.ThreadInfo(nil), f.threads...), nil
}

func (f *fakeNode) Thread(th string, from key.PublicKey) (peer.ThreadInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, t := range f.threads {
		if t.Th == th && t.MirroredFrom == from {
			return t, nil
		}
	}
	return peer.ThreadInfo{}, errors.New("no such thread")
}

func (f *fakeNode) Lines(th string, from key.PublicKey) ([]peer.LineInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.linesN++
	return append([]peer.LineInfo(nil), f.lines[threadKey{th, from}]...), nil
}

func (f *fakeNode) LinesAfter(th string, from key.PublicKey, after uint64, limit int) ([]peer.LineInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.afterArg = append(f.afterArg, after)
	var out []peer.LineInfo
	for _, l := range f.lines[threadKey{th, from}] {
		if l.Seq > after {
			out = append(out, l)
		}
	}
	return out, nil
}

func (f *fakeNode) MarkRead(th string, from key.PublicKey) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.read = append(f.read, threadKey{th, from})
	return nil
}

func (f *fakeNode) Peers() ([]peer.PeerInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]peer.PeerInfo(nil), f.peers...), nil
}

func (f *fakeNode) Trust(k key.PublicKey, trusted bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.trusted[k] = trusted
	return nil
}

func (f *fakeNode) Blobs() ([]peer.BlobInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]peer.BlobInfo(nil), f.blobs...), nil
}

func (f *fakeNode) OpenBlob(from key.PublicKey, ref string) (io.ReadCloser, peer.BlobInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.blobData[from.String()+"/"+ref]
	if !ok {
		return nil, peer.BlobInfo{}, errors.New("no blob")
	}
	return io.NopCloser(bytes.NewReader(b)), peer.BlobInfo{Ref: ref, From: from}, nil
}

func (f *fakeNode) Subscribe(buf int) (<-chan peer.Event, func()) {
	var once sync.Once
	return f.events, func() { once.Do(func() {}) }
}

func (f *fakeNode) Pending() []peer.ApprovalRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]peer.ApprovalRequest(nil), f.pending...)
}

func (f *fakeNode) Decide(id string, d peer.Decision) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.decided[id] = d
	for i, p := range f.pending {
		if p.ID == id {
			f.pending = append(f.pending[:i], f.pending[i+1:]...)
			break
		}
	}
	return nil
}

// with runs fn under the fake's lock (to change or read its state).
func (f *fakeNode) with(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn()
}

// fakeTray records what the UI tells the tray process.
type fakeTray struct {
	mu       sync.Mutex
	focus    []string // "th from", "" for none
	pauses   []menu.Pause
	fileKeys []bool
	quits    int
}

func (t *fakeTray) Focus(th string, from key.PublicKey) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.focus = append(t.focus, strings.TrimSpace(th+" "+from.String()))
}

func (t *fakeTray) SetPause(p menu.Pause) { t.mu.Lock(); t.pauses = append(t.pauses, p); t.mu.Unlock() }
func (t *fakeTray) FileKey(ok bool)       { t.mu.Lock(); t.fileKeys = append(t.fileKeys, ok); t.mu.Unlock() }
func (t *fakeTray) Quit()                 { t.mu.Lock(); t.quits++; t.mu.Unlock() }

// newTestApp builds an App on Fyne's headless test driver with a fake
// tray line; the node (if any) is attached but its event loop is not
// started, so tests drive events synchronously with handle.
func newTestApp(t testing.TB, f *fakeNode, mod ...func(*Options)) (*App, *fakeTray) {
	t.Helper()
	fa := test.NewTempApp(t)
	tray := &fakeTray{}
	o := Options{DataDir: t.TempDir(), Tray: tray, AutostartDir: t.TempDir(), Exec: "/usr/bin/awp-tray"}
	for _, m := range mod {
		m(&o)
	}
	a := New(fa, o)
	if f != nil {
		a.mu.Lock()
		a.be = f
		a.mu.Unlock()
		a.refresh(dirtyAll)
		a.Wait()
	}
	t.Cleanup(a.Close)
	return a, tray
}

// handle applies events as the event loop would, then waits for the
// background work they started.
func (a *App) handle(evs ...peer.Event) {
	var w work
	for _, ev := range evs {
		w.classify(ev)
	}
	a.apply(w)
	a.Wait()
}

// msgLine is a wire msg line with one text part.
func msgLine(dir string, from key.PublicKey, seq uint64, th, text string) peer.LineInfo {
	b, _ := json.Marshal(map[string]any{"t": "msg", "id": fmt.Sprintf("%026d", seq), "ts": "2026-09-25T17:03:11Z", "th": th,
		"parts": []any{map[string]string{"k": "text", "text": text}}})
	return peer.LineInfo{Dir: dir, From: from, Line: b, Seq: seq, Acked: dir == "out"}
}
