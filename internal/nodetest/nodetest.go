// Package nodetest starts real peer.Nodes for the tests of the packages
// around the node (the tray process, the UI): fixed keys, temporary
// stores, tcp://127.0.0.1:0, closed when the test ends. It is imported by
// tests only.
package nodetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/key/keytest"
	"github.com/awp-tray/awp-tray/peer/profile"
)

// Wait bounds a wait in these helpers: it only turns a hang into a
// failure; nothing depends on how fast a node is.
const Wait = 30 * time.Second

// tlog routes a node's log to t.Logf under its name.
type tlog struct {
	t    testing.TB
	name string
}

func (w tlog) Write(b []byte) (int, error) {
	w.t.Logf("%s: %s", w.name, bytes.TrimSpace(b))
	return len(b), nil
}

// New starts a node named name with the key of seed (32 bytes of seed) on
// a temporary store; mod may change its Config first (RandomKey: a key of
// its own).
func New(t testing.TB, name string, seed byte, mod ...func(*peer.Config)) *peer.Node {
	t.Helper()
	k := keytest.Seeded(t, seed)
	cfg := peer.Config{
		Key: k, DataDir: t.TempDir(), Name: name, Listen: []string{"tcp://127.0.0.1:0"},
		Logger: slog.New(slog.NewTextHandler(tlog{t, name}, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	for _, m := range mod {
		m(&cfg)
	}
	n, err := peer.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := n.Close(); err != nil {
			t.Errorf("%s: close: %v", name, err)
		}
	})
	return n
}

// RandomKey is an option of New: a new random key instead of the seed's,
// for tests that start nodes a seed would not tell apart (two of the same
// name, as many as a benchmark wants).
func RandomKey(t testing.TB) func(*peer.Config) {
	t.Helper()
	k, err := key.NewPrivate()
	if err != nil {
		t.Fatal(err)
	}
	return func(c *peer.Config) { c.Key = k }
}

// Link connects a to b and waits for the handshake.
func Link(t testing.TB, a, b *peer.Node) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Wait)
	defer cancel()
	k, err := a.Connect(ctx, b.ListenAddrs()[0])
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if k != b.Key() {
		t.Fatalf("connected to %s, want %s", k, b.Key())
	}
}

// TextPart is a wire text part.
func TextPart(text string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"k": "text", "text": text})
	return b
}

// Say sends a text msg from n to to in thread th ("": a new thread with
// subject).
func Say(t testing.TB, n *peer.Node, to key.PublicKey, th, subject, text string) peer.SendResult {
	t.Helper()
	r, err := n.Send(context.Background(), peer.SendRequest{To: to, Th: th, Subject: subject, Parts: []json.RawMessage{TextPart(text)}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// ExecRequest sends an exec request for cmd from n to to; its answer (nil
// for a result with exit 0) arrives on the channel.
func ExecRequest(n *peer.Node, to key.PublicKey, cmd string) <-chan error {
	out := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*Wait)
		defer cancel()
		data, _ := json.Marshal(map[string]any{"cmd": cmd, "timeout": 10})
		res, err := n.Request(ctx, to, profile.MimeExec, data, "")
		if err == nil && !strings.Contains(string(res), `"exit":0`) {
			err = errors.New("result without exit 0: " + string(res))
		}
		out <- err
	}()
	return out
}
