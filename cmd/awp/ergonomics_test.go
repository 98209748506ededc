package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/internal/flaghelp"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/localapi/localapitest"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// Every command's -h (and `awp help COMMAND`) lists every one of its
// flags with its description and, unless it is the zero value, its
// default: `run -h` used to print one usage line without --warm-buffers.
func TestHelpListsEveryFlag(t *testing.T) {
	for _, c := range commands {
		t.Run(c.name, func(t *testing.T) {
			args := []string{c.name, "-h"}
			if c.name == "blob" {
				args = []string{"blob", "get", "-h"}
			}
			code, out, errs := awp(t, context.Background(), args...)
			if code != exitOK || errs != "" || !strings.HasPrefix(out, "usage: "+c.usage+"\n\n"+c.summary+"\n") {
				t.Fatalf("%v: exit %d, stderr %q, stdout\n%s", args, code, errs, out)
			}
			var h *helpRequest
			if !errors.As(flagsOf(c), &h) {
				t.Fatalf("%s -h gave no flags", c.name)
			}
			n := 0
			h.fs.VisitAll(func(f *flag.Flag) {
				n++
				line := lineWith(out, "  "+flaghelp.Synopsis(f, metavar)+" ")
				if line == "" || !strings.Contains(line, f.Usage) {
					t.Errorf("no line for --%s (%q) in\n%s", f.Name, f.Usage, out)
				}
				if d := flaghelp.Description(f); d != f.Usage && !strings.Contains(line, "(default "+f.DefValue+")") {
					t.Errorf("--%s: default %q not shown in %q", f.Name, f.DefValue, line)
				}
				// A value is named for what it is (auto|bwrap|none,
				// DURATION|off), not by the flag's name in capitals
				// (EXEC-SANDBOX, KEEP-BLOBS).
				if m := metavar(f); !flaghelp.IsBool(f) && strings.Contains(f.Name, "-") && m == strings.ToUpper(f.Name) {
					t.Errorf("--%s: its value is named %s in help", f.Name, m)
				}
			})
			if n == 0 || !strings.Contains(out, "--data DIR") {
				t.Errorf("%s: %d flags listed", c.name, n)
			}
			// `awp help COMMAND` says the same.
			if _, h2, _ := awp(t, context.Background(), "help", c.name); h2 != out {
				t.Errorf("help %s =\n%s\nwant\n%s", c.name, h2, out)
			}
		})
	}
	_, out, _ := awp(t, context.Background(), "run", "-h")
	for _, want := range []string{"--exec-network=true|false", "(default true)", "--warm-buffers ", "--approval-timeout DURATION", "--keyring keyring|file"} {
		if !strings.Contains(out, want) {
			t.Errorf("run -h lacks %q:\n%s", want, out)
		}
	}
}

// lineWith returns the first line of s that contains sub.
func lineWith(s, sub string) string {
	for l := range strings.SplitSeq(s, "\n") {
		if strings.Contains(l+" ", sub) {
			return l
		}
	}
	return ""
}

func TestVersion(t *testing.T) {
	for _, arg := range []string{"--version", "-version", "version"} {
		code, out, errs := awp(t, context.Background(), arg)
		if code != exitOK || errs != "" || !strings.HasPrefix(out, "awp "+peer.Version+" (") || !strings.Contains(out, "go1.") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", arg, code, out, errs)
		}
	}
	out := ok(t, "version", "--json")
	var b buildInfo
	if err := json.Unmarshal([]byte(out), &b); err != nil || b.Version != peer.Version || !strings.HasPrefix(b.Go, "go1.") {
		t.Fatalf("version --json = %q (%v)", out, err)
	}
	b = buildInfo{Version: "1.2.3", Commit: "0123456789abcdef0123", Time: "2026-12-01T10:00:00Z", Modified: true, Go: "go1.26.8 linux/amd64"}
	if got, want := b.String(), "awp 1.2.3 (commit 0123456789ab+modified, 2026-12-01T10:00:00Z, go1.26.8 linux/amd64)"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}

