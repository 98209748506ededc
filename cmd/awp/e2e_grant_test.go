package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/localapi/localapitest"
)

// TestEndToEndGrants drives two real `awp run` processes: alice adds bob
// from his invite, sees his presence, is refused exec without a grant,
// gets one from bob and runs exec, fs:write and fs:read with it, and is
// refused again once bob revokes it.
func TestEndToEndGrants(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs two peers")
	}
	dirA, dirB := localapitest.ShortTempDir(t), localapitest.ShortTempDir(t)
	ws := t.TempDir() // bob's workspace
	a := startPeer(t, "alice", dirA, "--workspace", t.TempDir())
	b := startPeer(t, "bob", dirB, "--workspace", ws, "--harness", "e2e-harness", "--model", "e2e-model")

	// Invites: bob's names his key and bound address; alice adds it.
	inv := strings.TrimSpace(cli(t, "invite", "--data", dirB))
	card, err := peer.ParseInvite(inv)
	if err != nil {
		t.Fatalf("invite %q: %v", inv, err)
	}
	if card.Key != b.key || card.Name != "bob" || !slices.Contains(card.Listen, b.listen[0]) {
		t.Fatalf("bob's invite card = %+v, want key %s and listen %s", card, b.key, b.listen[0])
	}
	if got := strings.TrimSpace(cli(t, "add", "--data", dirA, inv)); got != b.key {
		t.Fatalf("add printed %q, want bob's key %s", got, b.key)
	}
	peersA := decodeJSON[[]peer.PeerInfo](t, cli(t, "peers", "--data", dirA, "--json"))
	if len(peersA) != 1 || peersA[0].Key.String() != b.key || !peersA[0].Up || peersA[0].Name != "bob" {
		t.Fatalf("alice's peers after add = %+v", peersA)
	}
	// A malformed invite is bad usage.
	if _, code, errs := cliCode(t, "add", "--data", dirA, "awp:%%%"); code != 2 || !strings.Contains(errs, "bad invite") {
		t.Fatalf("add of a malformed invite: exit %d, stderr %q", code, errs)
	}

	// Presence: bob's document (with --harness and --model) reaches alice.
	var bobDoc map[string]any
	deadline := time.Now().Add(20 * time.Second)
	for bobDoc == nil {
		type entry struct {
			Doc      json.RawMessage `json:"doc"`
			Hops     int             `json:"hops"`
			Received string          `json:"received"`
		}
		out := cli(t, "presence", "--data", dirA, "--json")
		hasAll(t, "presence", out, "doc", "hops", "received")
		for _, e := range decodeJSON[[]entry](t, out) {
			d := decodeJSON[map[string]any](t, string(e.Doc))
			if d["origin"] == b.key && e.Hops == 1 && e.Received != "" {
				bobDoc = d
			}
		}
		if bobDoc == nil {
			if time.Now().After(deadline) {
				t.Fatalf("bob's presence never reached alice; last: %s", out)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	if bobDoc["name"] != "bob" || bobDoc["harness"] != "e2e-harness" || bobDoc["model"] != "e2e-model" {
		t.Fatalf("bob's presence doc = %v", bobDoc)
	}
	// peers by default: no threads until the person chooses full.
	if got := strings.TrimSpace(cli(t, "presence", "--data", dirB, "detail")); got != "peers" {
		t.Fatalf("bob's presence detail = %q", got)
	}
	if _, ok := bobDoc["threads"]; ok {
		t.Fatalf("bob's default presence carries threads: %v", bobDoc)
	}

	// No grant: bob (--approve deny, the default) refuses, nothing runs.
	marker := filepath.Join(ws, "marker")
	out, code, errs := cliCode(t, "request", "exec", "--data", dirA, "--to", b.key, "--timeout", "1m", "--", "touch", "marker")
	if code != 1 || out != "" || !strings.HasPrefix(errs, "awp request: forbidden: ") {
		t.Fatalf("exec without a grant: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("exec without a grant created the marker: %v", err)
	}

	// Bob grants alice exec and fs; the grant object names both.
	gOut := cli(t, "grant", "--data", dirB, "--to", a.key, "--caps", "exec,fs:read,fs:write", "--ttl", "1h", "--note", "e2e")
	g := decodeJSON[struct {
		Iss  string   `json:"iss"`
		Sub  string   `json:"sub"`
		Caps []string `json:"caps"`
		Sig  string   `json:"sig"`
	}](t, gOut)
	if g.Iss != b.key || g.Sub != a.key || !slices.Equal(g.Caps, []string{"exec", "fs:read", "fs:write"}) || g.Sig == "" {
		t.Fatalf("grant = %s", gOut)
	}
	gFile := filepath.Join(t.TempDir(), "grant.json")
	if err := os.WriteFile(gFile, []byte(gOut), 0o600); err != nil {
		t.Fatal(err)
	}

	out = cli(t, "request", "exec", "--data", dirA, "--to", b.key, "--grant", gFile, "--", "touch", "marker")
	if !strings.Contains(out, `"exit":0`) {
		t.Fatalf("exec with the grant printed %q, want \"exit\":0", out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("exec with the grant did not create the marker: %v", err)
	}
	res := decodeJSON[struct {
		Exit   int    `json:"exit"`
		Stdout string `json:"stdout"`
	}](t, cli(t, "request", "exec", "--data", dirA, "--to", b.key, "--env", "WHO=alice", "--cmd", `echo "hello $WHO" && pwd`))
	if res.Exit != 0 || !strings.HasPrefix(res.Stdout, "hello alice\n") {
		t.Fatalf("exec --cmd result = %+v", res)
	}

	// fs:write then fs:read in bob's workspace.
	w := decodeJSON[struct {
		Path    string `json:"path"`
		Written int64  `json:"written"`
	}](t, cli(t, "request", "fs:write", "--data", dirA, "--to", b.key, "--path", "sub/note.txt", "--content", "from alice", "--mkdir"))
	if w.Written != int64(len("from alice")) {
		t.Fatalf("fs:write result = %+v", w)
	}
	if got, err := os.ReadFile(filepath.Join(ws, "sub", "note.txt")); err != nil || string(got) != "from alice" {
		t.Fatalf("written file = %q, %v", got, err)
	}
	r := decodeJSON[struct {
		Content  string `json:"content"`
		Encoding string `json:"encoding"`
		EOF      bool   `json:"eof"`
	}](t, cli(t, "request", "fs:read", "--data", dirA, "--to", b.key, "--path", "sub/note.txt"))
	if r.Content != "from alice" || r.Encoding != "utf-8" || !r.EOF {
		t.Fatalf("fs:read result = %+v", r)
	}

	// Bob lists the grant as issued and revokes it; alice is refused again,
	// even with the grant attached.
	var id string
	for _, gi := range decodeJSON[[]peer.GrantInfo](t, cli(t, "grants", "--data", dirB, "--json")) {
		if gi.Issued && !gi.Revoked && strings.Contains(string(gi.Grant), a.key) {
			id = gi.ID
		}
	}
	if id == "" {
		t.Fatal("bob's grants lack the issued grant")
	}
	cli(t, "revoke", "--data", dirB, id)
	for _, gi := range decodeJSON[[]peer.GrantInfo](t, cli(t, "grants", "--data", dirB, "--json")) {
		if gi.ID == id && !gi.Revoked {
			t.Fatalf("grant %s not revoked: %+v", id, gi)
		}
	}
	marker2 := filepath.Join(ws, "marker2")
	_, code, errs = cliCode(t, "request", "exec", "--data", dirA, "--to", b.key, "--grant", gFile, "--", "touch", "marker2")
	if code != 1 || !strings.Contains(errs, "forbidden") {
		t.Fatalf("exec after revoke: exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(marker2); !os.IsNotExist(err) {
		t.Fatalf("exec after revoke created the marker: %v", err)
	}
}

// TestEndToEndApproveAsk runs bob with --approve ask: alice's request waits
// in bob's `awp pending` until `awp decide` allows it.
func TestEndToEndApproveAsk(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs two peers")
	}
	dirA, dirB := localapitest.ShortTempDir(t), localapitest.ShortTempDir(t)
	ws := t.TempDir()
	a := startPeer(t, "alice", dirA, "--workspace", t.TempDir())
	b := startPeer(t, "bob", dirB, "--workspace", ws, "--approve", "ask", "--approval-timeout", "1m")
	if got := strings.TrimSpace(cli(t, "connect", "--data", dirA, b.listen[0])); got != b.key {
		t.Fatalf("connect printed %q", got)
	}
	type result struct {
		out, errs string
		code      int
	}
	done := make(chan result, 1)
	go func() {
		out, code, errs := cliCode(t, "request", "exec", "--data", dirA, "--to", b.key, "--cmd", "echo allowed")
		done <- result{out, errs, code}
	}()
	var pend []peer.ApprovalRequest
	for deadline := time.Now().Add(20 * time.Second); len(pend) == 0; {
		pend = decodeJSON[[]peer.ApprovalRequest](t, cli(t, "pending", "--data", dirB, "--json"))
		if len(pend) == 0 {
			if time.Now().After(deadline) {
				t.Fatal("the request never showed in bob's pending list")
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	if pend[0].From.String() != a.key || !slices.Equal(pend[0].Caps, []string{"exec"}) {
		t.Fatalf("pending = %+v", pend)
	}
	// The table says what the request would run.
	table := cli(t, "pending", "--data", dirB)
	if !strings.Contains(table, "REQUEST") || !strings.Contains(table, "$ echo allowed") {
		t.Errorf("awp pending does not show the command:\n%s", table)
	}
	// The asker as the thread list names a peer, the caps as the grants
	// table writes them (not Go's [exec]).
	row := lineWith(table, pend[0].ID)
	if f := strings.Fields(row); pend[0].FromName == "" || !strings.Contains(row, " "+peerLabel(pend[0].From, pend[0].FromName)+" ") || !slices.Contains(f, "exec") {
		t.Errorf("awp pending row %q: want %s and exec", row, peerLabel(pend[0].From, pend[0].FromName))
	}
	cli(t, "decide", "--data", dirB, pend[0].ID, "allow")
	select {
	case r := <-done:
		if r.code != 0 || !strings.Contains(r.out, `"stdout":"allowed\n"`) {
			t.Fatalf("allowed request: exit %d, stdout %q, stderr %q", r.code, r.out, r.errs)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the allowed request did not finish")
	}
}
