package localapi_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/key/keytest"
	"github.com/awp-tray/awp-tray/peer/localapi"
	"github.com/awp-tray/awp-tray/peer/localapi/localapitest"
)

// testKey is a fixed key named for a test's reading ("x", "sh"...).
func testKey(name string) key.PublicKey {
	seed := sha256.Sum256([]byte(name))
	k, err := key.FromSeed(seed[:])
	if err != nil {
		panic(err)
	}
	return k.Public()
}

// Keys the tests use.
var (
	kx, ky, ka, kb, kf = testKey("x"), testKey("y"), testKey("a"), testKey("b"), testKey("f")
	kzz, kto, kon, ksh = testKey("zz"), testKey("to"), testKey("on"), testKey("sh")
)

// setup serves a fake and returns it with a client for it.
func setup(t *testing.T) (*localapitest.Fake, *localapi.Client, string) {
	t.Helper()
	f := &localapitest.Fake{PubKey: keytest.NewPublic(t), NameV: "tester", Listens: []string{"tcp://127.0.0.1:4242"}}
	dir, _ := localapitest.Serve(t, f)
	c := localapi.NewClient(localapi.SocketPath(dir))
	t.Cleanup(c.CloseIdle)
	return f, c, dir
}

// watching serves a fake node (setup) and starts a client's event stream
// on it, closed when the test ends.
func watching(t *testing.T, ctx context.Context) (*localapitest.Fake, *localapi.EventStream) {
	t.Helper()
	f, c, _ := setup(t)
	w, err := c.Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return f, w
}

// wantEmpty checks that a list came back without an error, empty and not
// null (an empty JSON array, not null).
func wantEmpty[T any](t *testing.T, what string, got []T, err error) {
	t.Helper()
	if err != nil || got == nil || len(got) != 0 {
		t.Fatalf("empty %s = %#v, %v", what, got, err)
	}
}

