package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/localapi/localapitest"
	"github.com/awp-tray/awp-tray/peer/profile"
	"github.com/awp-tray/awp-tray/peer/wire"
)

func TestGrantCmd(t *testing.T) {
	f, dir := serveFake(t)
	raw := `{"v":1,"iss":"ed25519:I","sub":"ed25519:S","caps":["exec","fs:read"],"exp":"2026-01-01T00:00:00Z","note":"a <b>","sig":"x"}`
	f.GrantRaw = json.RawMessage(raw)
	to, on := fakeKey(t, "S"), fakeKey(t, "O")
	out := ok(t, "grant", "--data", dir, "--to", to, "--caps", "exec, fs:read", "--ttl", "90m", "--on", on, "--note", "ci")
	if out != raw+"\n" {
		t.Fatalf("grant printed %q, want the grant object", out)
	}
	want := localapitest.GrantCall{To: key.MustParsePublic(to), Caps: []string{"exec", "fs:read"}, TTL: 90 * time.Minute, On: []key.PublicKey{key.MustParsePublic(on)}, Note: "ci"}
	f.Lock()
	defer f.Unlock()
	if len(f.Granted) != 1 || !reflect.DeepEqual(f.Granted[0], want) {
		t.Fatalf("granted = %+v, want %+v", f.Granted, want)
	}
}

func TestGrantsRevokeCmd(t *testing.T) {
	f, dir := serveFake(t)
	if out := ok(t, "grants", "--data", dir, "--json"); out != "[]\n" {
		t.Fatalf("empty grants --json = %q", out)
	}
	f.Lock()
	f.GrantList = []peer.GrantInfo{
		{ID: "g_1", Grant: json.RawMessage(`{"iss":"ed25519:I","sub":"ed25519:S","caps":["exec"]}`), Issued: true, Exp: "2026-01-01T00:00:00Z"},
		{ID: "g_2", Grant: json.RawMessage(`{"caps":["fs:read"]}`), Revoked: true, Expired: true, Exp: "2025-01-01T00:00:00Z"},
	}
	f.Unlock()
	out := ok(t, "grants", "--data", dir, "--json")
	want := `[{"id":"g_1","grant":{"iss":"ed25519:I","sub":"ed25519:S","caps":["exec"]},"issued":true,"revoked":false,"expired":false,"exp":"2026-01-01T00:00:00Z"},` +
		`{"id":"g_2","grant":{"caps":["fs:read"]},"issued":false,"revoked":true,"expired":true,"exp":"2025-01-01T00:00:00Z"}]` + "\n"
	if out != want {
		t.Fatalf("grants --json =\n%s\nwant\n%s", out, want)
	}
	if h := ok(t, "grants", "--data", dir); !strings.Contains(h, "g_1") || !strings.Contains(h, "issued") || !strings.Contains(h, "revoked") {
		t.Fatalf("grants = %q", h)
	}
	if out := ok(t, "revoke", "--data", dir, "g_1"); out != "" {
		t.Fatalf("revoke printed %q", out)
	}
	f.Lock()
	f.Err = errors.New("peer: revoke: no grant g_9")
	f.Unlock()
	code, _, errs := awp(t, context.Background(), "revoke", "--data", dir, "g_9")
	if code != exitFail || errs != "awp revoke: peer: revoke: no grant g_9\n" {
		t.Fatalf("revoke unknown: exit %d, stderr %q", code, errs)
	}
	f.Lock()
	defer f.Unlock()
	if !reflect.DeepEqual(f.Revoked, []string{"g_1"}) {
		t.Fatalf("revoked = %q", f.Revoked)
	}
}

// lastRequest returns the request the fake received last, with the exp
// that `awp request` adds (default --timeout: now + 10 minutes) checked
// and taken out of its data.
func lastRequest(t *testing.T, f *localapitest.Fake) localapitest.RequestCall {
	t.Helper()
	r := lastRequestRaw(t, f)
	r.Data = stripExp(t, r.Data, defaultRequestTimeout)
	return r
}

