package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/localapi"
	"github.com/awp-tray/awp-tray/peer/localapi/localapitest"
)

// serveFake serves a fake backend and returns it with its data directory.
func serveFake(t *testing.T) (*localapitest.Fake, string) {
	t.Helper()
	k, err := key.NewPrivate()
	if err != nil {
		t.Fatal(err)
	}
	f := &localapitest.Fake{PubKey: k.Public(), NameV: "fake", Listens: []string{"tcp://127.0.0.1:5555"}}
	dir, _ := localapitest.Serve(t, f)
	return f, dir
}

// ok runs a command that must succeed and returns its stdout.
func ok(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errs := awp(t, context.Background(), args...)
	if code != exitOK || errs != "" {
		t.Fatalf("%v: exit %d, stderr %q", args, code, errs)
	}
	return out
}

// keysOf returns the sorted keys of each object in a JSON array.
func keysOf(t *testing.T, out string) [][]string {
	t.Helper()
	var objs []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &objs); err != nil {
		t.Fatalf("output %q is not a JSON array of objects: %v", out, err)
	}
	var ks [][]string
	for _, o := range objs {
		var k []string
		for n := range o {
			k = append(k, n)
		}
		sort.Strings(k)
		ks = append(ks, k)
	}
	return ks
}

// hasAll fails unless every object has the field names of docs/protocol/cli.md.
func hasAll(t *testing.T, what, out string, names ...string) {
	t.Helper()
	for i, ks := range keysOf(t, out) {
		for _, n := range names {
			if j := sort.SearchStrings(ks, n); j == len(ks) || ks[j] != n {
				t.Errorf("%s[%d] lacks %q (has %v)", what, i, n, ks)
			}
		}
	}
}

func TestEmptyListsAreArrays(t *testing.T) {
	_, dir := serveFake(t)
	for _, cmd := range []string{"threads", "peers", "blobs", "pending"} {
		if out := ok(t, cmd, "--data", dir, "--json"); out != "[]\n" {
			t.Errorf("%s --json = %q, want []", cmd, out)
		}
	}
}