func TestIdentity(t *testing.T) {
	f, c, _ := setup(t)
	id, err := c.Identity(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := localapi.Identity{Key: f.PubKey, Name: "tester", Listen: []string{"tcp://127.0.0.1:4242"}}
	if !reflect.DeepEqual(id, want) {
		t.Fatalf("identity = %+v, want %+v", id, want)
	}
}

func TestConnect(t *testing.T) {
	f, c, _ := setup(t)
	f.ConnectKey = keytest.NewPublic(t)
	got, err := c.Connect(context.Background(), "tcp://127.0.0.1:9")
	if err != nil {
		t.Fatal(err)
	}
	if got != f.ConnectKey {
		t.Fatalf("connect key = %q, want %q", got, f.ConnectKey)
	}
	if !reflect.DeepEqual(f.Connected, []string{"tcp://127.0.0.1:9"}) {
		t.Fatalf("connected = %q", f.Connected)
	}
}

func TestSendAndState(t *testing.T) {
	f, c, _ := setup(t)
	f.SendResult = peer.SendResult{ID: "01J9ZZZZZZZZZZZZZZZZZZZZZZ", Th: "thr_abc12345"}
	req := peer.SendRequest{
		To: keytest.NewPublic(t), Subject: "hi", Re: "01J9AAAAAAAAAAAAAAAAAAAAAA",
		Parts: []json.RawMessage{json.RawMessage(`{"k":"text","text":"hello <&>"}`)},
		Blobs: []peer.BlobFile{{Path: "/tmp/x.log", Name: "x.log", Mime: "text/plain"}},
	}
	res, err := c.Send(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res != f.SendResult {
		t.Fatalf("send result = %+v, want %+v", res, f.SendResult)
	}
	if len(f.Sent) != 1 || !reflect.DeepEqual(f.Sent[0], req) {
		t.Fatalf("sent = %+v, want %+v", f.Sent, req)
	}
	res, err = c.SetState(context.Background(), "thr_abc12345", "working", "tests")
	if err != nil {
		t.Fatal(err)
	}
	if res != f.SendResult || !reflect.DeepEqual(f.States, [][3]string{{"thr_abc12345", "working", "tests"}}) {
		t.Fatalf("state: res %+v, recorded %q", res, f.States)
	}
}

func TestLists(t *testing.T) {
	f, c, _ := setup(t)
	ctx := context.Background()
	// Empty lists come back as empty, non-nil slices.
	ths, err := c.Threads(ctx)
	wantEmpty(t, "threads", ths, err)
	ps, err := c.Peers(ctx)
	wantEmpty(t, "peers", ps, err)

	f.Lock()
	f.ThreadList = []peer.ThreadInfo{{Th: "thr_1", Peer: kx, Subject: "s", Unread: 2, Updated: "2026-01-01T00:00:00Z"}}
	f.LinesByTh = map[string][]peer.LineInfo{
		"thr_1|":                {{Dir: "in", From: kx, Line: json.RawMessage(`{"t":"msg","id":"1"}`), Acked: true, Seq: 1}},
		"thr_1|" + ksh.String(): {{Dir: "out", From: ky, Line: json.RawMessage(`{"t":"state"}`), MirroredFrom: ksh, Seq: 1}},
	}
	f.PeerList = []peer.PeerInfo{{Key: kx, Name: "x", Up: true}}
	f.BlobList = []peer.BlobInfo{{Ref: "blob_1", From: kx, Size: 3, Received: 3, Complete: true, Dir: "in"}}
	f.PendingList = []peer.ApprovalRequest{{ID: "ap1", Kind: peer.ApprovalProfile, Caps: []string{"exec"}}}
	f.Unlock()

	if ths, err = c.Threads(ctx); err != nil || !reflect.DeepEqual(ths, f.ThreadList) {
		t.Fatalf("threads = %+v, %v", ths, err)
	}
	lines, err := c.Lines(ctx, "thr_1", key.PublicKey{})
	if err != nil || !reflect.DeepEqual(lines, f.LinesByTh["thr_1|"]) {
		t.Fatalf("lines = %+v, %v", lines, err)
	}
	lines, err = c.Lines(ctx, "thr_1", ksh)
	if err != nil || !reflect.DeepEqual(lines, f.LinesByTh["thr_1|"+ksh.String()]) {
		t.Fatalf("mirrored lines = %+v, %v", lines, err)
	}
	// The server turns a nil listen list into [].
	ps, err = c.Peers(ctx)
	want := []peer.PeerInfo{{Key: kx, Name: "x", Up: true, Listen: []string{}}}
	if err != nil || !reflect.DeepEqual(ps, want) {
		t.Fatalf("peers = %#v, %v", ps, err)
	}
	bs, err := c.Blobs(ctx)
	if err != nil || !reflect.DeepEqual(bs, f.BlobList) {
		t.Fatalf("blobs = %+v, %v", bs, err)
	}
	pend, err := c.Pending(ctx)
	if err != nil || !reflect.DeepEqual(pend, f.PendingList) {
		t.Fatalf("pending = %+v, %v", pend, err)
	}
}

func TestEdits(t *testing.T) {
	f, c, _ := setup(t)
	ctx := context.Background()
	if err := c.MarkRead(ctx, "thr_1", ksh); err != nil {
		t.Fatal(err)
	}
	if err := c.Trust(ctx, ka, true); err != nil {
		t.Fatal(err)
	}
	if err := c.Trust(ctx, kb, false); err != nil {
		t.Fatal(err)
	}
	d := peer.Decision{Allow: true, For: time.Hour, Reason: "ok", By: "user"}
	if err := c.Decide(ctx, "ap1", d); err != nil {
		t.Fatal(err)
	}
	f.Lock()
	defer f.Unlock()
	if !reflect.DeepEqual(f.Reads, [][2]string{{"thr_1", ksh.String()}}) {
		t.Errorf("reads = %q", f.Reads)
	}
	if !reflect.DeepEqual(f.TrustSet, map[key.PublicKey]bool{ka: true, kb: false}) {
		t.Errorf("trust = %v", f.TrustSet)
	}
	if f.Decisions["ap1"] != d {
		t.Errorf("decision = %+v, want %+v", f.Decisions["ap1"], d)
	}
}

func TestOpenBlob(t *testing.T) {
	f, c, _ := setup(t)
	info := peer.BlobInfo{Ref: "blob_7", From: kx, Name: "a.bin", Size: 5, Received: 5, Complete: true, Dir: "in"}
	f.Lock()
	f.BlobList = []peer.BlobInfo{info, {Ref: "blob_8", From: kx, Size: 9, Received: 4, Dir: "in"}}
	f.BlobData = map[string][]byte{kx.String() + "|blob_7": []byte("\x00\x01abc"), kx.String() + "|blob_8": []byte("part")}
	f.Unlock()

	rc, got, err := c.OpenBlob(context.Background(), kx, "blob_7")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || string(b) != "\x00\x01abc" {
		t.Fatalf("blob bytes = %q, %v", b, err)
	}
	if got != info {
		t.Fatalf("blob info = %+v, want %+v", got, info)
	}
	// An incomplete blob is refused with the backend's message.
	_, _, err = c.OpenBlob(context.Background(), kx, "blob_8")
	var re *localapi.RemoteError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), localapitest.ErrNoBlob.Error()) {
		t.Fatalf("incomplete blob: err = %v", err)
	}
}

