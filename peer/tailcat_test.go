package peer

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"tailscale.com/envknob"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/transport"
	"github.com/awp-tray/awp-tray/peer/transport/tailcat/relaytest"
)

func init() {
	// Keep tests on 127.0.0.1: no UPnP/NAT-PMP/PCP probes of the LAN
	// gateway, and no interface addresses among the endpoints magicsock
	// advertises (the STUN-learned 127.0.0.1 one remains).
	envknob.Setenv("TS_DISABLE_PORTMAPPER", "true")
	envknob.Setenv("TS_DEBUG_OMIT_LOCAL_ADDRS", "true")
}

// newTailcatNode is newTestNode over tailcat: it listens on "tailcat" with
// the in-process relay's DERP map. Until Config carries tailcat settings
// (see docs/tailcat.md), it swaps the node's transport Manager before
// Start.
func newTailcatNode(t *testing.T, name string, r *relaytest.Relay) *testNode {
	t.Helper()
	k, err := key.NewPrivate()
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{
		Key: k, DataDir: t.TempDir(), Name: name, Listen: []string{transport.TailcatListen},
		Logger: slog.New(slog.NewTextHandler(tlogWriter{t, name}, &slog.HandlerOptions{Level: slog.LevelInfo})),
	}
	tn := &testNode{t: t, cfg: cfg, name: name}
	startTailcatNode(tn, r)
	t.Cleanup(func() { tn.Close() })
	return tn
}

// startTailcatNode is testNode.start with a tailcat-configured Manager.
func startTailcatNode(tn *testNode, r *relaytest.Relay) {
	tn.t.Helper()
	tn.cfg.Tailcat = transport.TailcatOptions{DERPMap: r.Map}
	tn.start() // keeps the token in cfg.Listen: a restart listens on it again
}

// TestTailcatNodes runs the protocol scenarios over tailcat: a dials b's
// token from b's invite; messages both ways, a blob, and a restart of b
// (same key, same token) after which what a queued is replayed.
func TestTailcatNodes(t *testing.T) {
	r := relaytest.New(t)
	a := newTailcatNode(t, "a", r)
	b := newTailcatNode(t, "b", r)
	tok := b.addr()
	if !strings.HasPrefix(tok, "tc") {
		t.Fatalf("b listens on %q, want a tc… token", tok)
	}
	card, err := ParseInvite(b.Invite())
	if err != nil || len(card.Listen) != 1 || card.Listen[0] != tok {
		t.Fatalf("b's invite = %+v, %v; want listen [%s]", card, err, tok)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if k, err := a.AddInvite(ctx, b.Invite()); err != nil || k != b.Key() {
		t.Fatalf("add invite: %s, %v", k, err)
	}

	rs := msgsAndBlob(t, a, b)

	// Restart b; what a queued meanwhile is replayed in order over the
	// same token.
	replayAcrossRestart(t, a, b, rs.Th, 3, 20, "q", func() {
		startTailcatNode(b, r)
		if got := b.addr(); got != tok {
			t.Fatalf("b's token changed across restart:\n%s\n%s", tok, got)
		}
	})
}