// lastRequestRaw is lastRequest with the data as sent.
func lastRequestRaw(t *testing.T, f *localapitest.Fake) localapitest.RequestCall {
	t.Helper()
	f.Lock()
	defer f.Unlock()
	if len(f.Requests) == 0 {
		t.Fatal("no request reached the peer")
	}
	return f.Requests[len(f.Requests)-1]
}

// stripExp checks that data ends with an exp about timeout from now and
// returns data without it.
func stripExp(t *testing.T, data json.RawMessage, timeout time.Duration) json.RawMessage {
	t.Helper()
	exp, ok, err := profile.RequestExp(data)
	if err != nil || !ok {
		t.Fatalf("request data %s: no exp (%v)", data, err)
	}
	if d := time.Until(exp); d > timeout || d < timeout-time.Minute {
		t.Fatalf("exp %v is %v from now, want about %v", exp, d, timeout)
	}
	text := `"exp":"` + exp.UTC().Format("2006-01-02T15:04:05.000Z") + `"`
	s := string(data)
	if !strings.HasSuffix(s, text+"}") {
		t.Fatalf("request data %s: exp not written last", data)
	}
	s = strings.TrimSuffix(strings.TrimSuffix(s, text+"}"), ",") + "}"
	return json.RawMessage(s)
}

// `awp request --timeout D` sets exp = now + D in the request (docs/protocol/profile.md
// "Request expiry"); --timeout 0 sets none; an earlier exp in --data-json
// is kept, a later one lowered, a malformed one is a usage error.
func TestRequestExp(t *testing.T) {
	f, dir := serveFake(t)
	f.RequestResult = json.RawMessage(`{"exit":0}`)
	to := fakeKey(t, "X")
	f.PeerList = []peer.PeerInfo{{Key: key.MustParsePublic(to), Name: "x", Up: true}} // connected: no "queued" note
	ok(t, "request", "exec", "--data", dir, "--to", to, "--timeout", "3s", "--cmd", "true")
	if got := stripExp(t, lastRequestRaw(t, f).Data, 3*time.Second); string(got) != `{"cmd":"true"}` {
		t.Fatalf("data %s", got)
	}
	ok(t, "request", "exec", "--data", dir, "--to", to, "--timeout", "0", "--cmd", "true")
	if got := lastRequestRaw(t, f).Data; string(got) != `{"cmd":"true"}` {
		t.Fatalf("--timeout 0: data %s, want no exp", got)
	}
	early := time.Now().Add(time.Second).UTC().Format(time.RFC3339)
	ok(t, "request", "exec", "--data", dir, "--to", to, "--timeout", "1h", "--data-json", `{"cmd":"true","exp":"`+early+`"}`)
	if got := lastRequestRaw(t, f).Data; string(got) != `{"cmd":"true","exp":"`+early+`"}` {
		t.Fatalf("earlier exp: data %s", got)
	}
	ok(t, "request", "exec", "--data", dir, "--to", to, "--timeout", "2m", "--data-json", `{"cmd":"true","exp":"2999-01-01T00:00:00Z"}`)
	if exp, _, _ := profile.RequestExp(lastRequestRaw(t, f).Data); time.Until(exp) > 2*time.Minute {
		t.Fatalf("later exp kept: %v", exp)
	}
	code, _, errs := awp(t, context.Background(), "request", "exec", "--data", dir, "--to", to, "--data-json", `{"cmd":"true","exp":"soon"}`)
	if code != exitUsage || !strings.Contains(errs, "exp") {
		t.Fatalf("bad exp: exit %d, stderr %q", code, errs)
	}
}