// Every command with output takes --json and prints one JSON value.
func TestJSONWherePrinted(t *testing.T) {
	f, dir := serveFake(t)
	remote := fakeKey(t, "R")
	f.Lock()
	f.ConnectKey = key.MustParsePublic(remote)
	f.AddKey = key.MustParsePublic(remote)
	f.InviteV = "awp:e30"
	f.SendResult = peer.SendResult{ID: "01J9S", Th: "thr_a"}
	f.GrantRaw = json.RawMessage(`{"caps":["exec"]}`)
	f.RequestResult = json.RawMessage(`{"exit":0}`)
	f.PeerList = []peer.PeerInfo{{Key: key.MustParsePublic(remote), Name: "r", Up: true}}
	f.Unlock()
	inv := "awp:" + key.B64.EncodeToString(wire.MustMarshal(map[string]any{"key": remote, "name": "r", "listen": []string{"tcp://127.0.0.1:9"}}))
	for _, args := range [][]string{
		{"status"}, {"invite"}, {"connect", "tcp://127.0.0.1:9"}, {"add", inv},
		{"presence", "detail"}, {"presence", "detail", "peers"}, {"version"},
		{"send", "--to", "r", "--text", "x"}, {"state", "--th", "thr_a", "done"},
		{"grant", "--to", "r", "--caps", "exec", "--ttl", "1h"},
		{"request", "fs:read", "--to", "r", "--path", "a"},
		{"mirror", "hosts"}, {"private", "thr_a"},
		{"threads"}, {"peers"}, {"blobs"}, {"pending"}, {"grants"}, {"presence"},
	} {
		all := append([]string{args[0], "--data", dir, "--json"}, args[1:]...)
		out := ok(t, all...)
		if !json.Valid([]byte(out)) || strings.Count(out, "\n") != 1 {
			t.Errorf("%v printed %q, want one JSON value", args, out)
		}
	}
	if out := ok(t, "invite", "--data", dir, "--json"); out != `{"invite":"awp:e30"}`+"\n" {
		t.Errorf("invite --json = %q", out)
	}
	if out := ok(t, "connect", "--data", dir, "--json", "tcp://127.0.0.1:9"); out != `{"key":"`+remote+`"}`+"\n" {
		t.Errorf("connect --json = %q", out)
	}
	if out := ok(t, "presence", "--data", dir, "--json", "detail"); out != `{"detail":"peers"}`+"\n" {
		t.Errorf("presence detail --json = %q", out)
	}
	// id --json: the identity in a file.
	idDir := t.TempDir()
	_, out, _ := awp(t, context.Background(), "id", "--data", idDir, "--keyring", "file", "--json")
	var id map[string]string
	if err := json.Unmarshal([]byte(out), &id); err != nil || !strings.HasPrefix(id["key"], "ed25519:") {
		t.Errorf("id --json = %q", out)
	}
}

// keyedFake serves a fake that knows alice, bob and two peers named twin.
func keyedFake(t *testing.T) (f *localapitest.Fake, dir, alice, bob, twin1, twin2 string) {
	t.Helper()
	f, dir = serveFake(t)
	alice, bob, twin1, twin2 = fakeKey(t, "alice"), fakeKey(t, "bob"), fakeKey(t, "twin1"), fakeKey(t, "twin2")
	f.Lock()
	f.PeerList = []peer.PeerInfo{
		{Key: key.MustParsePublic(alice), Name: "alice", Up: true}, {Key: key.MustParsePublic(bob), Name: "bob", Up: true},
		{Key: key.MustParsePublic(twin1), Name: "twin", Up: true}, {Key: key.MustParsePublic(twin2), Name: "twin", Up: true},
	}
	f.SendResult = peer.SendResult{ID: "01J9S", Th: "thr_a"}
	f.GrantRaw = json.RawMessage(`{}`)
	f.RequestResult = json.RawMessage(`{}`)
	f.Unlock()
	return
}

// grant --on takes this peer itself (its name, key or key prefix) beside
// its peers; a name of both this peer and a peer is ambiguous (bad usage).
func TestGrantOnSelf(t *testing.T) {
	f, dir, alice, bob, _, _ := keyedFake(t)
	self := f.PubKey.String() // the fake's name is "fake"
	for _, form := range []string{"fake", self, short(self, 6)} {
		ok(t, "grant", "--data", dir, "--to", "bob", "--caps", "exec", "--ttl", "1h", "--on", form, "--on", "alice")
	}
	f.Lock()
	granted := f.Granted
	f.PeerList = append(f.PeerList, peer.PeerInfo{Key: key.MustParsePublic(fakeKey(t, "other")), Name: "fake"})
	f.Unlock()
	if len(granted) != 3 {
		t.Fatalf("%d grants, want 3", len(granted))
	}
	for _, g := range granted {
		if g.To.String() != bob || !reflect.DeepEqual(g.On, []key.PublicKey{f.PubKey, key.MustParsePublic(alice)}) {
			t.Errorf("grant to %s on %v, want on this peer and alice", g.To, g.On)
		}
	}
	code, _, errs := awp(t, context.Background(), "grant", "--data", dir, "--to", "bob", "--caps", "exec", "--ttl", "1h", "--on", "fake")
	if code != exitUsage || !strings.Contains(errs, `"fake" matches 2 peers`) || !strings.Contains(errs, "(fake, this peer)") {
		t.Errorf("a name of this peer and of a peer: exit %d, stderr %q", code, errs)
	}
}

