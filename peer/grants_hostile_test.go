package peer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer/grant"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/profile"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// Hostile peers against permission (issue 18 items 1, 2, 4, 5, 9, 14):
// raw connections that speak the wire, as hostile_test.go does.

// sendParts sends a msg with data parts (mime, data) in th and returns its id.
func (p *rawPeer) sendParts(th string, parts ...json.RawMessage) string {
	p.t.Helper()
	id := p.ids.New()
	p.line(p.obj(wire.TypeMsg, map[string]any{"id": id, "th": th, "parts": parts}))
	return id
}

// dataPart is wire.DataPart for tests.
func dataPart(t testing.TB, mime string, data any) json.RawMessage {
	t.Helper()
	b, ok := data.(json.RawMessage)
	if !ok {
		var err error
		if b, err = json.Marshal(data); err != nil {
			t.Fatal(err)
		}
	}
	part, err := wire.DataPart(mime, b)
	if err != nil {
		t.Fatal(err)
	}
	return part
}

// reply is the node's answer to one of the raw peer's lines: an err line,
// or the first data part of a msg whose re is the line.
type reply struct {
	err  *wire.Err
	mime string
	data json.RawMessage
}

// awaitReply reads until the node answers line id (err re id, or msg re
// id); everything else is skipped.
func (p *rawPeer) awaitReply(id string) reply {
	p.t.Helper()
	for {
		switch f := p.read().(type) {
		case *wire.Err:
			if f.Re == id {
				return reply{err: f}
			}
		case *wire.Msg:
			if f.Re == id {
				for _, part := range f.DecodeParts() {
					if part.K == wire.PartData {
						return reply{mime: part.Mime, data: part.Data}
					}
				}
			}
		}
	}
}

// awaitErr reads until an err line, skipping anything else, and checks
// its code.
func (p *rawPeer) awaitErr(code string) *wire.Err {
	p.t.Helper()
	for {
		if e, ok := p.read().(*wire.Err); ok {
			if e.Code != code {
				p.t.Fatalf("node sent err %s (%s), want %s", e.Code, e.Msg, code)
			}
			return e
		}
	}
}

func (r reply) String() string {
	if r.err != nil {
		return "err " + r.err.Code + ": " + r.err.Msg
	}
	return r.mime + " " + string(r.data)
}

// resultError is the "error" of a result reply ("" if none).
func (r reply) resultError() string {
	var v struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(r.data, &v)
	return v.Error
}

// reorder writes a JSON object with its members in reverse order, white
// space around everything, and every character of "exec" and of every
// member name escaped: the same grant, another encoding (docs/protocol/grants.md).
func reorder(t testing.TB, raw []byte) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(keys)))
	var b bytes.Buffer
	b.WriteString("{ \n")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(" ,\n\t")
		}
		b.WriteByte('"')
		for _, r := range k {
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		b.WriteString(`" :  `)
		b.Write(bytes.ReplaceAll(m[k], []byte(`"exec"`), []byte(`"\u0065\u0078\u0065\u0063"`)))
	}
	b.WriteString("\r\n}")
	return b.Bytes()
}

