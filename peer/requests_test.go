package peer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer/grant"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/profile"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

func execData(t *testing.T, cmd string, extra map[string]any) json.RawMessage {
	t.Helper()
	m := map[string]any{"cmd": cmd, "timeout": 10}
	for k, v := range extra {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return b
}

func request(t *testing.T, from, to *testNode, data json.RawMessage) (json.RawMessage, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return from.Request(ctx, to.Key(), profile.MimeExec, data, "")
}

func wantForbidden(t *testing.T, err error) {
	t.Helper()
	var we *wire.Err
	if !errors.As(err, &we) || we.Code != wire.CodeForbidden {
		t.Fatalf("got %v, want err forbidden", err)
	}
}

func TestExecNeedsGrant(t *testing.T) {
	ws := t.TempDir()
	exe := newTestNode(t, "exe", func(c *Config) { c.Workspace = ws; c.Approver = DenyAll{} })
	req := newTestNode(t, "req")
	connect(t, req, exe)
	marker := filepath.Join(ws, "marker")
	cmd := "touch " + marker + " && echo ran"

	// No grant.
	_, err := request(t, req, exe, execData(t, cmd, nil))
	wantForbidden(t, err)

	other, _ := key.NewPrivate()
	sign := func(iss key.PrivateKey, sub key.PublicKey, caps []string, exp time.Time, on ...key.PublicKey) json.RawMessage {
		g, err := grant.Sign(iss, sub, caps, exp, on, "")
		if err != nil {
			t.Fatal(err)
		}
		return g.Raw
	}
	future := time.Now().Add(time.Hour)
	good := sign(exe.cfg.Key, req.Key(), []string{"exec"}, future)
	tampered := []byte(strings.Replace(string(good), `"exec"`, `"fs:write"`, 1))
	introRaw := sign(other, req.Key(), []string{"introduce"}, future) // issued by an untrusted key
	cases := map[string]json.RawMessage{
		"expired":       sign(exe.cfg.Key, req.Key(), []string{"exec"}, time.Now().Add(-time.Minute)),
		"tampered":      tampered,
		"wrong on":      sign(exe.cfg.Key, req.Key(), []string{"exec"}, future, other.Public()),
		"other subject": sign(exe.cfg.Key, other.Public(), []string{"exec"}, future),
		"untrusted iss": sign(other, req.Key(), []string{"exec"}, future),
		"wrong cap":     sign(exe.cfg.Key, req.Key(), []string{"fs:read"}, future),
	}
	for name, g := range cases {
		_, err := request(t, req, exe, execData(t, cmd, map[string]any{"grant": g, "grants": []json.RawMessage{introRaw}}))
		if name == "tampered" {
			// A tampered grant fails to verify; the request is refused.
			wantForbidden(t, err)
		} else {
			wantForbidden(t, err)
		}
		if _, err := os.Stat(marker); !os.IsNotExist(err) {
			t.Fatalf("%s: the command ran (marker exists)", name)
		}
	}
	// Two-level delegation: exe trusts carol; carol gives dave introduce;
	// dave (introduced) gives eve introduce; eve grants req exec. Refused.
	carol, _ := key.NewPrivate()
	dave, _ := key.NewPrivate()
	eve, _ := key.NewPrivate()
	if err := exe.Trust(carol.Public(), true); err != nil {
		t.Fatal(err)
	}
	chain := []json.RawMessage{
		sign(carol, dave.Public(), []string{"introduce"}, future),
		sign(dave, eve.Public(), []string{"introduce"}, future),
	}
	_, err = request(t, req, exe, execData(t, cmd, map[string]any{"grant": sign(eve, req.Key(), []string{"exec"}, future), "grants": chain}))
	wantForbidden(t, err)
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatal("two-level delegation ran the command")
	}
	// One level is honored: dave (introduced by trusted carol) grants exec.
	out, err := request(t, req, exe, execData(t, cmd, map[string]any{"grant": sign(dave, req.Key(), []string{"exec"}, future, exe.Key()), "grants": chain[:1]}))
	if err != nil {
		t.Fatalf("one-level delegation: %v", err)
	}
	var res struct {
		Exit   int    `json:"exit"`
		Stdout string `json:"stdout"`
	}
	if json.Unmarshal(out, &res) != nil || res.Exit != 0 || res.Stdout != "ran\n" {
		t.Fatalf("result %s", out)
	}
	// A good grant sent earlier in a msg is stored and attached automatically.
	os.Remove(marker)
	part, _ := wire.DataPart(grant.Mime, good)
	if _, err := exe.Send(context.Background(), SendRequest{To: req.Key(), Parts: []json.RawMessage{part}}); err != nil {
		t.Fatal(err)
	}
	testsync.Eventually(t, "req stored the grant", func() bool {
		gs, _ := req.Grants()
		return len(gs) == 1
	})
	if _, err := request(t, req, exe, execData(t, cmd, nil)); err != nil {
		t.Fatalf("with stored grant: %v", err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("granted command did not run")
	}
}

func TestApprovalFlow(t *testing.T) {
	ws := t.TempDir()
	exe := newTestNode(t, "exe", func(c *Config) { c.Workspace = ws })
	req := newTestNode(t, "req")
	connect(t, req, exe)
	ev, cancel := exe.Subscribe(64)
	defer cancel()
	decide := func(d Decision) {
		for e := range ev {
			if e.Type == EventApproval {
				if e.Approval.Caps[0] != "exec" || e.Approval.From != req.Key() {
					t.Errorf("approval %+v", e.Approval)
				}
				if e.PeerName != "req" {
					t.Errorf("the approval event names its asker %q, want req", e.PeerName)
				}
				if err := exe.Decide(e.Approval.ID, d); err != nil {
					t.Error(err)
				}
				return
			}
		}
	}
	// Deny.
	go decide(Decision{Allow: false})
	_, err := request(t, req, exe, execData(t, "echo no", nil))
	wantForbidden(t, err)
	// Allow once.
	go decide(Decision{Allow: true})
	if _, err := request(t, req, exe, execData(t, "echo once", nil)); err != nil {
		t.Fatal(err)
	}
	// Allow for an hour: a grant is issued, and the next request needs no approval.
	go decide(Decision{Allow: true, For: time.Hour})
	if _, err := request(t, req, exe, execData(t, "echo hour", nil)); err != nil {
		t.Fatal(err)
	}
	if p := exe.Pending(); len(p) != 0 {
		t.Fatalf("pending left: %+v", p)
	}
	testsync.Eventually(t, "requester got the grant", func() bool {
		gs, _ := req.Grants()
		return len(gs) == 1
	})
	if _, err := request(t, req, exe, execData(t, "echo again", nil)); err != nil {
		t.Fatalf("with issued grant: %v", err)
	}
}

// grantedPair connects req to exe, which denies what no grant covers, and
// returns a grant from exe for req's exec requests.
func grantedPair(t *testing.T) (exe, req *testNode, g *grant.Grant) {
	t.Helper()
	ws := t.TempDir()
	exe = newTestNode(t, "exe", func(c *Config) { c.Workspace = ws; c.Approver = DenyAll{} })
	req = newTestNode(t, "req")
	connect(t, req, exe)
	g, err := grant.Sign(exe.cfg.Key, req.Key(), []string{"exec"}, time.Now().Add(time.Hour), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	return exe, req, g
}

func TestExecLargeOutputAsBlob(t *testing.T) {
	exe, req, g := grantedPair(t)
	// 300,000 bytes of output: 64 KiB inline, the rest in a blob named stdout.
	out, err := request(t, req, exe, execData(t, "yes 0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ | head -c 300000", map[string]any{"grant": json.RawMessage(g.Raw)}))
	if err != nil {
		t.Fatal(err)
	}
	var res profile.ExecResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	if !res.StdoutTruncated || len(res.Stdout) != 65536 || res.Exit != 0 {
		t.Fatalf("truncated %v, inline %d bytes, exit %d", res.StdoutTruncated, len(res.Stdout), res.Exit)
	}
	testsync.Eventually(t, "stdout blob complete", func() bool {
		bs, _ := req.Blobs()
		for _, b := range bs {
			if b.Name == "stdout" && b.Complete && b.Size == 300000 && b.From == exe.Key() {
				return true
			}
		}
		return false
	})
}

// A peer cannot make requests wait for the person without bound: past
// MaxPendingPerPeer the node refuses them at once, unseen, and the person's
// list holds only the first ones.
func TestPendingBounded(t *testing.T) {
	ws := t.TempDir()
	exe := newTestNode(t, "exe", func(c *Config) { c.Workspace = ws; c.ApprovalTimeout = time.Minute })
	req := newTestNode(t, "req")
	connect(t, req, exe)
	// A peer the person knows (a stranger has a smaller budget:
	// TestApprovalSlotsStrangers).
	if err := exe.Trust(req.Key(), true); err != nil {
		t.Fatal(err)
	}
	const extra = 3
	type result struct{ err error }
	results := make(chan result, MaxPendingPerPeer+extra)
	for i := range MaxPendingPerPeer + extra {
		go func() {
			_, err := request(t, req, exe, execData(t, fmt.Sprintf("echo %d", i), nil))
			results <- result{err}
		}()
	}
	// The extra ones come back refused while the others wait.
	for range extra {
		r := <-results
		var we *wire.Err
		if !errors.As(r.err, &we) || we.Code != wire.CodeForbidden || !strings.Contains(we.Msg, "already waiting for approval") {
			t.Fatalf("request over the bound: %v, want forbidden, already waiting for approval", r.err)
		}
	}
	testsync.Eventually(t, "the first requests pending", func() bool { return len(exe.Pending()) == MaxPendingPerPeer })
	select {
	case r := <-results:
		t.Fatalf("a request within the bound was answered without a decision: %v", r.err)
	case <-time.After(200 * time.Millisecond):
	}
	// Decided, they make room again.
	for _, p := range exe.Pending() {
		if err := exe.Decide(p.ID, Decision{Allow: false}); err != nil {
			t.Fatal(err)
		}
	}
	for range MaxPendingPerPeer {
		wantForbidden(t, (<-results).err)
	}
	if p := exe.Pending(); len(p) != 0 {
		t.Fatalf("pending left: %d", len(p))
	}
	ev, cancel := exe.Subscribe(8)
	defer cancel()
	go func() {
		for e := range ev {
			if e.Type == EventApproval {
				_ = exe.Decide(e.Approval.ID, Decision{Allow: true})
				return
			}
		}
	}()
	if _, err := request(t, req, exe, execData(t, "echo room", nil)); err != nil {
		t.Fatalf("after the others were decided: %v", err)
	}
}

// A granted request over the runner's limits is answered with a result
// whose "error" says so (docs/protocol/profile.md: a granted request that fails still
// gets a result), not with err rate_limited, which would tell the sender
// its stored and acked line was not stored.
func TestBusyIsAResult(t *testing.T) {
	exe, req, g := grantedPair(t)
	n := profile.DefaultMaxPerPeer + 2
	type result struct {
		out json.RawMessage
		err error
	}
	results := make(chan result, n)
	for range n {
		go func() {
			out, err := request(t, req, exe, execData(t, "sleep 2", map[string]any{"grant": json.RawMessage(g.Raw)}))
			results <- result{out, err}
		}()
	}
	busy, ran := 0, 0
	for range n {
		r := <-results
		if r.err != nil {
			t.Fatalf("request: %v, want a result", r.err)
		}
		var res profile.ExecResult
		if err := json.Unmarshal(r.out, &res); err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.Contains(res.Error, "busy") && strings.Contains(res.Error, "too many requests running"):
			busy++
		case res.Error == "" && res.Exit == 0:
			ran++
		default:
			t.Errorf("result %s", r.out)
		}
	}
	if busy != 2 || ran != profile.DefaultMaxPerPeer {
		t.Errorf("%d busy, %d ran; want 2 and %d", busy, ran, profile.DefaultMaxPerPeer)
	}
}

// Grants nobody here can use are kept only up to MaxLooseGrants; grants
// from this node or from a key it trusts, and grants for this node from a
// peer it knows, are always kept.
func TestLooseGrantsBounded(t *testing.T) {
	n := newTestNode(t, "n")
	now := time.Now()
	exp := now.Add(time.Hour)
	newKey := func() key.PrivateKey {
		k, err := key.NewPrivate()
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	sign := func(iss key.PrivateKey, sub key.PublicKey) json.RawMessage {
		g, err := grant.Sign(iss, sub, []string{"exec"}, exp, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		return g.Raw
	}
	stranger, other := newKey(), newKey().Public()
	count := func() (c int) {
		_ = n.db.View(func(tx *store.Tx) error { c = tx.GrantCount(); return nil })
		return c
	}
	// A grant whose signature does not verify is not stored, room or not.
	bad := []byte(strings.Replace(string(sign(stranger, other)), `"exec"`, `"fs:write"`, 1))
	if g, err := grant.Parse(bad); err != nil || g.Verify() == nil {
		t.Fatalf("the tampered grant should parse (%v) and fail to verify", err)
	}
	_ = n.db.Update(func(tx *store.Tx) error {
		room := newGrantRoom()
		n.storeGrantRaw(tx, bad, now, room)
		n.storeGrantRaw(tx, []byte(strings.Replace(string(sign(stranger, n.Key())), `"exec"`, `"fs:write"`, 1)), now, room)
		return nil
	})
	if c := count(); c != 0 {
		t.Fatalf("%d grants stored with bad signatures", c)
	}
	// Two messages' worth of loose grants: the second passes the bound.
	for _, batch := range []int{MaxLooseGrants - 10, 30} {
		err := n.db.Update(func(tx *store.Tx) error {
			for range batch {
				// One grant per line, as in a flood of msgs (a line
				// stores at most MaxGrantsPerLine).
				n.storeGrantRaw(tx, sign(stranger, other), now, newGrantRoom())
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if c := count(); c != MaxLooseGrants {
		t.Fatalf("%d grants stored, want %d", c, MaxLooseGrants)
	}
	trusted, known := newKey(), newKey()
	if err := n.Trust(trusted.Public(), true); err != nil {
		t.Fatal(err)
	}
	err := n.db.Update(func(tx *store.Tx) error {
		if err := tx.PutPeer(&store.Peer{Key: known.Public().String(), Dialed: "tcp://127.0.0.1:1", FirstSeen: now, LastSeen: now}); err != nil {
			return err
		}
		room := newGrantRoom()
		n.storeGrantRaw(tx, sign(known, n.Key()), now, room)    // for this node, from a peer it dialed
		n.storeGrantRaw(tx, sign(n.cfg.Key, other), now, room)  // from it
		n.storeGrantRaw(tx, sign(trusted, other), now, room)    // from a trusted key
		n.storeGrantRaw(tx, sign(stranger, other), now, room)   // loose: no room
		n.storeGrantRaw(tx, sign(stranger, n.Key()), now, room) // for this node from a stranger: loose too
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if c := count(); c != MaxLooseGrants+3 {
		t.Fatalf("%d grants stored, want %d (the three usable ones kept, the loose ones not)", c, MaxLooseGrants+3)
	}
}