// short is the first n characters of k's text after "ed25519:".
func short(k string, n int) string { return strings.TrimPrefix(k, key.Prefix)[:n] }

// Every KEY argument takes a full key, a prefix of 6 characters or more,
// or a unique peer name.
func TestKeyArguments(t *testing.T) {
	f, dir, alice, bob, _, _ := keyedFake(t)
	f.LinesByTh = map[string][]peer.LineInfo{"thr_a|" + bob: {}}
	for _, form := range []string{bob, "bob", "BOB", short(bob, 6), key.Prefix + short(bob, 10)} {
		ok(t, "send", "--data", dir, "--to", form, "--text", "hi")
		ok(t, "trust", "--data", dir, form)
		ok(t, "grant", "--data", dir, "--to", form, "--caps", "exec", "--ttl", "1h", "--on", "alice")
		ok(t, "request", "fs:read", "--data", dir, "--to", form, "--path", "a")
		ok(t, "private", "--data", dir, "--from", form, "thr_a")
		ok(t, "mirror", "hosts", "--data", dir, form, "alice")
		ok(t, "show", "--data", dir, "--from", form, "thr_a")
	}
	f.Lock()
	defer f.Unlock()
	for _, s := range f.Sent {
		if s.To.String() != bob {
			t.Errorf("send --to resolved to %s, want %s", s.To, bob)
		}
	}
	if !reflect.DeepEqual(f.TrustSet, map[key.PublicKey]bool{key.MustParsePublic(bob): true}) {
		t.Errorf("trust set %v", f.TrustSet)
	}
	for _, g := range f.Granted {
		if g.To.String() != bob || !reflect.DeepEqual(g.On, []key.PublicKey{key.MustParsePublic(alice)}) {
			t.Errorf("grant %+v", g)
		}
	}
	for _, r := range f.Requests {
		if r.To.String() != bob {
			t.Errorf("request to %s", r.To)
		}
	}
	for _, p := range f.Privates {
		if p[1] != bob {
			t.Errorf("private from %s", p[1])
		}
	}
	if !reflect.DeepEqual(f.Hosts, []key.PublicKey{key.MustParsePublic(bob), key.MustParsePublic(alice)}) {
		t.Errorf("mirror hosts %v", f.Hosts)
	}
	if len(f.Sent) != 5 || len(f.Granted) != 5 || len(f.Requests) != 5 || len(f.Privates) != 5 {
		t.Errorf("sent %d, granted %d, requested %d, private %d; want 5 each", len(f.Sent), len(f.Granted), len(f.Requests), len(f.Privates))
	}
}

// An ambiguous KEY is bad usage listing the candidates; one that matches
// nothing, or a prefix under 6 characters, is bad usage too.
func TestKeyArgumentsRefused(t *testing.T) {
	_, dir, _, _, twin1, twin2 := keyedFake(t)
	code, _, errs := awp(t, context.Background(), "send", "--data", dir, "--to", "twin", "--text", "hi")
	if code != exitUsage || !strings.Contains(errs, `"twin" matches 2 peers`) ||
		!strings.Contains(errs, short(twin1, 12)+" (twin)") || !strings.Contains(errs, short(twin2, 12)+" (twin)") {
		t.Errorf("ambiguous name: exit %d, stderr %q", code, errs)
	}
	for _, bad := range []string{"carol", short(twin1, 5), "ed25519:nope"} {
		code, _, errs := awp(t, context.Background(), "trust", "--data", dir, bad)
		if code != exitUsage || !strings.HasPrefix(errs, "awp trust: KEY: ") {
			t.Errorf("trust %q: exit %d, stderr %q", bad, code, errs)
		}
	}
}

