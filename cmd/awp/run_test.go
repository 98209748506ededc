package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/localapi"
	"github.com/awp-tray/awp-tray/peer/localapi/localapitest"
)

// fakeNode is a node with a fake backend and a recorded lifecycle.
type fakeNode struct {
	*localapitest.Fake
	sock string
	done chan struct{}

	mu          sync.Mutex
	started     bool
	closes      int
	sockAtClose bool // the control socket still existed when Close ran
	startErr    error
}

func newFakeNode(t *testing.T, dir string) *fakeNode {
	k, err := key.NewPrivate()
	if err != nil {
		t.Fatal(err)
	}
	return &fakeNode{
		Fake: &localapitest.Fake{PubKey: k.Public(), NameV: "fn", Listens: []string{"tcp://127.0.0.1:7000"}},
		sock: localapi.SocketPath(dir),
		done: make(chan struct{}),
	}
}

func (n *fakeNode) Start() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.started = true
	return n.startErr
}

func (n *fakeNode) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.closes++
	_, err := os.Stat(n.sock)
	n.sockAtClose = err == nil
	return nil
}

func (n *fakeNode) Done() <-chan struct{} { return n.done }

func TestServeNodeShutdown(t *testing.T) {
	dir := localapitest.ShortTempDir(t)
	n := newFakeNode(t, dir)
	logs := &testsync.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := &env{ctx: ctx, stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	done := make(chan error, 1)
	go func() { done <- serveNode(e, log, n, dir) }()
	logs.WaitFor(t, "msg=ready")
	if !strings.Contains(logs.String(), "msg=listening addr=tcp://127.0.0.1:7000") {
		t.Fatalf("log lacks the listen address:\n%s", logs)
	}
	// The control socket serves the node, mode 0600.
	if out := ok(t, "status", "--data", dir); !strings.Contains(out, `"name":"fn"`) {
		t.Fatalf("status = %q", out)
	}
	if fi, err := os.Stat(localapi.SocketPath(dir)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket: %v, %v", fi, err)
	}
	cancel() // SIGINT
	if err := <-done; err != nil {
		t.Fatalf("serveNode after interrupt = %v, want nil", err)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.started || n.closes != 1 {
		t.Fatalf("started %v, closed %d times", n.started, n.closes)
	}
	if n.sockAtClose {
		t.Fatal("the node was closed before the local API")
	}
	if !strings.Contains(logs.String(), "msg=stopped") {
		t.Fatalf("log lacks the clean stop:\n%s", logs)
	}
}

func TestServeNodeEnds(t *testing.T) {
	dir := localapitest.ShortTempDir(t)
	n := newFakeNode(t, dir)
	close(n.done) // the node stopped by itself
	e := &env{ctx: context.Background(), stdout: io.Discard, stderr: io.Discard}
	err := serveNode(e, slog.New(slog.DiscardHandler), n, dir)
	if err == nil || !strings.Contains(err.Error(), "the peer stopped") {
		t.Fatalf("err = %v", err)
	}
	if n.closes != 1 {
		t.Fatalf("closed %d times", n.closes)
	}
}

func TestServeNodeAlreadyRunning(t *testing.T) {
	dir, _ := localapitest.Serve(t, &localapitest.Fake{})
	n := newFakeNode(t, dir)
	e := &env{ctx: context.Background(), stdout: io.Discard, stderr: io.Discard}
	err := serveNode(e, slog.New(slog.DiscardHandler), n, dir)
	if err == nil || !strings.Contains(err.Error(), "already running for "+dir) {
		t.Fatalf("err = %v, want already running", err)
	}
	if n.closes != 1 {
		t.Fatalf("node closed %d times, want 1", n.closes)
	}
}

func TestServeNodeStartFails(t *testing.T) {
	dir := localapitest.ShortTempDir(t)
	n := newFakeNode(t, dir)
	n.startErr = errors.New("listen tcp: address in use")
	e := &env{ctx: context.Background(), stdout: io.Discard, stderr: io.Discard}
	err := serveNode(e, slog.New(slog.DiscardHandler), n, dir)
	if err == nil || !strings.Contains(err.Error(), "start: listen tcp: address in use") || n.closes != 1 {
		t.Fatalf("err = %v, closes %d", err, n.closes)
	}
	if _, err := os.Stat(localapi.SocketPath(dir)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket made although start failed: %v", err)
	}
}

func TestIDFileKeyring(t *testing.T) {
	dir := localapitest.ShortTempDir(t)
	code, first, errs := awp(t, context.Background(), "id", "--data", dir, "--keyring", "file")
	if code != exitOK || errs != "awp id: created a new identity for "+dir+"\n" {
		t.Fatalf("first id: exit %d, stderr %q", code, errs)
	}
	if _, err := key.ParsePublic(strings.TrimSpace(first)); err != nil {
		t.Fatalf("id printed %q: %v", first, err)
	}
	// The second call loads the same identity; AWP_KEYRING works like the flag.
	var o, e bytes.Buffer
	code = runMain(context.Background(), []string{"id", "--data", dir}, &o, &e, func(k string) string {
		if k == "AWP_KEYRING" {
			return "file"
		}
		return ""
	})
	if code != exitOK || o.String() != first || e.String() != "" {
		t.Fatalf("second id: exit %d, stdout %q (want %q), stderr %q", code, o.String(), first, e.String())
	}
}
