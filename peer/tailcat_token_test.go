package peer

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/transport"
	"github.com/awp-tray/awp-tray/peer/transport/tailcat/relaytest"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// untilAck reads the node's lines until the ack of id in th and returns
// every line read before it (raw).
func (p *rawPeer) untilAck(th, id string) [][]byte {
	p.t.Helper()
	var lines [][]byte
	for {
		raw, err := p.r.ReadLine()
		if err != nil {
			p.t.Fatalf("read: %v", err)
		}
		raw = bytes.Clone(raw)
		f, err := wire.Decode(raw)
		if err != nil {
			p.t.Fatalf("node sent an undecodable line %q: %v", raw, err)
		}
		if a, ok := f.(*wire.Ack); ok && a.Th == th && a.Of == id {
			return lines
		}
		lines = append(lines, raw)
	}
}

// TestHostileTailcatToken (issue 18 item 7): the tailcat token is a
// secret (docs/tailcat.md). A TCP connection that never authenticates does
// not get it in the node's hello; an authenticated peer the person does not
// trust gets it in no line (hello, presence, anything before the ack of its
// first msg); the invite carries it; a trusted peer gets it after
// authentication, in a listen line, and a node it trusts shows it in its
// peer list while an untrusted one's list and presence table lack it.
func TestHostileTailcatToken(t *testing.T) {
	r := relaytest.New(t)
	k, err := key.NewPrivate()
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{
		Key: k, DataDir: t.TempDir(), Name: "a", Listen: []string{"tcp://127.0.0.1:0", transport.TailcatListen},
		Tailcat: transport.TailcatOptions{DERPMap: r.Map},
		Logger:  slog.New(slog.NewTextHandler(tlogWriter{t, "a"}, &slog.HandlerOptions{Level: slog.LevelInfo})),
	}
	a := &testNode{t: t, cfg: cfg, name: "a"}
	a.start()
	t.Cleanup(func() { a.Close() })
	var tok string
	for _, l := range a.ListenAddrs() {
		if strings.HasPrefix(l, "tc") && !strings.HasPrefix(l, "tcp:") {
			tok = l
		}
	}
	if tok == "" {
		t.Fatalf("a listens on %v: no token", a.ListenAddrs())
	}
	leaks := func(b []byte) bool { return bytes.Contains(b, []byte(tok)) }

	// Before authentication: the hello a stranger's connection gets.
	p := dialRaw(t, a)
	if leaks(p.nodeHello) {
		t.Fatalf("the hello sent before authentication carries the token: %s", p.nodeHello)
	}
	var h wire.Hello
	if err := json.Unmarshal(p.nodeHello, &h); err != nil || len(h.Listen) == 0 {
		t.Fatalf("the hello lists no address at all (%v): %s", err, p.nodeHello)
	}

	// Authenticated, not trusted: nothing it is sent carries the token.
	p.handshake()
	th := "thr_tok1"
	id, m := p.msg(th, "hello")
	p.line(m)
	for _, l := range p.untilAck(th, id) {
		if leaks(l) {
			t.Fatalf("an untrusted peer was sent the token: %s", l)
		}
	}

	// The invite carries it.
	card, err := ParseInvite(a.Invite())
	if err != nil || !slices.Contains(card.Listen, tok) {
		t.Fatalf("a's invite %+v (%v) lacks the token", card, err)
	}

	// Trusted: the hello still lacks it, a listen line after auth has it.
	q := dialRaw(t, a)
	if err := a.Trust(q.priv.Public(), true); err != nil {
		t.Fatal(err)
	}
	if leaks(q.nodeHello) {
		t.Fatalf("the hello carries the token: %s", q.nodeHello)
	}
	q.handshake()
	id, m = q.msg(th, "hello")
	q.line(m)
	tokenListen := func(l []byte) bool {
		var ll struct {
			T      string   `json:"t"`
			Listen []string `json:"listen"`
		}
		return json.Unmarshal(l, &ll) == nil && ll.T == typeListen && slices.Contains(ll.Listen, tok)
	}
	got := slices.ContainsFunc(q.untilAck(th, id), tokenListen)
	// The writer sends the acks it has ahead of the lines queued with them,
	// so the listen line may come after the ack: read on, for a while.
	_ = q.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	for !got {
		raw, err := q.r.ReadLine()
		if err != nil {
			t.Fatalf("a trusted peer was not sent the token after authentication: %v", err)
		}
		got = tokenListen(raw)
	}
	_ = q.c.SetReadDeadline(time.Time{})

	// Nodes: b trusted shows a's token in its peer list; c untrusted does
	// not, nor in its presence table.
	b := newTestNode(t, "b")
	c := newTestNode(t, "c")
	if err := a.Trust(b.Key(), true); err != nil {
		t.Fatal(err)
	}
	connect(t, b, a)
	connect(t, c, a)
	listOf := func(n *testNode) []string {
		ps, _ := n.Peers()
		for _, pi := range ps {
			if pi.Key == a.Key() {
				return pi.Listen
			}
		}
		return nil
	}
	testsync.Eventually(t, "b lists a's token", func() bool { return slices.Contains(listOf(b), tok) })
	// A round trip with c after its session started: whatever a sent it
	// then has been handled.
	rc := sendText(t, c, a.Key(), "", "ping")
	testsync.Eventually(t, "c's msg acked", func() bool {
		ls, _ := c.Lines(rc.Th, key.PublicKey{})
		return len(ls) == 1 && ls[0].Acked
	})
	if l := listOf(c); slices.Contains(l, tok) || len(l) == 0 {
		t.Fatalf("c (not trusted) lists a at %v", l)
	}
	pres, _ := json.Marshal(c.Presence())
	if leaks(pres) {
		t.Fatalf("c's presence table carries a's token: %s", pres)
	}
}