// `blob get` finds the sender of a REF only one peer sent.
func TestBlobGetWithoutFrom(t *testing.T) {
	f, dir := serveFake(t)
	p, q := fakeKey(t, "P"), fakeKey(t, "Q")
	data := []byte("bytes")
	info := func(from, ref string) peer.BlobInfo {
		return peer.BlobInfo{Ref: ref, From: key.MustParsePublic(from), Size: int64(len(data)), Received: int64(len(data)), Complete: true, Dir: "in"}
	}
	f.Lock()
	f.BlobList = []peer.BlobInfo{info(p, "blob_1"), info(p, "blob_2"), info(q, "blob_2"),
		{Ref: "blob_3", From: key.MustParsePublic(q), Dir: "out", Complete: true}}
	f.BlobData = map[string][]byte{p + "|blob_1": data, p + "|blob_2": data, q + "|blob_2": data}
	f.PeerList = []peer.PeerInfo{{Key: key.MustParsePublic(p), Name: "p"}, {Key: key.MustParsePublic(q), Name: "q"}}
	f.Unlock()
	if out := ok(t, "blob", "get", "--data", dir, "blob_1"); out != "bytes" {
		t.Errorf("blob get blob_1 = %q", out)
	}
	code, _, errs := awp(t, context.Background(), "blob", "get", "--data", dir, "blob_2")
	if code != exitUsage || !strings.Contains(errs, "2 peers sent a blob blob_2") || !strings.Contains(errs, key.ShortText(q)) || !strings.Contains(errs, "give --from") {
		t.Errorf("two senders: exit %d, stderr %q", code, errs)
	}
	// A blob this peer sent is not one to get.
	code, _, errs = awp(t, context.Background(), "blob", "get", "--data", dir, "blob_3")
	if code != exitFail || !strings.Contains(errs, "no blob blob_3 was received") {
		t.Errorf("sent blob: exit %d, stderr %q", code, errs)
	}
	if out := ok(t, "blob", "get", "--data", dir, "--from", short(q, 8), "blob_2"); out != "bytes" {
		t.Errorf("blob get --from prefix = %q", out)
	}
}

func TestCapsChecked(t *testing.T) {
	f, dir := serveFake(t)
	f.GrantRaw = json.RawMessage(`{}`)
	to := fakeKey(t, "T")
	code, _, errs := awp(t, context.Background(), "grant", "--data", dir, "--to", to, "--caps", "exec,sudo", "--ttl", "1h")
	if code != exitUsage || !strings.Contains(errs, `unknown capability "sudo" (known: chat, exec, fs:read, fs:write, introduce)`) {
		t.Errorf("unknown cap: exit %d, stderr %q", code, errs)
	}
	ok(t, "grant", "--data", dir, "--to", to, "--caps", "exec, fs:read,exec", "--ttl", "1h")
	f.Lock()
	defer f.Unlock()
	if len(f.Granted) != 1 || !reflect.DeepEqual(f.Granted[0].Caps, []string{"exec", "fs:read"}) {
		t.Errorf("granted %+v", f.Granted)
	}
}

// FuzzParseDuration: any text is refused or read, and what formatDuration
// writes of it reads back the same.
func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"90s", "1h30m", "7d", "1d12h", "0.5d", "-2d", "0", "99999999999d", "1.5d3h", "+1d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseDuration(s)
		if err != nil {
			return
		}
		if back, err := parseDuration(formatDuration(d)); err != nil || back != d {
			t.Fatalf("parseDuration(%q) = %v; formatDuration writes %q, which reads %v, %v", s, d, formatDuration(d), back, err)
		}
	})
}

