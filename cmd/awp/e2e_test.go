package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/awp-tray/awp-tray/internal/testbin"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/localapi"
	"github.com/awp-tray/awp-tray/peer/localapi/localapitest"
)

// The end-to-end test runs two real `awp run` processes on loopback and
// drives them with the built binary, as a user or a script would.

// bins is the awp binary the tests run, built once (CGO_ENABLED=0, as
// shipped).
var bins = testbin.Set{Pattern: "awpbin", Bins: []testbin.Binary{{Name: "awp", Pkg: "."}}}

// awpBinary returns the awp binary, building it the first time.
func awpBinary(t *testing.T) string {
	t.Helper()
	return bins.Path(t, "awp")
}

func TestMain(m *testing.M) {
	code := m.Run()
	bins.Remove()
	os.Exit(code)
}

// proc is one running `awp run`.
type proc struct {
	name   string
	dir    string
	key    string
	listen []string
	cmd    *exec.Cmd
	logs   sync.WaitGroup
	mu     sync.Mutex
	log    bytes.Buffer // mu guards
}

// startPeer runs `awp run --keyring file` on dir (with extra flags, if
// any) and returns once the peer logged "ready". Cleanup interrupts it
// unless the test stopped it.
func startPeer(t *testing.T, name, dir string, extra ...string) *proc {
	t.Helper()
	p := &proc{name: name, dir: dir}
	args := append([]string{"run", "--keyring", "file", "--data", dir, "--name", name}, extra...)
	p.cmd = exec.Command(awpBinary(t), args...)
	p.cmd.Env = append(os.Environ(), "AWP_DATA=", "AWP_KEYRING=")
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		line := sc.Text()
		p.record(t, line)
		if a, ok := logField(line, "listening", "addr"); ok {
			p.listen = append(p.listen, a)
		}
		if k, ok := logField(line, "ready", "key"); ok {
			p.key = k
			break
		}
	}
	if p.key == "" {
		p.cmd.Wait()
		t.Fatalf("%s: exited before ready: %v", name, sc.Err())
	}
	p.logs.Add(1)
	go func() {
		defer p.logs.Done()
		for sc.Scan() {
			p.record(t, sc.Text())
		}
	}()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.stop(t)
		}
	})
	return p
}

func (p *proc) record(t *testing.T, line string) {
	t.Logf("%s: %s", p.name, line)
	p.mu.Lock()
	p.log.WriteString(line + "\n")
	p.mu.Unlock()
}

// stop sends SIGINT and checks the peer shut down cleanly with status 0.
func (p *proc) stop(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatalf("%s: %v", p.name, err)
	}
	p.logs.Wait()
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("%s: awp run ended with %v, want status 0", p.name, err)
	}
	p.mu.Lock()
	log := p.log.String()
	p.mu.Unlock()
	checkStoppedCleanly(t, p.name, p.dir, log)
}

// checkStoppedCleanly checks what a peer process (`awp run`, `awp mcp
// --run`) left once it exited: a clean stop in its log and no control
// socket in its data directory.
func checkStoppedCleanly(t *testing.T, name, dir, log string) {
	t.Helper()
	if !strings.Contains(log, "msg=stopped") {
		t.Errorf("%s: the peer did not stop cleanly (no msg=stopped in its log)", name)
	}
	if _, err := os.Stat(localapi.SocketPath(dir)); !os.IsNotExist(err) {
		t.Errorf("%s: control socket left behind: %v", name, err)
	}
}

// logField finds key=value in a slog text line whose msg is msg.
func logField(line, msg, key string) (string, bool) {
	if !strings.Contains(line, " msg="+msg+" ") {
		return "", false
	}
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, key+"="); ok {
			return v, true
		}
	}
	return "", false
}

// cli runs the binary and returns stdout; a non-zero exit fails the test.
func cli(t *testing.T, args ...string) string {
	t.Helper()
	out, code, errs := cliCode(t, args...)
	if code != 0 {
		t.Fatalf("awp %s: exit %d: %s", strings.Join(args, " "), code, errs)
	}
	return out
}