func TestRequestExec(t *testing.T) {
	f, dir := serveFake(t)
	result := `{"exit":0,"duration_ms":3,"stdout":"ok <1>\n","stderr":"","stdout_truncated":false,"stderr_truncated":false}`
	f.RequestResult = json.RawMessage(result)
	to := fakeKey(t, "X")
	f.PeerList = []peer.PeerInfo{{Key: key.MustParsePublic(to), Name: "x", Up: true}} // connected: no "queued" note

	// argv after --, with every exec flag.
	out := ok(t, "request", "exec", "--data", dir, "--to", to, "--cwd", "sub", "--env", "A=1", "--env", "B=x=y",
		"--stdin", "in", "--exec-timeout", "30", "--th", "thr_abc", "--", "make", "test", "--", "-v")
	if out != result+"\n" {
		t.Fatalf("request printed %q, want the result data", out)
	}
	r := lastRequest(t, f)
	if r.To.String() != to || r.Mime != profile.MimeExec || r.Th != "thr_abc" {
		t.Fatalf("request = %+v", r)
	}
	want := `{"cmd":["make","test","--","-v"],"cwd":"sub","env":{"A":"1","B":"x=y"},"timeout":30,"stdin":"in"}`
	if string(r.Data) != want {
		t.Fatalf("data = %s\nwant   %s", r.Data, want)
	}

	// --cmd is the string form; grants from files: the first in "grant",
	// the rest in "grants".
	tmp := t.TempDir()
	g1, g2 := filepath.Join(tmp, "g1.json"), filepath.Join(tmp, "g2.json")
	os.WriteFile(g1, []byte(`{"caps":["exec"],"sig":"1"}`+"\n"), 0o600)
	os.WriteFile(g2, []byte(`{"caps":["exec"],"sig":"2"}`), 0o600)
	ok(t, "request", "exec", "--data", dir, "--to", to, "--cmd", "make test && echo <done>", "--grant", g1, "--grant", g2)
	r = lastRequest(t, f)
	want = `{"cmd":"make test && echo <done>","grant":{"caps":["exec"],"sig":"1"},"grants":[{"caps":["exec"],"sig":"2"}]}`
	if string(r.Data) != want {
		t.Fatalf("data = %s\nwant   %s", r.Data, want)
	}

	// An err line answering the request: its code and msg, exit 1.
	f.Lock()
	f.RequestErr = wire.NewErr("01J9E", "", wire.CodeForbidden, "exec needs a grant (no grant)", "01J9R", "thr_1")
	f.Unlock()
	code, out, errs := awp(t, context.Background(), "request", "exec", "--data", dir, "--to", to, "--cmd", "true")
	if code != exitFail || out != "" || errs != "awp request: forbidden: exec needs a grant (no grant)\n" {
		t.Fatalf("refused request: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// A missing grant file fails before anything is sent.
	f.Lock()
	n := len(f.Requests)
	f.Unlock()
	code, _, errs = awp(t, context.Background(), "request", "exec", "--data", dir, "--to", to, "--cmd", "true", "--grant", filepath.Join(tmp, "nope"))
	if code != exitFail || !strings.Contains(errs, "no such file") || len(f.Requests) != n {
		t.Fatalf("missing grant: exit %d, stderr %q", code, errs)
	}
}

func TestRequestFS(t *testing.T) {
	f, dir := serveFake(t)
	f.RequestResult = json.RawMessage(`{"path":"a.txt","written":2}`)
	to := fakeKey(t, "X")
	f.PeerList = []peer.PeerInfo{{Key: key.MustParsePublic(to), Name: "x", Up: true}} // connected: no "queued" note

	ok(t, "request", "fs:read", "--data", dir, "--to", to, "--path", "a.txt")
	if r := lastRequest(t, f); r.Mime != profile.MimeRead || string(r.Data) != `{"path":"a.txt"}` {
		t.Fatalf("read = %+v (%s)", r, r.Data)
	}
	// An explicit --length 0 is sent; an absent one is not.
	ok(t, "request", "fs:read", "--data", dir, "--to", to, "--path", "a.txt", "--offset", "5", "--length", "0")
	if r := lastRequest(t, f); string(r.Data) != `{"path":"a.txt","offset":5,"length":0}` {
		t.Fatalf("read data = %s", r.Data)
	}

	ok(t, "request", "fs:write", "--data", dir, "--to", to, "--path", "d/a.txt", "--content", "hi", "--append", "--mkdir")
	if r := lastRequest(t, f); r.Mime != profile.MimeWrite || string(r.Data) != `{"path":"d/a.txt","content":"hi","append":true,"mkdir":true}` {
		t.Fatalf("write = %+v (%s)", r, r.Data)
	}
	ok(t, "request", "fs:write", "--data", dir, "--to", to, "--path", "b", "--content", "aGk=", "--base64")
	if r := lastRequest(t, f); string(r.Data) != `{"path":"b","content":"aGk=","encoding":"base64"}` {
		t.Fatalf("write base64 data = %s", r.Data)
	}
	// A content file that is not UTF-8 goes as base64; text goes as is.
	bin, txt := filepath.Join(t.TempDir(), "b.bin"), filepath.Join(t.TempDir(), "t.txt")
	os.WriteFile(bin, []byte{0xff, 0x00, 'a'}, 0o600)
	os.WriteFile(txt, []byte("text\n"), 0o600)
	ok(t, "request", "fs:write", "--data", dir, "--to", to, "--path", "b", "--content-file", bin)
	if r := lastRequest(t, f); string(r.Data) != `{"path":"b","content":"/wBh","encoding":"base64"}` {
		t.Fatalf("write binary file data = %s", r.Data)
	}
	ok(t, "request", "fs:write", "--data", dir, "--to", to, "--path", "t", "--content-file", txt)
	if r := lastRequest(t, f); string(r.Data) != `{"path":"t","content":"text\n"}` {
		t.Fatalf("write text file data = %s", r.Data)
	}

	// --data-json is the whole object; a --grant is added to it.
	g := filepath.Join(t.TempDir(), "g.json")
	os.WriteFile(g, []byte(`{"sig":"1"}`), 0o600)
	ok(t, "request", "fs:read", "--data", dir, "--to", to, "--data-json", `{ "path" : "x", "future": true }`)
	if r := lastRequest(t, f); string(r.Data) != `{"path":"x","future":true}` {
		t.Fatalf("data-json data = %s", r.Data)
	}
	ok(t, "request", "fs:read", "--data", dir, "--to", to, "--data-json", `{"path":"x"}`, "--grant", g)
	if r := lastRequest(t, f); string(r.Data) != `{"grant":{"sig":"1"},"path":"x"}` {
		t.Fatalf("data-json with grant = %s", r.Data)
	}
}

func TestPresenceCmd(t *testing.T) {
	f, dir := serveFake(t)
	if out := ok(t, "presence", "--data", dir, "--json"); out != "[]\n" {
		t.Fatalf("empty presence = %q", out)
	}
	// The doc is printed byte for byte, spaces and all (it is signed).
	doc := `{"origin":"ed25519:O","name":"b <x>", "seq":2,"harness":"codex"}`
	f.Lock()
	f.PresenceList = []peer.PresenceInfo{{Doc: json.RawMessage(doc), Hops: 1, Received: "2026-09-25T17:03:11Z", From: key.MustParsePublic("ed25519:OAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")}}
	f.Unlock()
	out := ok(t, "presence", "--data", dir, "--json")
	want := `[{"doc":` + doc + `,"hops":1,"received":"2026-09-25T17:03:11Z","from":"ed25519:OAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}]` + "\n"
	if out != want {
		t.Fatalf("presence --json =\n%s\nwant\n%s", out, want)
	}
	hasAll(t, "presence", out, "doc", "hops", "received")
	if h := ok(t, "presence", "--data", dir); !strings.Contains(h, "b <x>") || !strings.Contains(h, "codex") {
		t.Fatalf("presence = %q", h)
	}
	if out := ok(t, "presence", "--data", dir, "detail"); out != "full\n" {
		t.Fatalf("detail = %q", out)
	}
	ok(t, "presence", "--data", dir, "detail", "none")
	if out := ok(t, "presence", "--data", dir, "detail"); out != "none\n" {
		t.Fatalf("detail after set = %q", out)
	}
}

func TestMirrorCmds(t *testing.T) {
	f, dir := serveFake(t)
	a, b := fakeKey(t, "A"), fakeKey(t, "B")
	if out := ok(t, "mirror", "--data", dir, "hosts"); out != "[]\n" {
		t.Fatalf("no hosts = %q", out)
	}
	if out := ok(t, "mirror", "--data", dir, "hosts", a, b); out != `["`+a+`","`+b+`"]`+"\n" {
		t.Fatalf("set hosts printed %q", out)
	}
	if out := ok(t, "mirror", "--data", dir, "hosts"); out != `["`+a+`","`+b+`"]`+"\n" {
		t.Fatalf("hosts = %q", out)
	}
	if out := ok(t, "mirror", "--data", dir, "hosts", "--clear"); out != "[]\n" {
		t.Fatalf("cleared hosts printed %q", out)
	}
	ok(t, "mirror", "--data", dir, "off", "thr_a1")
	ok(t, "mirror", "--data", dir, "on", "thr_b2")
	f.SendResult = peer.SendResult{ID: "01J9P", Th: "thr_c3"}
	if out := ok(t, "private", "--data", dir, "--from", a, "thr_c3"); out != `{"id":"01J9P","th":"thr_c3"}`+"\n" {
		t.Fatalf("private printed %q", out)
	}
	ok(t, "private", "--data", dir, "thr_d4")
	f.Lock()
	defer f.Unlock()
	if len(f.Hosts) != 0 || !reflect.DeepEqual(f.MirrorSet, map[string]bool{"thr_a1": false, "thr_b2": true}) ||
		!reflect.DeepEqual(f.Privates, [][2]string{{"thr_c3", a}, {"thr_d4", ""}}) {
		t.Fatalf("hosts %q, mirror %v, privates %q", f.Hosts, f.MirrorSet, f.Privates)
	}
}

// inviteFor builds an invite for a key, as peer.Node.Invite does.
func inviteFor(t *testing.T, k string) string {
	t.Helper()
	b, err := json.Marshal(wire.Card{Key: k, Name: "x", Listen: []string{"tcp://127.0.0.1:9"}})
	if err != nil {
		t.Fatal(err)
	}
	return peer.InvitePrefix + key.B64.EncodeToString(b)
}

func TestInviteAddCmds(t *testing.T) {
	f, dir := serveFake(t)
	f.InviteV = inviteFor(t, f.PubKey.String())
	if out := ok(t, "invite", "--data", dir); out != f.InviteV+"\n" {
		t.Fatalf("invite printed %q", out)
	}
	remote := fakeKey(t, "R")
	inv := inviteFor(t, remote)
	f.AddKey = key.MustParsePublic(remote)
	if out := ok(t, "add", "--data", dir, inv); out != remote+"\n" {
		t.Fatalf("add printed %q", out)
	}
	f.Lock()
	f.AddErr = errors.New("peer: connect tcp://127.0.0.1:9: refused")
	f.Unlock()
	code, out, errs := awp(t, context.Background(), "add", "--data", dir, inv)
	wantErr := "awp add: could not connect to " + remote + ": peer: connect tcp://127.0.0.1:9: refused; the peer is recorded and will be dialed\n"
	if code != exitFail || out != "" || errs != wantErr {
		t.Fatalf("failed add: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	f.Lock()
	defer f.Unlock()
	if !reflect.DeepEqual(f.Added, []string{inv, inv}) {
		t.Fatalf("added = %q", f.Added)
	}
}

func TestNewCommandUsageErrors(t *testing.T) {
	_, dir := serveFake(t) // KEY arguments are looked up in it

	k := newKey(t)
	cases := []struct {
		args    []string
		message string
	}{
		{[]string{"grant", "--caps", "exec", "--ttl", "1h"}, "--to is required"},
		{[]string{"grant", "--to", k, "--ttl", "1h"}, "--caps is required"},
		{[]string{"grant", "--to", k, "--caps", " , ", "--ttl", "1h"}, "--caps is required"},
		{[]string{"grant", "--to", k, "--caps", "exec"}, "--ttl is required"},
		{[]string{"grant", "--to", k, "--caps", "exec", "--ttl", "-1h"}, "--ttl"},
		{[]string{"grant", "--to", k, "--caps", "exec", "--ttl", "1 hour"}, "invalid value"},
		{[]string{"grant", "--to", k, "--caps", "exec", "--ttl", "1h", "--on", "bob"}, "--on"},
		{[]string{"grants", "x"}, "unexpected argument"},
		{[]string{"revoke"}, "missing ID"},
		{[]string{"request", "--to", k}, "missing exec, fs:read or fs:write"},
		{[]string{"request", "shell", "--to", k}, "want exec, fs:read or fs:write"},
		{[]string{"request", "exec", "--cmd", "true"}, "--to is required"},
		{[]string{"request", "exec", "--to", "bob", "--cmd", "true"}, "--to"},
		{[]string{"request", "exec", "--to", k}, "exec needs --cmd"},
		{[]string{"request", "exec", "--to", k, "--cmd", "x", "--", "y"}, "not both"},
		{[]string{"request", "exec", "--to", k, "--"}, "no command after --"},
		{[]string{"request", "exec", "--to", k, "--cmd", "x", "--env", "NOEQ"}, "want K=V"},
		{[]string{"request", "exec", "--to", k, "--cmd", "x", "--path", "p"}, "--path does not go with exec"},
		{[]string{"request", "fs:read", "--to", k}, "fs:read needs --path"},
		{[]string{"request", "fs:read", "--to", k, "--path", "p", "--cmd", "x"}, "--cmd does not go with fs:read"},
		{[]string{"request", "fs:read", "--to", k, "--path", "p", "--", "x"}, "after -- are the command of exec"},
		{[]string{"request", "fs:read", "--to", k, "--path", "p", "--length", "-1"}, "must not be negative"},
		{[]string{"request", "fs:write", "--to", k, "--path", "p"}, "needs --content"},
		{[]string{"request", "fs:write", "--to", k, "--path", "p", "--content", "x", "--content-file", "f"}, "not both"},
		{[]string{"request", "fs:write", "--to", k, "--path", "p", "--content", "!!", "--base64"}, "not base64"},
		{[]string{"request", "exec", "--to", k, "--data-json", "[1]"}, "want a JSON object"},
		{[]string{"request", "exec", "--to", k, "--data-json", `{"cmd":"x"}`, "--cwd", "d"}, "exclude each other"},
		{[]string{"request", "exec", "--to", k, "--cmd", "x", "--timeout", "-1s"}, "--timeout"},
		{[]string{"request", "exec", "--to", k, "--cmd", "x", "--th", "nope"}, "--th"},
		{[]string{"presence", "x"}, "unexpected argument"},
		{[]string{"presence", "detail", "loud"}, "want full, peers or none"},
		{[]string{"mirror"}, "missing hosts, on or off"},
		{[]string{"mirror", "sideways"}, "want hosts, on or off"},
		{[]string{"mirror", "hosts", "bob"}, "KEY"},
		{[]string{"mirror", "hosts", "--clear", k}, "--clear takes no KEY"},
		{[]string{"mirror", "on"}, "missing TH"},
		{[]string{"mirror", "off", "abc"}, "TH"},
		{[]string{"private"}, "missing TH"},
		{[]string{"private", "--from", "bob", "thr_a"}, "--from"},
		{[]string{"invite", "x"}, "unexpected argument"},
		{[]string{"add"}, "missing INVITE"},
		{[]string{"add", "hello"}, "bad invite"},
		{[]string{"run", "--approve", "maybe"}, "--approve"},
		{[]string{"run", "--approval-timeout", "-1m"}, "--approval-timeout"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			args := append([]string{c.args[0], "--data", dir}, c.args[1:]...)
			code, out, errs := awp(t, context.Background(), args...)
			if code != exitUsage {
				t.Fatalf("exit %d, want 2; stderr %q", code, errs)
			}
			if out != "" {
				t.Fatalf("stdout %q", out)
			}
			first, rest, _ := strings.Cut(errs, "\n")
			if !strings.HasPrefix(first, "awp "+c.args[0]+": ") || !strings.Contains(first, c.message) {
				t.Fatalf("stderr first line %q, want %q", first, c.message)
			}
			if !strings.HasPrefix(rest, "usage: awp "+c.args[0]) {
				t.Fatalf("stderr %q lacks the usage line", errs)
			}
		})
	}
}

func TestRunConfig(t *testing.T) {
	k, err := key.NewPrivate()
	if err != nil {
		t.Fatal(err)
	}
	parse := func(args ...string) runOptions {
		t.Helper()
		fs := newFlags("run")
		var o runOptions
		o.flags(fs)
		if _, err := fs.parse(args); err != nil {
			t.Fatal(err)
		}
		if err := o.check(); err != nil {
			t.Fatal(err)
		}
		return o
	}
	log := slogDiscard()
	o := parse()
	cfg := o.config(k, "/d", "/w", []string{defaultListen}, log)
	// Presence and the exec sandbox: "" is the person's stored choice, else
	// the node's defaults (peers; auto).
	if _, deny := cfg.Approver.(peer.DenyAll); !deny || cfg.ApprovalTimeout != 0 || cfg.MirrorTo != nil || cfg.Presence != "" ||
		cfg.ExecSandbox != "" || cfg.ExecNoNetwork {
		t.Fatalf("default config: approver %T, timeout %v, mirror %q, presence %q, sandbox %q, no network %v",
			cfg.Approver, cfg.ApprovalTimeout, cfg.MirrorTo, cfg.Presence, cfg.ExecSandbox, cfg.ExecNoNetwork)
	}
	o = parse("--presence", "full", "--exec-sandbox", "none", "--exec-network=false")
	cfg = o.config(k, "/d", "/w", []string{defaultListen}, log)
	if cfg.Presence != "full" || cfg.ExecSandbox != "none" || !cfg.ExecNoNetwork {
		t.Fatalf("--presence full --exec-sandbox none --exec-network=false: %+v", cfg)
	}
	for _, bad := range [][]string{{"--exec-sandbox", "chroot"}, {"--presence", "all"}} {
		fs := newFlags("run")
		var o runOptions
		o.flags(fs)
		if _, err := fs.parse(bad); err != nil || o.check() == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	a, b := fakeKey(t, "A"), fakeKey(t, "B")
	o = parse("--approve", "ask", "--approval-timeout", "90s", "--mirror-to", a, "--mirror-to", b,
		"--presence", "peers", "--harness", "codex", "--model", "gpt")
	cfg = o.config(k, "/d", "/w", []string{defaultListen}, log)
	if cfg.Approver != nil || cfg.ApprovalTimeout != 90*time.Second || !reflect.DeepEqual(cfg.MirrorTo, []key.PublicKey{key.MustParsePublic(a), key.MustParsePublic(b)}) ||
		cfg.Presence != "peers" || cfg.Harness != "codex" || cfg.Model != "gpt" || cfg.Workspace != "/w" || cfg.DataDir != "/d" {
		t.Fatalf("config = %+v", cfg)
	}
}

func slogDiscard() *slog.Logger { return slog.New(slog.DiscardHandler) }