func TestDurations(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
	}{
		{"90s", 90 * time.Second}, {"1h30m", 90 * time.Minute}, {"7d", 7 * day}, {"1d12h", 36 * time.Hour},
		{"0.5d", 12 * time.Hour}, {"-2d", -2 * day}, {"2d0s", 2 * day}, {"0", 0},
	} {
		if got, err := parseDuration(c.in); err != nil || got != c.want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "d", "7", "1e3d", "7dd", "d7h", "1d-2h", "1d+2h", "--1d", "7 d", "1x", "99999999999d"} {
		if got, err := parseDuration(bad); err == nil {
			t.Errorf("parseDuration(%q) = %v, want an error", bad, got)
		}
	}
	for d, want := range map[time.Duration]string{7 * day: "7d", 36 * time.Hour: "1d12h", time.Minute: "1m",
		10 * time.Minute: "10m", 90 * time.Minute: "1h30m", 90 * time.Second: "1m30s", 0: "0s", -day: "-1d"} {
		if got := formatDuration(d); got != want {
			t.Errorf("formatDuration(%v) = %q, want %q", d, got, want)
		}
		if back, err := parseDuration(formatDuration(d)); err != nil || back != d {
			t.Errorf("parseDuration(formatDuration(%v)) = %v, %v", d, back, err)
		}
	}
	f, dir := serveFake(t)
	f.GrantRaw = json.RawMessage(`{}`)
	ok(t, "grant", "--data", dir, "--to", fakeKey(t, "T"), "--caps", "exec", "--ttl", "7d")
	ok(t, "decide", "--data", dir, "--for", "2d", "ap1", "allow")
	f.Lock()
	defer f.Unlock()
	if f.Granted[0].TTL != 7*day || f.Decisions["ap1"].For != 2*day {
		t.Errorf("ttl %v, for %v", f.Granted[0].TTL, f.Decisions["ap1"].For)
	}
}

// send (and request) to a key that never connected says on stderr that
// it is queued until the key connects; to a known peer that is down, that
// it waits; to a connected peer, nothing.
func TestQueuedNote(t *testing.T) {
	f, dir := serveFake(t)
	f.SendResult = peer.SendResult{ID: "01J9S", Th: "thr_a"}
	stranger, down, up := fakeKey(t, "S"), fakeKey(t, "D"), fakeKey(t, "U")
	f.PeerList = []peer.PeerInfo{{Key: key.MustParsePublic(down), Name: "down"}, {Key: key.MustParsePublic(up), Name: "up", Up: true}}
	for _, c := range []struct{ to, note string }{
		{stranger, "awp: " + stranger + " has never connected to this peer: the msg is queued until it connects"},
		{down, "awp: down (" + key.ShortText(down) + ") is not connected: the msg is queued until it connects\n"},
		{up, ""},
	} {
		code, out, errs := awp(t, context.Background(), "send", "--data", dir, "--to", c.to, "--text", "hi")
		if code != exitOK || out != `{"id":"01J9S","th":"thr_a"}`+"\n" || !strings.HasPrefix(errs, c.note) || (c.note == "") != (errs == "") {
			t.Errorf("send to %s: exit %d, stdout %q, stderr %q; want a note %q", c.to, code, out, errs, c.note)
		}
	}
}

func TestUnknownCommandSuggests(t *testing.T) {
	for typed, want := range map[string]string{
		"statu": ` (did you mean "status"?)`, "sned": ` (did you mean "send"?)`, "pend": ` (did you mean "pending"?)`,
		"trsut": ` (did you mean "trust"?)`, "frobnicate": "", "x": "",
	} {
		code, out, errs := awp(t, context.Background(), typed)
		first, _, _ := strings.Cut(errs, "\n")
		if code != exitUsage || out != "" || first != `awp: unknown command "`+typed+`"`+want {
			t.Errorf("%s: exit %d, stderr %q, want the suggestion %q", typed, code, errs, want)
		}
	}
	if _, _, errs := awp(t, context.Background(), "help", "sattus"); !strings.Contains(errs, `did you mean "status"?`) {
		t.Errorf("help sattus: %q", errs)
	}
}

// A failed connect says the peer keeps redialing; so does one that ran
// out of time.
func TestConnectFailureSaysRedialing(t *testing.T) {
	f, dir := serveFake(t)
	f.Err = errors.New("peer: connect tcp://127.0.0.1:9: connection refused")
	code, _, errs := awp(t, context.Background(), "connect", "--data", dir, "tcp://127.0.0.1:9")
	if code != exitFail || errs != "awp connect: peer: connect tcp://127.0.0.1:9: connection refused; the peer keeps redialing it (backing off up to 30s; `awp peers` shows when it is up)\n" {
		t.Errorf("refused: exit %d, stderr %q", code, errs)
	}
	f.Lock()
	f.Err, f.BlockConnect = nil, true
	f.Unlock()
	code, _, errs = awp(t, context.Background(), "connect", "--data", dir, "--timeout", "50ms", "tcp://127.0.0.1:9")
	if code != exitFail || !strings.HasPrefix(errs, "awp connect: tcp://127.0.0.1:9: no handshake within 50ms; the peer keeps redialing it") {
		t.Errorf("timeout: exit %d, stderr %q", code, errs)
	}
	// An address that leads back to the peer itself is not redialed, and
	// the message does not say it is (the error crosses the socket as
	// peer.ErrSelfAddress).
	f.Lock()
	f.Err, f.BlockConnect = fmt.Errorf("peer: connect tcp://127.0.0.1:9: %w", peer.ErrSelfAddress), false
	f.Unlock()
	code, _, errs = awp(t, context.Background(), "connect", "--data", dir, "tcp://127.0.0.1:9")
	if want := "awp connect: peer: connect tcp://127.0.0.1:9: " + peer.ErrSelfAddress.Error() + "\n"; code != exitFail || errs != want {
		t.Errorf("own address: exit %d, stderr %q, want %q", code, errs, want)
	}
}