func TestBackendErrorMessage(t *testing.T) {
	f, c, _ := setup(t)
	f.Err = errors.New("peer: unknown peer ed25519:zz")
	_, err := c.Send(context.Background(), peer.SendRequest{To: kzz})
	if err == nil || err.Error() != "peer: unknown peer ed25519:zz" {
		t.Fatalf("err = %v, want the backend's message", err)
	}
	var re *localapi.RemoteError
	if !errors.As(err, &re) || re.Code != "backend" || re.Status != 500 {
		t.Fatalf("err = %#v, want a backend RemoteError", err)
	}
}

func TestRemoteContextErrors(t *testing.T) {
	f, c, _ := setup(t)
	f.Err = context.DeadlineExceeded
	if _, err := c.Threads(context.Background()); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("deadline: err = %v", err)
	}
	f.Lock()
	f.Err = context.Canceled
	f.Unlock()
	if _, err := c.Peers(context.Background()); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled: err = %v", err)
	}
}

func TestClientCancel(t *testing.T) {
	f, c, _ := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.BlockConnect = true
	f.OnConnect = func(string) { cancel() } // cancel once the server is inside Connect
	_, err := c.Connect(ctx, "tcp://127.0.0.1:9")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// Cleanup's Close waits for the blocked handler: it returns only
	// because the server-side context ended too.
}

func TestBadRequest(t *testing.T) {
	_, c, _ := setup(t)
	_, err := c.Lines(context.Background(), "", key.PublicKey{})
	var re *localapi.RemoteError
	if !errors.As(err, &re) || re.Status != 400 || re.Code != "bad_request" {
		t.Fatalf("err = %#v, want bad_request", err)
	}
}

func TestUnknownEndpoint(t *testing.T) {
	_, _, dir := setup(t)
	c, err := net.Dial("unix", localapi.SocketPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "GET /v0/nope HTTP/1.1\r\nHost: awp\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "HTTP/1.1 404") || !strings.Contains(string(b), `"code":"not_found"`) {
		t.Fatalf("answer = %q", b)
	}
}

func TestWatch(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f, w := watching(t, ctx)
	if n, _, _ := f.Subscribers(); n != 1 {
		t.Fatalf("subscribers after Watch = %d, want 1", n)
	}
	evs := []peer.Event{
		{Type: peer.EventPeerUp, Time: "2026-01-01T00:00:00Z", Peer: kx},
		{Type: peer.EventLine, Th: "thr_1", Line: &peer.LineInfo{Dir: "in", From: kx, Line: json.RawMessage(`{"t":"msg"}`), Seq: 1}},
		{Type: peer.EventAck, Th: "thr_1", Of: "01J9"},
	}
	for _, ev := range evs {
		f.Publish(ev)
	}
	for i, want := range evs {
		got, err := w.Next()
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("event %d = %+v, want %+v", i, got, want)
		}
	}
	// Canceling the client's context ends the stream on both sides.
	_, _, unsubbed := f.Subscribers()
	cancel()
	if _, err := w.Next(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next after cancel: %v, want context.Canceled", err)
	}
	<-unsubbed
	if n, _, _ := f.Subscribers(); n != 0 {
		t.Fatalf("subscribers after cancel = %d, want 0", n)
	}
}