func cliCode(t *testing.T, args ...string) (stdout string, code int, stderr string) {
	t.Helper()
	cmd := exec.Command(awpBinary(t), args...)
	cmd.Env = append(os.Environ(), "AWP_DATA=", "AWP_KEYRING=")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("awp %s: %v", strings.Join(args, " "), err)
	}
	return o.String(), cmd.ProcessState.ExitCode(), e.String()
}

func decodeJSON[T any](t *testing.T, s string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("decode %q: %v", s, err)
	}
	return v
}

// waitEvent reads events until match says yes.
func waitEvent(t *testing.T, w *localapi.EventStream, what string, match func(peer.Event) bool) peer.Event {
	t.Helper()
	for {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if match(ev) {
			return ev
		}
	}
}

func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs two peers")
	}
	dirA, dirB := localapitest.ShortTempDir(t), localapitest.ShortTempDir(t)
	// `awp id` creates the identity that `awp run` then uses.
	keyA := strings.TrimSpace(cli(t, "id", "--keyring", "file", "--data", dirA))
	if fi, err := os.Stat(filepath.Join(dirA, "identity.key")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("identity.key: %v, %v", fi, err)
	}
	a := startPeer(t, "alice", dirA)
	b := startPeer(t, "bob", dirB)
	if a.key != keyA {
		t.Fatalf("run uses key %s, id printed %s", a.key, keyA)
	}
	if len(b.listen) != 1 || !strings.HasPrefix(b.listen[0], "tcp://127.0.0.1:") || strings.HasSuffix(b.listen[0], ":0") {
		t.Fatalf("bob listens on %q, want one bound loopback tcp address", b.listen)
	}
	st := decodeJSON[localapi.Identity](t, cli(t, "status", "--data", dirB))
	if st.Key.String() != b.key || st.Name != "bob" || len(st.Listen) != 1 || st.Listen[0] != b.listen[0] {
		t.Fatalf("status = %+v", st)
	}
	// A second peer on the same data directory is refused.
	if _, code, errs := cliCode(t, "run", "--keyring", "file", "--data", dirB); code != 1 {
		t.Fatalf("second run: exit %d, stderr %q", code, errs)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watchA, err := localapi.NewClient(localapi.SocketPath(dirA)).Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer watchA.Close()
	watchB, err := localapi.NewClient(localapi.SocketPath(dirB)).Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer watchB.Close()

	if got := strings.TrimSpace(cli(t, "connect", "--data", dirA, b.listen[0])); got != b.key {
		t.Fatalf("connect printed %q, want bob's key %q", got, b.key)
	}
	blobFile := filepath.Join(t.TempDir(), "report.txt")
	blobData := bytes.Repeat([]byte("all tests passed\n"), 40000) // 680 KB: two chunks
	if err := os.WriteFile(blobFile, blobData, 0o600); err != nil {
		t.Fatal(err)
	}
	res := decodeJSON[peer.SendResult](t, cli(t, "send", "--data", dirA, "--to", b.key, "--subject", "e2e",
		"--text", "hello bob", "--data-json", `{"n":1}`, "--blob", blobFile))
	if res.ID == "" || !strings.HasPrefix(res.Th, "thr_") {
		t.Fatalf("send result = %+v", res)
	}

	// Bob stores the msg and the blob; alice sees the ack.
	waitEvent(t, watchB, "the msg at bob", func(ev peer.Event) bool {
		return ev.Type == peer.EventLine && ev.Th == res.Th && ev.Line != nil && ev.Line.Dir == "in"
	})
	blobEv := waitEvent(t, watchB, "the complete blob at bob", func(ev peer.Event) bool {
		return ev.Type == peer.EventBlob && ev.Blob != nil && ev.Blob.Complete
	})
	// Acks are cumulative per thread and the msg is the thread's first
	// line, so any ack of the thread covers it.
	waitEvent(t, watchA, "bob's ack of the msg", func(ev peer.Event) bool {
		return ev.Type == peer.EventAck && ev.Th == res.Th
	})

	ths := decodeJSON[[]map[string]any](t, cli(t, "threads", "--data", dirB, "--json"))
	if len(ths) != 1 || ths[0]["th"] != res.Th || ths[0]["peer"] != a.key || ths[0]["subject"] != "e2e" {
		t.Fatalf("bob's threads = %v", ths)
	}
	for _, f := range []string{"th", "peer", "subject", "mine", "theirs", "unread", "updated"} {
		if _, ok := ths[0][f]; !ok {
			t.Errorf("threads --json lacks %q", f)
		}
	}
	type shown struct {
		Dir   string `json:"dir"`
		From  string `json:"from"`
		Acked bool   `json:"acked"`
		Line  struct {
			T     string            `json:"t"`
			ID    string            `json:"id"`
			Parts []json.RawMessage `json:"parts"`
		} `json:"line"`
	}
	linesB := decodeJSON[[]shown](t, cli(t, "show", "--data", dirB, "--json", res.Th))
	if len(linesB) != 1 || linesB[0].Dir != "in" || linesB[0].From != a.key || linesB[0].Line.ID != res.ID ||
		len(linesB[0].Line.Parts) != 3 {
		t.Fatalf("bob's show = %+v", linesB)
	}
	if p := string(linesB[0].Line.Parts[0]); p != `{"k":"text","text":"hello bob"}` {
		t.Errorf("first part = %s", p)
	}
	linesA := decodeJSON[[]shown](t, cli(t, "show", "--data", dirA, "--json", res.Th))
	if len(linesA) != 1 || linesA[0].Dir != "out" || linesA[0].From != a.key || !linesA[0].Acked {
		t.Fatalf("alice's show = %+v, want the msg out and acked", linesA)
	}
	peersB := decodeJSON[[]peer.PeerInfo](t, cli(t, "peers", "--data", dirB, "--json"))
	if len(peersB) != 1 || peersB[0].Key.String() != a.key || !peersB[0].Up || peersB[0].Name != "alice" {
		t.Fatalf("bob's peers = %+v", peersB)
	}

	blobs := decodeJSON[[]peer.BlobInfo](t, cli(t, "blobs", "--data", dirB, "--json"))
	if len(blobs) != 1 || blobs[0].Ref != blobEv.Blob.Ref || !blobs[0].Complete || blobs[0].Corrupt ||
		blobs[0].Size != int64(len(blobData)) || blobs[0].Name != "report.txt" {
		t.Fatalf("bob's blobs = %+v", blobs)
	}
	got := filepath.Join(t.TempDir(), "got.txt")
	cli(t, "blob", "get", "--data", dirB, "--from", a.key, "-o", got, blobs[0].Ref)
	if b, err := os.ReadFile(got); err != nil || !bytes.Equal(b, blobData) {
		t.Fatalf("blob get wrote %d bytes (%v), want %d", len(b), err, len(blobData))
	}
	if _, code, _ := cliCode(t, "blob", "get", "--data", dirB, "--from", a.key, "blob_nope"); code != 1 {
		t.Fatalf("blob get of an unknown blob: exit %d, want 1", code)
	}

	// State from bob; alice's thread shows it.
	cli(t, "state", "--data", dirB, "--th", res.Th, "done", "--note", "thanks")
	waitEvent(t, watchA, "bob's state at alice", func(ev peer.Event) bool {
		return ev.Type == peer.EventLine && ev.Th == res.Th && ev.Line != nil && ev.Line.Dir == "in"
	})
	thsA := decodeJSON[[]peer.ThreadInfo](t, cli(t, "threads", "--data", dirA, "--json"))
	if len(thsA) != 1 || thsA[0].Theirs != "done" {
		t.Fatalf("alice's threads = %+v", thsA)
	}

	// A clean stop keeps everything: bob restarted shows the same thread.
	cancel()
	watchA.Close()
	watchB.Close()
	b.stop(t)
	a.stop(t)
	if _, code, errs := cliCode(t, "threads", "--data", dirB, "--json"); code != 1 || !strings.Contains(errs, "no peer is running for "+dirB) {
		t.Fatalf("threads with bob stopped: exit %d, stderr %q", code, errs)
	}
	b2 := startPeer(t, "bob2", dirB)
	if b2.key != b.key {
		t.Fatalf("bob's key changed across restarts: %s → %s", b.key, b2.key)
	}
	again := decodeJSON[[]shown](t, cli(t, "show", "--data", dirB, "--json", res.Th))
	if len(again) != 2 || again[0].Line.ID != res.ID || again[1].Dir != "out" {
		t.Fatalf("bob's thread after restart = %+v", again)
	}
}