// The completion scripts, sourced by real bash, zsh and fish, complete
// commands, flags, flag values, positional words and the running peer's
// names and keys (through `awp __complete`).
func TestCompletion(t *testing.T) {
	f, dir := serveFake(t)
	bob := fakeKey(t, "bob")
	f.Lock() // the reads come from awp processes: no happens-before the race detector sees without it
	f.PeerList = []peer.PeerInfo{{Key: key.MustParsePublic(bob), Name: "bob"}}
	f.ThreadList = []peer.ThreadInfo{{Th: "thr_abc1"}}
	f.Unlock()
	bin := t.TempDir()
	if err := os.Symlink(awpBinary(t), filepath.Join(bin, "awp")); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "AWP_DATA="+dir)
	shell := func(name string, script string) string {
		t.Helper()
		if _, err := exec.LookPath(name); err != nil {
			t.Fatalf("%s is not installed (scripts/deps.sh test installs it): %v", name, err)
		}
		cmd := exec.Command(name, "-c", script)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		return string(out)
	}
	// The cases with a leading --data run with $AWP_DATA elsewhere, so
	// the running peer is found only through the --data they name.
	noPeer := filepath.Join(t.TempDir(), "none")
	other := filepath.Join(t.TempDir(), "otherdata") // a directory to complete
	if err := os.Mkdir(other, 0o700); err != nil {
		t.Fatal(err)
	}
	type compCase struct {
		words []string // the command line, the word being completed last
		want  string   // the candidates, space-separated
	}
	cases := []compCase{
		{[]string{"awp", "sta"}, "status state"},
		{[]string{"awp", "send", "--t"}, "--text --th --to"},
		{[]string{"awp", "send", "--to", ""}, "bob " + key.ShortText(bob)},
		{[]string{"awp", "trust", ""}, "bob " + key.ShortText(bob)},
		{[]string{"awp", "show", "--json", ""}, "thr_abc1"},
		{[]string{"awp", "run", "--accept", ""}, "any known trusted"},
		{[]string{"awp", "run", "--exec-sandbox", ""}, "auto bwrap none"},
		{[]string{"awp", "grant", "--caps", "fs"}, "fs:read fs:write"},
		{[]string{"awp", "presence", "detail", ""}, "full peers none"},
		{[]string{"awp", "decide", "--for", "1h", "ap1", ""}, "allow deny"},
		{[]string{"awp", "completion", ""}, "bash zsh fish"},
		{[]string{"awp", "state", "thr_abc1", "wo"}, "working"},
		{[]string{"awp", "help", "pe"}, "peers pending"},
		{[]string{"awp", "grant", "--caps", "fs:"}, "fs:read fs:write"},
		{[]string{"awp", "grant", "--caps=fs:r"}, "--caps=fs:read"},
		{[]string{"awp", "--data=" + strings.TrimSuffix(other, "data")}, "--data=" + other},
		{[]string{"awp", "--d"}, "--data"},
		{[]string{"awp", "--data", dir}, dir},
		{[]string{"awp", "--data", dir, "sta"}, "status state"},
		{[]string{"awp", "--data", dir, "trust", ""}, "bob " + key.ShortText(bob)},
		{[]string{"awp", "--data", dir, "send", "--to", ""}, "bob " + key.ShortText(bob)},
		{[]string{"awp", "--data", dir, "presence", "detail", ""}, "full peers none"},
		{[]string{"awp", "show", "--data", dir, ""}, "thr_abc1"},
	}
	// Real bash splits words at = and : (COMP_WORDBREAKS), --data=DIR
	// into --data, = and DIR, and replaces only the piece after the last
	// of them; zsh and fish keep one word.
	bashCases := append(slices.Clip(cases),
		compCase{[]string{"awp", "--data", "=", dir, "show", ""}, "thr_abc1"},
		compCase{[]string{"awp", "send", "--data", "=", dir, "--to", "="}, "bob " + key.ShortText(bob)},
		compCase{[]string{"awp", "send", "--to", "=", "b"}, "bob"},
		compCase{[]string{"awp", "grant", "--caps", "fs", ":"}, "read write"},
		compCase{[]string{"awp", "grant", "--caps", "=", "fs", ":", "w"}, "write"},
		compCase{[]string{"awp", "request", "fs", ":"}, "read write"},
		compCase{[]string{"awp", "--data", "=", strings.TrimSuffix(other, "data")}, other})
	withData := func(words []string) bool { return slices.Contains(words, "--data") }
	var b strings.Builder
	b.WriteString("source <(awp completion bash)\n")
	for _, c := range bashCases {
		line := fmt.Sprintf("COMP_WORDS=(%s); COMP_CWORD=%d; COMPREPLY=(); _awp; echo \"${COMPREPLY[*]}\"", shellWords(c.words), len(c.words)-1)
		if withData(c.words) {
			line = fmt.Sprintf("(AWP_DATA=%s; %s)", noPeer, line)
		}
		b.WriteString(line + "\n")
	}
	got := strings.Split(strings.TrimSuffix(shell("bash", b.String()), "\n"), "\n")
	for i, c := range bashCases {
		if i >= len(got) || got[i] != c.want {
			t.Errorf("bash %q: got %q, want %q", c.words, got, c.want)
		}
	}

	// zsh runs the same function through bashcompinit (zsh filters the
	// candidates by the word typed itself, so only empty words here).
	b.Reset()
	b.WriteString("autoload -U compinit && compinit -u\nsource <(awp completion zsh)\nprint -r -- $_comps[awp]\n")
	var zcases []int
	for i, c := range cases {
		if c.words[len(c.words)-1] == "" {
			zcases = append(zcases, i)
			// Double quotes inside the single-quoted script, so that the
			// empty word stays in COMP_WORDS, as zsh's bashcompinit sets it.
			words := strings.ReplaceAll(shellWords(c.words), "'", `"`)
			line := fmt.Sprintf("emulate sh -c 'COMP_WORDS=(%s); COMP_CWORD=%d; _awp; echo \"${COMPREPLY[*]}\"'", words, len(c.words)-1)
			if withData(c.words) {
				line = fmt.Sprintf("(AWP_DATA=%s; %s)", noPeer, line)
			}
			b.WriteString(line + "\n")
		}
	}
	got = strings.Split(strings.TrimSuffix(shell("zsh", b.String()), "\n"), "\n")
	if got[0] != "_bash_complete -F _awp" {
		t.Errorf("zsh registers %q for awp", got[0])
	}
	for j, i := range zcases {
		if j+1 >= len(got) || got[j+1] != cases[i].want {
			t.Errorf("zsh %q: got %q, want %q", cases[i].words, got, cases[i].want)
		}
	}

	// fish: its own completions, asked with complete -C.
	b.Reset()
	b.WriteString("awp completion fish | source\n")
	for _, c := range cases {
		line := fmt.Sprintf("echo (complete -C %s | string replace -r '\\t.*' '')", fishQuote(strings.Join(c.words, " ")))
		if withData(c.words) {
			line = fmt.Sprintf("begin; set -lx AWP_DATA %s; %s; end", fishQuote(noPeer), line)
		}
		b.WriteString(line + "\n")
	}
	got = strings.Split(strings.TrimSuffix(shell("fish", b.String()), "\n"), "\n")
	for i, c := range cases {
		want := strings.Fields(c.want)
		slices.Sort(want)
		var g []string
		if i < len(got) {
			for _, w := range strings.Fields(got[i]) {
				g = append(g, strings.TrimSuffix(w, "/")) // fish ends a directory with /
			}
		}
		slices.Sort(g)
		if !slices.Equal(g, want) {
			t.Errorf("fish %q: got %q, want %q", c.words, g, want)
		}
	}
}

// shellWords quotes words for a bash or zsh array.
func shellWords(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = "'" + w + "'"
	}
	return strings.Join(q, " ")
}