func TestWatchRaw(t *testing.T) {
	f, w := watching(t, context.Background())
	f.Publish(peer.Event{Type: peer.EventDialError, Err: "refused <x>"})
	raw, err := w.NextRaw()
	if err != nil {
		t.Fatal(err)
	}
	if string(raw) != `{"type":"dial_error","time":"","err":"refused <x>"}` {
		t.Fatalf("raw event = %s", raw)
	}
}

func TestWatchEndsWithNode(t *testing.T) {
	f, w := watching(t, context.Background())
	f.EndSubscriptions()
	if _, err := w.Next(); err != io.EOF {
		t.Fatalf("Next after the node ended = %v, want io.EOF", err)
	}
}

func TestCloseEndsWatch(t *testing.T) {
	f := &localapitest.Fake{}
	dir, srv := localapitest.Serve(t, f)
	c := localapi.NewClient(localapi.SocketPath(dir))
	w, err := c.Watch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := srv.Close(); err != nil { // waits for the watch handler
		t.Fatal(err)
	}
	if n, _, _ := f.Subscribers(); n != 0 {
		t.Fatalf("subscribers after Close = %d", n)
	}
	if _, err := w.Next(); err == nil {
		t.Fatal("Next after Close succeeded")
	}
	if err := srv.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := os.Stat(localapi.SocketPath(dir)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket after Close: %v, want it removed", err)
	}
}

func TestNotRunning(t *testing.T) {
	dir := localapitest.ShortTempDir(t)
	c := localapi.NewClient(localapi.SocketPath(dir))
	_, err := c.Threads(context.Background())
	if !errors.Is(err, localapi.ErrNotRunning) {
		t.Fatalf("no socket: err = %v, want ErrNotRunning", err)
	}
	want := "no peer is running for " + dir + " (start one with `awp run`)"
	if err.Error() != want {
		t.Fatalf("message = %q, want %q", err, want)
	}
	// A stale socket file (its process died) is not running either.
	staleSocket(t, localapi.SocketPath(dir))
	if _, err := c.Watch(context.Background()); !errors.Is(err, localapi.ErrNotRunning) {
		t.Fatalf("stale socket: err = %v, want ErrNotRunning", err)
	}
}

// staleSocket leaves a socket file at path that nothing listens on.
func staleSocket(t *testing.T, path string) {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
}

func TestSocketMode(t *testing.T) {
	_, _, dir := setup(t)
	fi, err := os.Stat(localapi.SocketPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Type() != os.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode = %v, want socket 0600", fi.Mode())
	}
}

func TestSecondServerRefused(t *testing.T) {
	_, c, dir := setup(t)
	l, err := localapi.Listen(localapi.SocketPath(dir))
	if err == nil {
		l.Close()
		t.Fatal("second Listen succeeded")
	}
	if !errors.Is(err, localapi.ErrAlreadyRunning) {
		t.Fatalf("err = %v, want ErrAlreadyRunning", err)
	}
	// The first server is untouched.
	if _, err := c.Identity(context.Background()); err != nil {
		t.Fatalf("first server after refused second: %v", err)
	}
}

func TestStaleSocketReplaced(t *testing.T) {
	dir := localapitest.ShortTempDir(t)
	path := localapi.SocketPath(dir)
	staleSocket(t, path)
	l, err := localapi.Listen(path)
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	defer l.Close()
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket: %v, %v", fi, err)
	}
}

func TestNotASocketKept(t *testing.T) {
	dir := localapitest.ShortTempDir(t)
	path := filepath.Join(dir, localapi.SocketName)
	if err := os.WriteFile(path, []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	if l, err := localapi.Listen(path); err == nil {
		l.Close()
		t.Fatal("Listen replaced a regular file")
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "mine" {
		t.Fatalf("file after refused Listen: %q, %v", b, err)
	}
}

func TestServeAfterClose(t *testing.T) {
	s := &localapi.Server{Backend: &localapitest.Fake{}}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	path := localapi.SocketPath(localapitest.ShortTempDir(t))
	l, err := localapi.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Serve(l); err != nil {
		t.Fatalf("Serve after Close = %v, want nil", err)
	}
	// Serve closed the listener, which removed the socket.
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket after Serve-after-Close: %v", err)
	}
}