func TestThreadsJSON(t *testing.T) {
	f, dir := serveFake(t)
	f.Lock()
	f.ThreadList = []peer.ThreadInfo{
		{Th: "thr_a1", Peer: key.MustParsePublic("ed25519:PAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), Subject: "Port <auth>", Mine: "working", Theirs: "open", Unread: 2, Updated: "2026-09-25T17:03:11Z", Lines: 3},
		{Th: "thr_b2", Peer: key.MustParsePublic("ed25519:QAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), MirroredFrom: key.MustParsePublic("ed25519:SAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), Updated: "2026-09-25T17:00:00Z"},
	}
	f.Unlock()
	out := ok(t, "threads", "--data", dir, "--json")
	want := `[{"th":"thr_a1","peer":"ed25519:PAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","subject":"Port <auth>","mine":"working","theirs":"open","unread":2,"updated":"2026-09-25T17:03:11Z","lines":3,"mirror":false,"private":false},` +
		`{"th":"thr_b2","peer":"ed25519:QAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","subject":"","mine":"","theirs":"","unread":0,"updated":"2026-09-25T17:00:00Z","lines":0,"mirrored_from":"ed25519:SAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","mirror":false,"private":false}]` + "\n"
	if out != want {
		t.Fatalf("threads --json =\n%s\nwant\n%s", out, want)
	}
	hasAll(t, "threads", out, "th", "peer", "subject", "mine", "theirs", "unread", "updated")
	// The human form names every thread.
	h := ok(t, "threads", "--data", dir)
	if !strings.Contains(h, "thr_a1") || !strings.Contains(h, "thr_b2") {
		t.Fatalf("threads = %q", h)
	}
	// An empty cell is a dash, the subject's too, so columns stay readable.
	if row := lineWith(h, "thr_b2"); len(strings.Fields(row)) != 9 || strings.Fields(row)[4] != "-" {
		t.Fatalf("thr_b2's row %q: want the subject as -", row)
	}
}

func TestShowJSON(t *testing.T) {
	f, dir := serveFake(t)
	sharer := fakeKey(t, "S")
	msg := `{"t":"msg","id":"01J9A","ts":"2026-09-25T17:03:11Z","th":"thr_a1","parts":[{"k":"text","text":"hi & bye"}]}`
	f.Lock()
	f.LinesByTh = map[string][]peer.LineInfo{
		"thr_a1|": {
			{Dir: "out", From: key.MustParsePublic("ed25519:meAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), Line: json.RawMessage(msg), Acked: true, Seq: 1},
			{Dir: "in", From: key.MustParsePublic("ed25519:PAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), Line: json.RawMessage(`{"t":"state","state":"done"}`), Seq: 2},
		},
		"thr_a1|" + sharer: {
			{Dir: "in", From: key.MustParsePublic("ed25519:PAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), Line: json.RawMessage(msg), MirroredFrom: key.MustParsePublic(sharer), Seq: 1},
		},
	}
	f.Unlock()
	out := ok(t, "show", "--data", dir, "--json", "thr_a1")
	want := `[{"dir":"out","from":"ed25519:meAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","line":` + msg + `,"acked":true,"seq":1},` +
		`{"dir":"in","from":"ed25519:PAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","line":{"t":"state","state":"done"},"acked":false,"seq":2}]` + "\n"
	if out != want {
		t.Fatalf("show --json =\n%s\nwant\n%s", out, want)
	}
	hasAll(t, "show", out, "dir", "from", "line", "acked")

	out = ok(t, "show", "--data", dir, "--from", sharer, "--json", "thr_a1")
	want = `[{"dir":"in","from":"ed25519:PAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","line":` + msg + `,"acked":false,"mirrored_from":"` + sharer + `","seq":1}]` + "\n"
	if out != want {
		t.Fatalf("show --from --json =\n%s\nwant\n%s", out, want)
	}
	// --mark-read marks the thread read; a plain show does not.
	ok(t, "show", "--data", dir, "--mark-read", "thr_a1")
	f.Lock()
	reads := f.Reads
	f.Unlock()
	if !reflect.DeepEqual(reads, [][2]string{{"thr_a1", ""}}) {
		t.Fatalf("reads = %q", reads)
	}
	// An unknown thread is the backend's error, exit 1.
	code, _, errs := awp(t, context.Background(), "show", "--data", dir, "--json", "thr_zz")
	if code != exitFail || errs != "awp show: fake: no thread thr_zz\n" {
		t.Fatalf("unknown thread: exit %d, stderr %q", code, errs)
	}
}

// The human form of show names each line's author as the thread list
// does: "you" for this peer, a peer's name with its short key, else the
// short key (a name that would break the line is escaped).
func TestShowAuthors(t *testing.T) {
	f, dir := serveFake(t)
	named := key.MustParsePublic("ed25519:PAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	unnamed := key.MustParsePublic("ed25519:QAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	odd := key.MustParsePublic("ed25519:RAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	f.Lock()
	f.PeerList = []peer.PeerInfo{{Key: named, Name: "codex@builder"}, {Key: unnamed}, {Key: odd, Name: "two\nlines"}}
	f.LinesByTh = map[string][]peer.LineInfo{"thr_a1|": {
		{Dir: "out", From: f.PubKey, Line: json.RawMessage(`{"t":"msg","parts":[{"k":"text","text":"hi"}]}`), Acked: true, Seq: 1},
		{Dir: "in", From: named, Line: json.RawMessage(`{"t":"state","state":"done"}`), Seq: 2},
		{Dir: "in", From: unnamed, Line: json.RawMessage(`{"t":"msg","parts":[{"k":"text","text":"yo"}]}`), Seq: 3},
		{Dir: "in", From: odd, Line: json.RawMessage(`{"t":"msg","parts":[{"k":"text","text":"x"}]}`), Seq: 4},
	}}
	f.Unlock()
	want := "#1 out you: hi\n" +
		"#2 in  codex@builder (PAAAAAAA): state done\n" +
		"#3 in  QAAAAAAA: yo\n" +
		"#4 in  two\\nlines (RAAAAAAA): x\n"
	if out := ok(t, "show", "--data", dir, "thr_a1"); out != want {
		t.Fatalf("show =\n%s\nwant\n%s", out, want)
	}
}

func TestPeersJSON(t *testing.T) {
	f, dir := serveFake(t)
	f.Lock()
	f.PeerList = []peer.PeerInfo{
		{Key: key.MustParsePublic("ed25519:PAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), Name: "codex@builder", Up: true, Trusted: true, Listen: []string{"tcp://127.0.0.1:1"}},
		{Key: key.MustParsePublic("ed25519:QAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), Name: "q", IntroducedBy: key.MustParsePublic("ed25519:PAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")},
	}
	f.Unlock()
	out := ok(t, "peers", "--data", dir, "--json")
	want := `[{"key":"ed25519:PAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","name":"codex@builder","up":true,"trusted":true,"listen":["tcp://127.0.0.1:1"]},` +
		`{"key":"ed25519:QAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","name":"q","up":false,"trusted":false,"introduced_by":"ed25519:PAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","listen":[]}]` + "\n"
	if out != want {
		t.Fatalf("peers --json =\n%s\nwant\n%s", out, want)
	}
	hasAll(t, "peers", out, "key", "name", "up", "trusted", "listen")
}

func TestBlobsJSONAndGet(t *testing.T) {
	f, dir := serveFake(t)
	data := []byte("hello blob\x00\xff")
	sum := sha256.Sum256(data)
	good := peer.BlobInfo{Ref: "blob_1", From: key.MustParsePublic("ed25519:PAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), Th: "thr_a1", Name: "a.bin", Mime: "application/octet-stream",
		Size: int64(len(data)), Received: int64(len(data)), Complete: true, Sha256: hex.EncodeToString(sum[:]), Dir: "in"}
	bad := good
	bad.Ref, bad.Sha256 = "blob_2", strings.Repeat("0", 64)
	partial := peer.BlobInfo{Ref: "blob_3", From: key.MustParsePublic("ed25519:PAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), Th: "thr_a1", Name: "c", Size: 99, Received: 10, Dir: "in"}
	f.Lock()
	f.BlobList = []peer.BlobInfo{good, bad, partial}
	f.BlobData = map[string][]byte{"ed25519:P|blob_1": data, "ed25519:P|blob_2": data, "ed25519:P|blob_3": data[:3]}
	f.Unlock()

	out := ok(t, "blobs", "--data", dir, "--json")
	hasAll(t, "blobs", out, "ref", "from", "th", "name", "mime", "size", "received", "complete", "corrupt")
	wantFirst := `[{"ref":"blob_1","from":"ed25519:PAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","th":"thr_a1","name":"a.bin","mime":"application/octet-stream","size":12,"received":12,"complete":true,"corrupt":false,"sha256":"` + good.Sha256 + `","dir":"in"},`
	if !strings.HasPrefix(out, wantFirst) {
		t.Fatalf("blobs --json =\n%s\nwant it to start\n%s", out, wantFirst)
	}

	// blob get checks --from, so give the blobs a real sender key.
	from := fakeKey(t, "P")
	f.Lock()
	for i := range f.BlobList {
		f.BlobList[i].From = key.MustParsePublic(from)
	}
	f.BlobData = map[string][]byte{from + "|blob_1": data, from + "|blob_2": data, from + "|blob_3": data[:3]}
	f.Unlock()
	if got := ok(t, "blob", "get", "--data", dir, "--from", from, "blob_1"); got != string(data) {
		t.Fatalf("blob get to stdout = %q, want %q", got, data)
	}
	// To a file.
	outFile := filepath.Join(t.TempDir(), "out.bin")
	if got := ok(t, "blob", "get", "--data", dir, "--from", from, "-o", outFile, "blob_1"); got != "" {
		t.Fatalf("blob get -o printed %q", got)
	}
	if b, err := os.ReadFile(outFile); err != nil || string(b) != string(data) {
		t.Fatalf("blob file = %q, %v", b, err)
	}
	// A digest mismatch fails and leaves no file.
	badFile := filepath.Join(t.TempDir(), "bad.bin")
	code, _, errs := awp(t, context.Background(), "blob", "get", "--data", dir, "--from", from, "-o", badFile, "blob_2")
	if code != exitFail || !strings.Contains(errs, "sha256 mismatch") {
		t.Fatalf("corrupt blob: exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(badFile); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("corrupt blob left %s: %v", badFile, err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(badFile)); len(ents) != 0 {
		t.Fatalf("corrupt blob left temporary files: %v", ents)
	}
	// An incomplete blob is refused by the peer: exit 1 with its message.
	code, _, errs = awp(t, context.Background(), "blob", "get", "--data", dir, "--from", from, "blob_3")
	if code != exitFail || !strings.Contains(errs, localapitest.ErrNoBlob.Error()) {
		t.Fatalf("incomplete blob: exit %d, stderr %q", code, errs)
	}
}

// fakeKey derives a valid key text from a name, for fields the CLI checks.
func fakeKey(t *testing.T, name string) string {
	t.Helper()
	seed := sha256.Sum256([]byte(name))
	k, err := key.FromSeed(seed[:])
	if err != nil {
		t.Fatal(err)
	}
	return k.Public().String()
}

func TestSend(t *testing.T) {
	f, dir := serveFake(t)
	f.SendResult = peer.SendResult{ID: "01J9ZZZZZZZZZZZZZZZZZZZZZZ", Th: "thr_new1"}
	tmp := t.TempDir()
	code := filepath.Join(tmp, "main.go")
	blob1 := filepath.Join(tmp, "a.log")
	blob2 := filepath.Join(tmp, "b.bin")
	for p, s := range map[string]string{code: "package main\n", blob1: "log", blob2: "bin"} {
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	to := fakeKey(t, "P")
	f.PeerList = []peer.PeerInfo{{Key: key.MustParsePublic(to), Name: "p", Up: true}} // connected: no "queued" note
	out := ok(t, "send", "--data", dir, "--to", to, "--subject", "S <1>", "--text", "one", "--text", "two & three",
		"--blob", blob1, "--code-file", code, "--data-json", `{ "branch" : "x" }`, "--mime", "application/vnd.x+json",
		"--blob", blob2, "--re", "01J9AAAAAAAAAAAAAAAAAAAAAA", "--th", "thr_abc")
	if out != `{"id":"01J9ZZZZZZZZZZZZZZZZZZZZZZ","th":"thr_new1"}`+"\n" {
		t.Fatalf("send printed %q", out)
	}
	f.Lock()
	sent := f.Sent
	f.Unlock()
	if len(sent) != 1 {
		t.Fatalf("sent %d requests", len(sent))
	}
	r := sent[0]
	if r.To.String() != to || r.Th != "thr_abc" || r.Subject != "S <1>" || r.Re != "01J9AAAAAAAAAAAAAAAAAAAAAA" {
		t.Fatalf("request = %+v", r)
	}
	var parts []string
	for _, p := range r.Parts {
		parts = append(parts, string(p))
	}
	wantParts := []string{
		`{"k":"text","text":"one"}`,
		`{"k":"text","text":"two & three"}`,
		`{"k":"code","text":"package main\n","lang":"go"}`,
		`{"k":"data","mime":"application/vnd.x+json","data":{"branch":"x"}}`,
	}
	if !reflect.DeepEqual(parts, wantParts) {
		t.Fatalf("parts =\n%s\nwant\n%s", strings.Join(parts, "\n"), strings.Join(wantParts, "\n"))
	}
	if !reflect.DeepEqual(r.Blobs, []peer.BlobFile{{Path: blob1}, {Path: blob2}}) {
		t.Fatalf("blobs = %+v", r.Blobs)
	}

	// A missing blob file fails (exit 1) before anything is sent.
	code2, _, errs := awp(t, context.Background(), "send", "--data", dir, "--to", to, "--blob", filepath.Join(tmp, "nope"))
	if code2 != exitFail || !strings.Contains(errs, "no such file") {
		t.Fatalf("missing blob: exit %d, stderr %q", code2, errs)
	}
	// The backend's error comes back as the one-line reason.
	f.Lock()
	f.Err = errors.New("peer: unknown peer")
	f.Unlock()
	code2, _, errs = awp(t, context.Background(), "send", "--data", dir, "--to", to, "--text", "x")
	if code2 != exitFail || errs != "awp send: peer: unknown peer\n" {
		t.Fatalf("backend error: exit %d, stderr %q", code2, errs)
	}
}

func TestState(t *testing.T) {
	f, dir := serveFake(t)
	f.SendResult = peer.SendResult{ID: "01J9S", Th: "thr_a"}
	// docs/protocol/cli.md's order: the note after the state.
	out := ok(t, "state", "--data", dir, "--th", "thr_a", "working", "--note", "running tests")
	if out != `{"id":"01J9S"}`+"\n" {
		t.Fatalf("state printed %q", out)
	}
	// The thread may also come first, as show takes it.
	ok(t, "state", "--data", dir, "thr_b", "done")
	f.Lock()
	defer f.Unlock()
	if !reflect.DeepEqual(f.States, [][3]string{{"thr_a", "working", "running tests"}, {"thr_b", "done", ""}}) {
		t.Fatalf("states = %q", f.States)
	}
}

func TestConnectTrustStatus(t *testing.T) {
	f, dir := serveFake(t)
	remote := fakeKey(t, "R")
	f.ConnectKey = key.MustParsePublic(remote)
	if out := ok(t, "connect", "--data", dir, "tcp://127.0.0.1:7"); out != remote+"\n" {
		t.Fatalf("connect printed %q", out)
	}
	if out := ok(t, "trust", "--data", dir, remote); out != "" {
		t.Fatalf("trust printed %q", out)
	}
	ok(t, "untrust", "--data", dir, fakeKey(t, "U"))
	f.Lock()
	if !reflect.DeepEqual(f.Connected, []string{"tcp://127.0.0.1:7"}) ||
		!reflect.DeepEqual(f.TrustSet, map[key.PublicKey]bool{key.MustParsePublic(remote): true, key.MustParsePublic(fakeKey(t, "U")): false}) {
		t.Fatalf("connected %q, trust %v", f.Connected, f.TrustSet)
	}
	f.Unlock()
	out := ok(t, "status", "--data", dir)
	want := `{"key":"` + f.PubKey.String() + `","name":"fake","listen":["tcp://127.0.0.1:5555"]}` + "\n"
	if out != want {
		t.Fatalf("status = %q, want %q", out, want)
	}
}

func TestPendingDecide(t *testing.T) {
	f, dir := serveFake(t)
	ok(t, "decide", "--data", dir, "--for", "1h", "ap1", "allow")
	ok(t, "decide", "--data", dir, "--reason", "no", "ap2", "deny")
	f.Lock()
	defer f.Unlock()
	if d := f.Decisions["ap1"]; !d.Allow || d.For.String() != "1h0m0s" || d.By != "user" {
		t.Fatalf("ap1 decision = %+v", d)
	}
	if d := f.Decisions["ap2"]; d.Allow || d.Reason != "no" {
		t.Fatalf("ap2 decision = %+v", d)
	}
}

func TestWatchJSON(t *testing.T) {
	f, dir := serveFake(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	_, subscribed, _ := f.Subscribers()
	var errs strings.Builder
	done := make(chan int, 1)
	go func() {
		done <- runMain(ctx, []string{"watch", "--data", dir, "--json"}, pw, &errs, func(string) string { return "" })
		pw.Close()
	}()
	<-subscribed
	evs := []peer.Event{
		{Type: peer.EventPeerUp, Time: "2026-09-25T17:03:11Z", Peer: key.MustParsePublic("ed25519:PAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), PeerName: "p"},
		{Type: peer.EventLine, Time: "2026-09-25T17:03:12Z", Th: "thr_a", Line: &peer.LineInfo{Dir: "in", From: key.MustParsePublic("ed25519:PAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), Line: json.RawMessage(`{"t":"msg","parts":[{"k":"text","text":"<hi>"}]}`), Seq: 1}},
	}
	want := []string{
		`{"type":"peer_up","time":"2026-09-25T17:03:11Z","peer":"ed25519:PAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","peer_name":"p"}`,
		`{"type":"line","time":"2026-09-25T17:03:12Z","th":"thr_a","line":{"dir":"in","from":"ed25519:PAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","line":{"t":"msg","parts":[{"k":"text","text":"<hi>"}]},"acked":false,"seq":1}}`,
	}
	sc := bufio.NewScanner(pr)
	for i, ev := range evs {
		f.Publish(ev)
		if !sc.Scan() {
			t.Fatalf("watch output ended before event %d: %v", i, sc.Err())
		}
		if sc.Text() != want[i] {
			t.Fatalf("event %d =\n%s\nwant\n%s", i, sc.Text(), want[i])
		}
	}
	cancel() // as SIGINT does
	go io.Copy(io.Discard, pr)
	if code := <-done; code != exitOK || errs.String() != "" {
		t.Fatalf("watch after interrupt: exit %d, stderr %q", code, errs.String())
	}
}

func TestWatchPeerStops(t *testing.T) {
	f, dir := serveFake(t)
	_, subscribed, _ := f.Subscribers()
	done := make(chan struct {
		code      int
		out, errs string
	}, 1)
	go func() {
		code, out, errs := awp(t, context.Background(), "watch", "--data", dir)
		done <- struct {
			code      int
			out, errs string
		}{code, out, errs}
	}()
	<-subscribed
	f.Publish(peer.Event{Type: peer.EventDialError, Time: "T", Err: "refused"})
	f.EndSubscriptions()
	r := <-done
	if r.code != exitFail || r.errs != "awp watch: the peer stopped\n" {
		t.Fatalf("exit %d, stderr %q", r.code, r.errs)
	}
	if r.out != "T dial_error: refused\n" {
		t.Fatalf("human output = %q", r.out)
	}
}

// A pending request's text reaches the terminal on one line, with nothing
// a terminal acts on: a peer's escape sequence (clear screen), newline, tab
// and bidi override all show as escapes.
func TestTerminalText(t *testing.T) {
	if got, want := terminalText("a\x1b[2Jb\nc\td\u202e"), `a\u001b[2Jb\nc\td\u202e`; got != want {
		t.Errorf("terminalText = %q, want %q", got, want)
	}
	p := peer.ApprovalRequest{Detail: json.RawMessage(`{"cmd":["sh","-c","ls\nrm -rf ~"],"cwd":"x"}`)}
	if got, want := terminalText(requestText(p)), `$ sh -c "ls\nrm -rf ~"  (in x)`; got != want {
		t.Errorf("requestText = %q, want %q", got, want)
	}
	// `awp show` and `awp watch` lines.
	line := json.RawMessage(`{"t":"msg","subject":"s\u001b[2J","parts":[{"k":"text","text":"hi\u001b]0;owned\u0007\u202e"}]}`)
	if got, want := terminalText(summarize(line)), `[s\u001b[2J] hi\u001b]0;owned\u0007\u202e`; got != want {
		t.Errorf("show line %q, want %q", got, want)
	}
	ev := peer.Event{Time: "t", Type: peer.EventLine, PeerName: "n\x1b[31m", Peer: key.MustParsePublic("ed25519:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAE")}
	if got := describe(ev, nil); strings.ContainsRune(got, 0x1b) || !strings.Contains(got, `n\u001b[31m`) {
		t.Errorf("watch line %q", got)
	}
}

// A code part's size in awp show and awp watch counts lines as an editor
// does: a file that ends in a newline has no extra empty line.
func TestLineCount(t *testing.T) {
	for s, want := range map[string]int{"": 0, "a": 1, "a\n": 1, "a\nb": 2, "package main\nfunc main() {}\n": 2, "\n": 1, "\n\n": 2} {
		if got := lineCount(s); got != want {
			t.Errorf("lineCount(%q) = %d, want %d", s, got, want)
		}
	}
	line := json.RawMessage(`{"t":"msg","parts":[{"k":"code","lang":"go","text":"package main\nfunc main() {}\n"}]}`)
	if got := summarize(line); got != "<code go, 2 lines>" {
		t.Errorf("summarize = %q", got)
	}
}

// awp watch names a line's author only where it is not the event's peer:
// a line a sharer mirrored from a third peer.
func TestWatchLineAuthor(t *testing.T) {
	p := key.MustParsePublic("ed25519:PAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	me := key.MustParsePublic("ed25519:MAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	third := key.MustParsePublic("ed25519:TAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	carol := key.MustParsePublic("ed25519:CAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	msg := json.RawMessage(`{"t":"msg","parts":[{"k":"text","text":"hi"}]}`)
	for _, c := range []struct {
		dir  string
		from key.PublicKey
		want string
	}{
		{"in", p, "t line bob (PAAAAAAA) thr_a in: hi"},
		{"out", me, "t line bob (PAAAAAAA) thr_a out: hi"},
		{"in", third, "t line bob (PAAAAAAA) thr_a in from TAAAAAAA: hi"},
		{"in", carol, "t line bob (PAAAAAAA) thr_a in from carol (CAAAAAAA): hi"},
	} {
		ev := peer.Event{Time: "t", Type: peer.EventLine, Peer: p, PeerName: "bob", Th: "thr_a", Line: &peer.LineInfo{Dir: c.dir, From: c.from, Line: msg}}
		if got := describe(ev, peerNames{carol: "carol"}); got != c.want {
			t.Errorf("%s line from %s: %q, want %q", c.dir, c.from.Short(), got, c.want)
		}
	}
}

// awp watch names an approval's asker as awp pending does, by name and
// short key, once; its caps comma-joined; and, when it is decided, how.
func TestWatchApproval(t *testing.T) {
	p := key.MustParsePublic("ed25519:PAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	req := &peer.ApprovalRequest{ID: "ap1", From: p, FromName: "bob", Caps: []string{"exec", "fs:read"}}
	for _, c := range []struct {
		ev   peer.Event
		want string
	}{
		{peer.Event{Time: "t", Type: peer.EventApproval, Peer: p, PeerName: "bob", Th: "thr_a", Approval: req},
			"t approval bob (PAAAAAAA) thr_a ap1 exec,fs:read"},
		{peer.Event{Time: "t", Type: peer.EventApprovalDone, Peer: p, PeerName: "bob", Th: "thr_a", Approval: req, Decision: &peer.Decision{Allow: true, For: time.Hour, By: "user"}},
			"t approval_done bob (PAAAAAAA) thr_a ap1 exec,fs:read: allowed for 1h by user"},
		{peer.Event{Time: "t", Type: peer.EventApprovalDone, Peer: p, PeerName: "bob", Th: "thr_a", Approval: req, Decision: &peer.Decision{By: "timeout", Reason: "no answer"}},
			"t approval_done bob (PAAAAAAA) thr_a ap1 exec,fs:read: denied by timeout: no answer"},
	} {
		if got := describe(c.ev, nil); got != c.want {
			t.Errorf("describe = %q, want %q", got, c.want)
		}
	}
}

// awp watch names the peer of an event that carries no name (a line sent,
// an ack) by the name it knew at the start or learned from an earlier
// event, and learns at most maxWatchNames names.
func TestWatchNames(t *testing.T) {
	bob := key.MustParsePublic("ed25519:BAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	dan := key.MustParsePublic("ed25519:DAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	names := peerNames{bob: "bob"}
	ack := peer.Event{Time: "t", Type: peer.EventAck, Peer: bob, Th: "thr_a", Of: "01J9AAAAAAAAAAAAAAAAAAAAAA"}
	names.fill(&ack)
	if got, want := describe(ack, names), "t ack bob (BAAAAAAA) thr_a of 01J9AAAAAAAAAAAAAAAAAAAAAA"; got != want {
		t.Errorf("ack: %q, want %q", got, want)
	}
	up := peer.Event{Time: "t", Type: peer.EventPeerUp, Peer: dan, PeerName: "dan"}
	names.fill(&up)
	out := peer.Event{Time: "t", Type: peer.EventAck, Peer: dan, Th: "thr_b", Of: "01J9AAAAAAAAAAAAAAAAAAAAAB"}
	names.fill(&out)
	if out.PeerName != "dan" {
		t.Errorf("a name from peer_up was not used later: %q", out.PeerName)
	}
	full := peerNames{}
	for i := range maxWatchNames {
		b := make([]byte, 32)
		b[0], b[1], b[2] = 1, byte(i), byte(i>>8)
		k, err := key.PublicFromBytes(b)
		if err != nil {
			t.Fatal(err)
		}
		full[k] = "x"
	}
	up.Peer = bob
	full.fill(&up)
	if _, ok := full[bob]; ok || len(full) != maxWatchNames {
		t.Errorf("learned past maxWatchNames: %d names", len(full))
	}
}

// A peer's name and subject cannot move a column, forge a row or reach the
// terminal as an escape sequence: each cell of a table is terminal-safe.
func TestListCellsTerminalSafe(t *testing.T) {
	var out bytes.Buffer
	e := &env{ctx: context.Background(), stdout: &out, stderr: io.Discard, getenv: func(string) string { return "" }}
	fetch := func(*localapi.Client, context.Context) ([]peer.PeerInfo, error) {
		return []peer.PeerInfo{{Key: key.MustParsePublic("ed25519:kAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), Name: "evil\ttrue\ttrue\nfake-row\x1b]52;c;cm0gLXJmIH4=\x07"}}, nil
	}
	err := runList(e, []string{"--data", t.TempDir()}, "peers", fetch, "KEY\tNAME\tUP\tTRUSTED\tLISTEN", func(p peer.PeerInfo) []string {
		return []string{p.Key.String(), p.Name, strconv.FormatBool(p.Up), strconv.FormatBool(p.Trusted), "-"}
	})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want the header and one row:\n%s", len(lines), out.String())
	}
	if got := strings.Fields(lines[1]); len(got) != 5 || got[1] != `evil\ttrue\ttrue\nfake-row\u001b]52;c;cm0gLXJmIH4=\u0007` || got[2] != "false" || got[3] != "false" {
		t.Errorf("row %q", lines[1])
	}
	if strings.ContainsAny(out.String(), "\x1b\x07") {
		t.Errorf("an escape sequence reached the output: %q", out.String())
	}
}
