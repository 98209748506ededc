package peer

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// testNode is a node on a temp data dir that can restart on the same dir.
type testNode struct {
	*Node
	t    testing.TB
	cfg  Config
	name string
}

type tlogWriter struct {
	t    testing.TB
	name string
}

func (w tlogWriter) Write(b []byte) (int, error) {
	w.t.Helper()
	w.t.Logf("%s: %s", w.name, b)
	return len(b), nil
}

func newTestNode(t testing.TB, name string, mod ...func(*Config)) *testNode {
	t.Helper()
	k, err := key.NewPrivate()
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{
		Key: k, DataDir: t.TempDir(), Name: name, Listen: []string{"tcp://127.0.0.1:0"},
		Logger: slog.New(slog.NewTextHandler(tlogWriter{t, name}, &slog.HandlerOptions{Level: slog.LevelInfo})),
	}
	for _, m := range mod {
		m(&cfg)
	}
	tn := &testNode{t: t, cfg: cfg, name: name}
	tn.start()
	t.Cleanup(func() { tn.Close() })
	return tn
}

func (tn *testNode) start() {
	tn.t.Helper()
	n, err := New(tn.cfg)
	if err != nil {
		tn.t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		tn.t.Fatal(err)
	}
	tn.Node = n
	tn.cfg.Listen = n.ListenAddrs()
}

// restart closes the node and opens it again on the same data dir, listening
// on the same address.
func (tn *testNode) restart() {
	tn.t.Helper()
	tn.Close()
	tn.start()
}

func (tn *testNode) addr() string { return tn.ListenAddrs()[0] }

func connect(t testing.TB, a, b *testNode) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	k, err := a.Connect(ctx, b.addr())
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if k != b.Key() {
		t.Fatalf("connected to %s, want %s", k, b.Key())
	}
}

// connectedPair starts nodes "a" and "b" and connects a to b.
func connectedPair(t testing.TB) (a, b *testNode) {
	t.Helper()
	a, b = newTestNode(t, "a"), newTestNode(t, "b")
	connect(t, a, b)
	return a, b
}

func sendText(t testing.TB, n *testNode, to key.PublicKey, th, text string) SendResult {
	t.Helper()
	r, err := n.Send(context.Background(), SendRequest{To: to, Th: th, Subject: "s", Parts: []json.RawMessage{wire.TextPart(text)}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// replayAcrossRestart closes b, sends it n texts prefix0 … prefix(n-1)
// from a on th while it is down, brings it back with restart, and checks
// b then holds them after the have lines it had, in order.
func replayAcrossRestart(t *testing.T, a, b *testNode, th string, have, n int, prefix string, restart func()) {
	t.Helper()
	b.Close()
	for i := 0; i < n; i++ {
		sendText(t, a, b.Key(), th, fmt.Sprint(prefix, i))
	}
	restart()
	testsync.Eventually(t, "replayed after restart", func() bool {
		ls, _ := b.Lines(th, key.PublicKey{})
		return len(ls) == have+n
	})
	ls, _ := b.Lines(th, key.PublicKey{})
	for i, l := range ls[have:] {
		var m wire.Msg
		json.Unmarshal(l.Line, &m)
		if txt := m.DecodeParts()[0].Text; txt != fmt.Sprint(prefix, i) {
			t.Fatalf("line %d is %q (order broken)", i, txt)
		}
	}
}

type storeTx = store.Tx

func parseKey(s string) (key.PublicKey, error) { return key.ParsePublic(s) }

// msgsAndBlob checks a connected pair end to end: a msg each way, both
// acked, then a 1.5 MiB blob from a to b that arrives intact. It returns
// a's first send (its thread carries all of it).
func msgsAndBlob(t *testing.T, a, b *testNode) SendResult {
	t.Helper()
	r := sendText(t, a, b.Key(), "", "ping")
	sendText(t, b, a.Key(), r.Th, "pong")
	testsync.Eventually(t, "both lines on both sides", func() bool {
		la, _ := a.Lines(r.Th, key.PublicKey{})
		lb, _ := b.Lines(r.Th, key.PublicKey{})
		return len(la) == 2 && len(lb) == 2 && allOutAcked(la) && allOutAcked(lb)
	})
	data := make([]byte, 3<<19)
	rand.Read(data)
	p := filepath.Join(t.TempDir(), "blob.bin")
	os.WriteFile(p, data, 0o600)
	br, err := a.Send(context.Background(), SendRequest{To: b.Key(), Th: r.Th, Parts: []json.RawMessage{wire.TextPart("blob")}, Blobs: []BlobFile{{Path: p}}})
	if err != nil {
		t.Fatal(err)
	}
	ls, _ := a.Lines(br.Th, key.PublicKey{})
	var m wire.Msg
	json.Unmarshal(ls[len(ls)-1].Line, &m)
	ref := m.DecodeParts()[1].Ref
	testsync.Eventually(t, "blob complete", func() bool {
		rc, _, err := b.OpenBlob(a.Key(), ref)
		if err != nil {
			return false
		}
		got, _ := io.ReadAll(rc)
		rc.Close()
		return string(got) == string(data)
	})
	return r
}

// keysText joins keys' text with commas.
func keysText(ks []key.PublicKey) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = k.String()
	}
	return strings.Join(s, ",")
}