// grantedExec starts node "exe" on a workspace of its own (mod may set
// more of its Config), dials it as a raw peer and signs that peer an exec
// grant for an hour: a hostile peer holding a grant. marker is a path in
// the workspace for its commands to touch.
func grantedExec(t *testing.T, mod func(*Config)) (exe *testNode, p *rawPeer, g *grant.Grant, marker string) {
	t.Helper()
	ws := t.TempDir()
	exe = newTestNode(t, "exe", func(c *Config) { c.Workspace = ws; mod(c) })
	p = dialRaw(t, exe)
	p.handshake()
	g, err := exe.signGrant(p.priv.Public(), []string{"exec"}, time.Hour, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	return exe, p, g, filepath.Join(ws, "marker")
}

// Item 1: a revoked grant stays revoked in every encoding, is not stored
// again as new, and a signature written another way is no grant.
func TestHostileRevokedGrantReencoded(t *testing.T) {
	exe, p, g, marker := grantedExec(t, func(c *Config) { c.Approver = DenyAll{} })
	exec := func(attach json.RawMessage) reply {
		t.Helper()
		data := json.RawMessage(`{"cmd":"touch ` + marker + ` && echo ran","grant":` + string(attach) + `}`)
		return p.awaitReply(p.sendParts("thr_revoke", dataPart(t, profile.MimeExec, data)))
	}
	variants := map[string][]byte{
		"as issued":   g.Raw,
		"re-encoded":  reorder(t, g.Raw),
		"unicode esc": bytes.ReplaceAll(g.Raw, []byte(`"caps"`), []byte(`"\u0063aps"`)),
		"white space": bytes.Replace(g.Raw, []byte(`"iss":"`), []byte(`"iss" : "`), 1),
	}
	// Before the revocation the re-encoded grant is the grant: honored.
	if r := exec(variants["re-encoded"]); r.err != nil || r.resultError() != "" {
		t.Fatalf("re-encoded grant before revocation: %v", r)
	}
	if err := os.Remove(marker); err != nil {
		t.Fatalf("the granted command did not run: %v", err)
	}
	if err := exe.RevokeGrant(g.ID()); err != nil {
		t.Fatal(err)
	}
	for name, v := range variants {
		r := exec(v)
		if r.err == nil || r.err.Code != wire.CodeForbidden {
			t.Errorf("%s: revoked grant answered %v, want err forbidden", name, r)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%s: a revoked grant ran the command", name)
		}
		// Sent as a grant part, it is not stored as a new grant.
		id := p.sendParts("thr_revoke", dataPart(t, grant.Mime, json.RawMessage(v)))
		p.expectAck("thr_revoke", id, "")
	}
	// The signature written with other unused low bits: not a grant (a
	// malformed attached grant is a bad request), and not stored.
	lowBits := bytes.Replace(g.Raw, []byte(g.Sig), []byte(g.Sig[:85]+flipLowChar(g.Sig[85])), 1)
	if _, err := grant.Parse(lowBits); err == nil {
		t.Fatal("a signature with other low bits parsed")
	}
	if r := exec(lowBits); r.err == nil || r.err.Code != wire.CodeBadRequest {
		t.Errorf("grant with a non-strict signature: %v, want err bad_request", r)
	}
	id := p.sendParts("thr_revoke", dataPart(t, grant.Mime, json.RawMessage(lowBits)))
	p.expectAck("thr_revoke", id, "")
	gs, err := exe.Grants()
	if err != nil || len(gs) != 1 || !gs[0].Revoked || gs[0].ID != g.ID() {
		t.Fatalf("grants after the copies: %+v (%v), want the one revoked grant", gs, err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran")
	}
	checkNodeServes(t, exe)
}

func flipLowChar(c byte) string {
	const alpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	return string(alpha[strings.IndexByte(alpha, c)^1])
}

// Item 1: records an earlier version stored under the hash of the bytes a
// grant arrived in move to the grant's identity when the node opens, and
// a revoked grant with an unrevoked re-encoded copy (the bypass) comes out
// as one revoked grant; nothing is lost.
func TestGrantsMigrateOnOpen(t *testing.T) {
	ws := t.TempDir()
	exe := newTestNode(t, "exe", func(c *Config) { c.Workspace = ws; c.Approver = DenyAll{} })
	req := newTestNode(t, "req")
	other, _ := key.NewPrivate()
	g, err := grant.Sign(exe.cfg.Key, req.Key(), []string{"exec"}, time.Now().Add(time.Hour), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	kept, _ := grant.Sign(other, req.Key(), []string{"fs:read"}, time.Now().Add(time.Hour), nil, "kept")
	exe.Close()
	// How an earlier version keyed a grant: the hash of the bytes it came in.
	oldID := func(raw []byte) string {
		h := sha256.Sum256(raw)
		return "g_" + hex.EncodeToString(h[:12])
	}
	copyRaw := reorder(t, g.Raw)
	keptRaw := bytes.Replace(kept.Raw, []byte(kept.Sig), []byte(kept.Sig[:85]+flipLowChar(kept.Sig[85])), 1)
	db, err := store.Open(exe.cfg.DataDir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	recs := []*store.GrantRec{
		{ID: oldID(g.Raw), Raw: g.Raw, Exp: g.Exp, Issued: true, Revoked: true, Stored: now.Add(-time.Hour)},
		{ID: oldID(copyRaw), Raw: copyRaw, Exp: g.Exp, Issued: true, Stored: now},
		{ID: oldID(keptRaw), Raw: keptRaw, Exp: kept.Exp, Stored: now},
		{ID: "g_notagrant", Raw: json.RawMessage(`{"x":1}`), Exp: now.Add(time.Hour), Stored: now},
	}
	err = db.Update(func(tx *store.Tx) error {
		for _, r := range recs {
			if err := tx.PutGrant(r); err != nil {
				return err
			}
		}
		return nil
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}

	exe.start()
	gs, err := exe.Grants()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]GrantInfo{}
	for _, gi := range gs {
		byID[gi.ID] = gi
	}
	if len(gs) != 3 {
		t.Fatalf("%d records after the migration, want 3: %+v", len(gs), gs)
	}
	if gi, ok := byID[g.ID()]; !ok || !gi.Revoked || !gi.Issued {
		t.Fatalf("the revoked grant and its copy: %+v", gi)
	}
	if gi, ok := byID[kept.ID()]; !ok || gi.Revoked {
		t.Fatalf("the grant with a loosely written signature: %+v (want it under its strict id %s)", gs, kept.ID())
	} else if !bytes.Equal(gi.Grant, kept.Canonical()) {
		t.Fatalf("repaired grant %s, want %s", gi.Grant, kept.Canonical())
	}
	if _, ok := byID["g_notagrant"]; !ok {
		t.Fatal("a record that is no grant was dropped")
	}
	// The revoked grant is refused in both encodings.
	connect(t, req, exe)
	for _, raw := range [][]byte{g.Raw, copyRaw} {
		_, err := request(t, req, exe, execData(t, "true", map[string]any{"grant": json.RawMessage(raw)}))
		wantForbidden(t, err)
	}
	// Opening again changes nothing.
	exe.restart()
	if gs2, _ := exe.Grants(); len(gs2) != 3 {
		t.Fatalf("second open: %d records", len(gs2))
	}
}

// Item 2: the on list of a grant request is shown as it is; an entry that
// is not a key makes the request invalid (grant-denied, never shown); an
// empty list is not an absent one; the grant issued is what was shown.
func TestHostileGrantRequestOn(t *testing.T) {
	ap := &recordingApprover{d: Decision{Allow: true}}
	exe := newTestNode(t, "exe", func(c *Config) { c.Approver = ap })
	p := dialRaw(t, exe)
	p.handshake()
	if err := exe.Trust(p.priv.Public(), true); err != nil { // a known peer: no slot limits in the way
		t.Fatal(err)
	}
	other, _ := key.NewPrivate()
	ok := other.Public().String()
	nonCanonical := ok[:len(ok)-1] + flipLowChar(ok[len(ok)-1])
	ask := func(req map[string]any) reply {
		t.Helper()
		return p.awaitReply(p.sendParts("thr_gr", dataPart(t, MimeGrantRequest, req)))
	}
	for name, on := range map[string]any{
		"not a key":          []string{"not-a-key"},
		"one good, one bad":  []string{ok, "ed25519:short"},
		"non-canonical text": []string{nonCanonical},
		"null entry":         []any{ok, nil},
		"a string":           ok,
		"null":               nil,
	} {
		req := map[string]any{"caps": []string{"exec"}, "on": on, "ttl": 3600}
		r := ask(req)
		if r.mime != MimeGrantDenied {
			t.Errorf("on %s: answered %v, want grant-denied", name, r)
		}
	}
	for name, req := range map[string]map[string]any{
		"ttl too long":     {"caps": []string{"exec"}, "ttl": int64(MaxGrantTTL/time.Second) + 1},
		"ttl negative":     {"caps": []string{"exec"}, "ttl": -1},
		"ttl not integer":  {"caps": []string{"exec"}, "ttl": 1.5},
		"sub not a key":    {"caps": []string{"exec"}, "sub": "bob"},
		"no caps":          {"caps": []string{}},
		"empty cap":        {"caps": []string{""}},
		"reason not text":  {"caps": []string{"exec"}, "reason": 7},
		"on case variants": {"caps": []string{"exec"}, "On": []string{ok}, "on": []string{"x"}},
	} {
		if r := ask(req); r.mime != MimeGrantDenied {
			t.Errorf("%s: answered %v, want grant-denied", name, r)
		}
	}
	if n := ap.count(); n != 0 {
		t.Fatalf("%d invalid grant requests were shown for approval: %+v", n, ap.all())
	}
	// Valid ones: shown as they are, and granted as shown.
	cases := []struct {
		name string
		on   any
		want []string // nil: no on
	}{
		{"empty on", []string{}, []string{}},
		{"no on", nil, nil},
		{"two keys", []string{ok, exe.Key().String()}, []string{ok, exe.Key().String()}},
	}
	for i, c := range cases {
		req := map[string]any{"caps": []string{"exec"}, "ttl": 600, "reason": c.name}
		if c.on != nil {
			req["on"] = c.on
		}
		r := ask(req)
		if r.mime != grant.Mime {
			t.Fatalf("%s: answered %v, want a grant", c.name, r)
		}
		g, err := grant.Parse(r.data)
		if err != nil || g.Verify() != nil || g.Iss != exe.Key() || g.Sub != p.priv.Public() {
			t.Fatalf("%s: grant %s (%v)", c.name, r.data, err)
		}
		var gotOn []string
		if g.On != nil {
			gotOn = []string{}
			for _, k := range g.On {
				gotOn = append(gotOn, k.String())
			}
		}
		if (gotOn == nil) != (c.want == nil) || strings.Join(gotOn, ",") != strings.Join(c.want, ",") {
			t.Errorf("%s: grant on %q, want %q", c.name, gotOn, c.want)
		}
		if d := time.Until(g.Exp); d > 600*time.Second || d < 500*time.Second {
			t.Errorf("%s: grant valid for %v, want the 600 s asked", c.name, d)
		}
		shown := ap.all()[i]
		if (shown.On == nil) != (c.want == nil) || keysText(shown.On) != strings.Join(c.want, ",") || shown.TTL != 600 {
			t.Errorf("%s: shown on %q ttl %d", c.name, shown.On, shown.TTL)
		}
		js, _ := json.Marshal(shown)
		if c.want != nil && !bytes.Contains(js, []byte(`"on":[`)) || c.want == nil && bytes.Contains(js, []byte(`"on"`)) {
			t.Errorf("%s: pending JSON %s", c.name, js)
		}
	}
}

// recordingApprover decides every request with d and remembers them.
type recordingApprover struct {
	mu   sync.Mutex
	reqs []ApprovalRequest
	d    Decision
}

func (a *recordingApprover) Approve(ctx context.Context, req ApprovalRequest) (Decision, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reqs = append(a.reqs, req)
	return a.d, true
}

func (a *recordingApprover) count() int { a.mu.Lock(); defer a.mu.Unlock(); return len(a.reqs) }

func (a *recordingApprover) all() []ApprovalRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]ApprovalRequest(nil), a.reqs...)
}

// Item 4: a request at or after its exp does not run and is answered
// "expired"; a malformed exp is a bad request; a request held for approval
// is withdrawn at its exp.
func TestHostileRequestExpiry(t *testing.T) {
	exe, p, g, marker := grantedExec(t, func(c *Config) { c.ApprovalTimeout = time.Minute })
	exec := func(exp any, withGrant bool) string {
		t.Helper()
		d := map[string]any{"cmd": "touch " + marker}
		if exp != nil {
			d["exp"] = exp
		}
		if withGrant {
			d["grant"] = json.RawMessage(g.Raw)
		}
		return p.sendParts("thr_exp", dataPart(t, profile.MimeExec, d))
	}
	past := wire.FormatTime(time.Now().Add(-time.Second))
	for _, exp := range []string{past, "2000-01-01T00:00:00Z", time.Now().Add(-time.Hour).Format("2006-01-02T15:04:05-07:00")} {
		r := p.awaitReply(exec(exp, true))
		if r.mime != profile.MimeExecResult || r.resultError() != profile.ErrExpired {
			t.Errorf("exp %s: %v, want a result with error expired", exp, r)
		}
	}
	for _, exp := range []any{"tomorrow", "2026-09-25 17:13:11Z", 1790352652, "2026-02-30T00:00:00Z", nil} {
		if exp == nil {
			continue
		}
		r := p.awaitReply(exec(exp, true))
		if r.err == nil || r.err.Code != wire.CodeBadRequest {
			t.Errorf("exp %v: %v, want err bad_request", exp, r)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an expired or malformed request ran")
	}
	// A future exp with a grant: runs.
	if r := p.awaitReply(exec(wire.FormatTime(time.Now().Add(time.Minute)), true)); r.mime != profile.MimeExecResult || r.resultError() != "" {
		t.Fatalf("granted request before its exp: %v", r)
	}
	if err := os.Remove(marker); err != nil {
		t.Fatal("the granted request did not run")
	}
	// Without a grant (another key: p's grant is stored now) it waits for
	// the person, until its exp.
	ev, cancel := exe.Subscribe(64)
	defer cancel()
	exp := time.Now().Add(1500 * time.Millisecond)
	p = dialRaw(t, exe)
	p.handshake()
	id := exec(wire.FormatTime(exp), false)
	var shown *ApprovalRequest
	for shown == nil {
		if e := <-ev; e.Type == EventApproval && e.Approval.ReqID == id {
			shown = e.Approval
		}
	}
	if shown.Deadline != wire.FormatTime(exp) {
		t.Errorf("pending deadline %s, want the request's exp %s", shown.Deadline, wire.FormatTime(exp))
	}
	if ps := exe.Pending(); len(ps) != 1 || ps[0].Deadline != wire.FormatTime(exp) {
		t.Fatalf("pending %+v", ps)
	}
	r := p.awaitReply(id)
	if r.mime != profile.MimeExecResult || r.resultError() != profile.ErrExpired {
		t.Fatalf("request held past its exp: %v, want a result with error expired", r)
	}
	for e := range ev {
		if e.Type == EventApprovalDone && e.Approval.ReqID == id {
			if e.Decision.Allow || e.Decision.By != "expired" {
				t.Fatalf("withdrawn with %+v", e.Decision)
			}
			break
		}
	}
	if ps := exe.Pending(); len(ps) != 0 {
		t.Fatalf("still pending after exp: %+v", ps)
	}
	if err := exe.Decide(shown.ID, Decision{Allow: true}); err == nil {
		t.Fatal("an expired request could still be allowed")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the expired request ran")
	}
}

// Item 4 end to end: a request to a peer that is offline, given up by the
// requester, does not run when the peer comes back (the line is delivered
// late from the outbox, and answered "expired").
func TestRequestGivenUpNeverRuns(t *testing.T) {
	ws := t.TempDir()
	exe := newTestNode(t, "exe", func(c *Config) { c.Workspace = ws; c.Approver = DenyAll{} })
	req := newTestNode(t, "req")
	connect(t, req, exe)
	if _, err := exe.Grant(context.Background(), req.Key(), []string{"exec"}, time.Hour, nil, ""); err != nil {
		t.Fatal(err)
	}
	testsync.Eventually(t, "req holds the grant", func() bool { gs, _ := req.Grants(); return len(gs) == 1 })
	exe.Close()
	marker := filepath.Join(ws, "marker")
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	_, err := req.Request(ctx, exe.Key(), profile.MimeExec, execData(t, "touch "+marker, nil), "thr_late")
	cancel()
	if err == nil {
		t.Fatal("a request to an offline peer was answered")
	}
	exe.start() // req keeps dialing it: the queued request arrives late
	testsync.Eventually(t, "the late request answered", func() bool {
		ls, _ := req.Lines("thr_late", key.PublicKey{})
		for _, l := range ls {
			var m wire.Msg
			if l.Dir == "in" && json.Unmarshal(l.Line, &m) == nil && len(m.Parts) > 0 {
				p := m.DecodeParts()[0]
				var res profile.ExecResult
				if p.Mime == profile.MimeExecResult && json.Unmarshal(p.Data, &res) == nil {
					if res.Error != profile.ErrExpired {
						t.Fatalf("late request answered %s, want error expired", p.Data)
					}
					return true
				}
			}
		}
		return false
	})
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the request given up on ran when the peer came back")
	}
}

// Item 5: an answer to a request is taken only from the key the request
// went to; another connected peer that knows the request's id cannot
// forge a result or an err.
func TestHostileForgedAnswer(t *testing.T) {
	a := newTestNode(t, "a")
	asked := dialRaw(t, a)
	asked.handshake()
	forger := dialRaw(t, a)
	forger.handshake()
	type result struct {
		data json.RawMessage
		err  error
	}
	done := make(chan result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		data, err := a.Request(ctx, asked.priv.Public(), profile.MimeExec, json.RawMessage(`{"cmd":"true"}`), "thr_forge")
		done <- result{data, err}
	}()
	var reqID string
	for reqID == "" {
		if m, ok := asked.read().(*wire.Msg); ok && m.Th == "thr_forge" {
			reqID = m.ID
		}
	}
	// The forger learned the id (a mirror host sees it, say): it sends a
	// forged result, a forged err, and a grant-denied, then a line whose
	// ack proves the node read them all.
	forged := dataPart(t, profile.MimeExecResult, map[string]any{"exit": 0, "stdout": "forged"})
	forger.line(forger.obj(wire.TypeMsg, map[string]any{"th": "thr_forge", "re": reqID, "parts": []json.RawMessage{forged}}))
	forger.line(forger.obj(wire.TypeErr, map[string]any{"code": wire.CodeForbidden, "msg": "forged", "re": reqID}))
	id, m := forger.msg("thr_forge", "after")
	forger.line(m)
	forger.expectAck("thr_forge", id, "")
	select {
	case r := <-done:
		t.Fatalf("the request took the forger's answer: %s %v", r.data, r.err)
	default:
	}
	real := dataPart(t, profile.MimeExecResult, map[string]any{"exit": 0, "stdout": "real"})
	asked.line(asked.obj(wire.TypeMsg, map[string]any{"th": "thr_forge", "re": reqID, "parts": []json.RawMessage{real}}))
	r := <-done
	if r.err != nil || !strings.Contains(string(r.data), "real") {
		t.Fatalf("request answered %s %v, want the asked peer's result", r.data, r.err)
	}
}

// Item 5: the id of a line this node makes cannot be read off the gap it
// leaves between two ids a peer sees (here two errs to a hostile peer,
// with a request to another peer made between them, in one millisecond).
func TestHostileIDGaps(t *testing.T) {
	frozen := time.Now()
	a := newTestNode(t, "a", func(c *Config) { c.Now = func() time.Time { return frozen }; c.Presence = "none" })
	spy := dialRaw(t, a)
	spy.handshake()
	other := dialRaw(t, a)
	other.handshake()
	badErr := func() string {
		spy.line(spy.obj(wire.TypeMsg, map[string]any{"th": "thr_gap"})) // no parts: bad_request
		return spy.expectErr(wire.CodeBadRequest).ID
	}
	before := badErr()
	res, err := a.Send(context.Background(), SendRequest{To: other.priv.Public(), Parts: []json.RawMessage{wire.TextPart("exec this")}})
	if err != nil {
		t.Fatal(err)
	}
	after := badErr()
	gap := func(x, y string) string { return ulidDiff(t, x, y) }
	if gap(before, res.ID) == "1" || gap(res.ID, after) == "1" {
		t.Fatalf("ids %s < %s < %s: the middle one is the neighbour of one the spy saw", before, res.ID, after)
	}
}

// ulidDiff returns y - x of two ULIDs in one millisecond, in decimal.
func ulidDiff(t testing.TB, x, y string) string {
	t.Helper()
	const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	val := func(s string) (hi, lo uint64) {
		for i := 0; i < 26; i++ {
			v := uint64(strings.IndexByte(crockford, s[i]))
			hi = hi<<5 | lo>>59
			lo = lo<<5 | v
		}
		return hi, lo
	}
	xh, xl := val(x)
	yh, yl := val(y)
	if xh != yh {
		return "large"
	}
	return fmt.Sprint(yl - xl)
}

// Item 9: one msg with many request parts becomes at most
// MaxRequestsPerMsg requests; the rest is answered too_large, once.
func TestHostileManyRequestParts(t *testing.T) {
	ws := t.TempDir()
	exe := newTestNode(t, "exe", func(c *Config) { c.Workspace = ws; c.Approver = DenyAll{} })
	p := dialRaw(t, exe)
	p.handshake()
	const n = 200
	parts := make([]json.RawMessage, n)
	for i := range parts {
		parts[i] = dataPart(t, profile.MimeExec, map[string]any{"cmd": fmt.Sprintf("echo %d", i)})
	}
	id := p.sendParts("thr_many", parts...)
	forbidden, tooLarge := 0, 0
	for forbidden < MaxRequestsPerMsg || tooLarge == 0 {
		e, ok := p.read().(*wire.Err)
		if !ok || e.Re != id {
			continue
		}
		switch e.Code {
		case wire.CodeForbidden:
			forbidden++
		case wire.CodeTooLarge:
			tooLarge++
			if !strings.Contains(e.Msg, fmt.Sprint(n-MaxRequestsPerMsg)) {
				t.Errorf("too_large says %q", e.Msg)
			}
		default:
			t.Fatalf("err %s: %s", e.Code, e.Msg)
		}
		if forbidden > MaxRequestsPerMsg || tooLarge > 1 {
			t.Fatalf("%d requests handled and %d too_large for one msg of %d parts; want %d and 1", forbidden, tooLarge, n, MaxRequestsPerMsg)
		}
	}
	// The node still serves: another request is answered.
	last := p.sendParts("thr_many", dataPart(t, profile.MimeExec, map[string]any{"cmd": "true"}))
	for {
		e, ok := p.read().(*wire.Err)
		if !ok {
			continue
		}
		if e.Re == id {
			t.Fatalf("another answer to the first msg: %s %s", e.Code, e.Msg)
		}
		if e.Re == last {
			break
		}
	}
	checkNodeServes(t, exe)
}

// Item 14: strangers (throwaway keys) flooding requests that wait for the
// person cannot take the slots of peers the person knows.
func TestApprovalSlotsStrangers(t *testing.T) {
	exe := newTestNode(t, "exe", func(c *Config) { c.ApprovalTimeout = time.Minute })
	const keys, each = 8, 8
	refused := 0
	var raws []*rawPeer
	for range keys {
		p := dialRaw(t, exe)
		p.handshake()
		raws = append(raws, p)
		for range each {
			p.sendParts("thr_flood", dataPart(t, profile.MimeExec, map[string]any{"cmd": "true"}))
		}
	}
	testsync.Eventually(t, "the flood handled", func() bool {
		return len(exe.Pending()) == MaxPendingStrangers
	})
	shown := map[key.PublicKey]int{}
	for _, pr := range exe.Pending() {
		shown[pr.From]++
	}
	for _, p := range raws {
		if n := shown[p.priv.Public()]; n > MaxPendingPerStranger {
			t.Fatalf("%d requests of one stranger shown, at most %d", n, MaxPendingPerStranger)
		}
		for range each - shown[p.priv.Public()] {
			e := p.awaitErr(wire.CodeForbidden)
			if !strings.Contains(e.Msg, "already waiting for approval") {
				t.Fatalf("refused with %q", e.Msg)
			}
			refused++
		}
	}
	if want := keys*each - MaxPendingStrangers; refused != want {
		t.Fatalf("%d refused, want %d", refused, want)
	}
	for _, pr := range exe.Pending() {
		if !pr.Stranger {
			t.Fatalf("a throwaway key's request is not marked as a stranger's: %+v", pr)
		}
	}
	// A trusted peer and a peer this node dialed are seen, not refused.
	trusted := newTestNode(t, "trusted")
	if err := exe.Trust(trusted.Key(), true); err != nil {
		t.Fatal(err)
	}
	connect(t, trusted, exe)
	dialed := newTestNode(t, "dialed")
	connect(t, exe, dialed)
	testsync.Eventually(t, "exe records the dial", func() bool {
		ps, _ := exe.Peers()
		for _, pi := range ps {
			if pi.Key == dialed.Key() && pi.Dialed != "" {
				return true
			}
		}
		return false
	})
	for _, k := range []*testNode{trusted, dialed} {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_, _ = k.Request(ctx, exe.Key(), profile.MimeExec, json.RawMessage(`{"cmd":"true"}`), "")
		}()
		testsync.Eventually(t, k.name+"'s request shown", func() bool {
			for _, pr := range exe.Pending() {
				if pr.From == k.Key() {
					if pr.Stranger {
						t.Fatalf("%s's request marked as a stranger's", k.name)
					}
					return true
				}
			}
			return false
		})
	}
	// A new stranger is still refused at once, unseen.
	late := dialRaw(t, exe)
	late.handshake()
	late.sendParts("thr_flood", dataPart(t, profile.MimeExec, map[string]any{"cmd": "true"}))
	if e := late.awaitErr(wire.CodeForbidden); !strings.Contains(e.Msg, "unknown peers") {
		t.Fatalf("late stranger refused with %q", e.Msg)
	}
}
