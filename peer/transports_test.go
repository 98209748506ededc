package peer

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// listenFor returns a listen address of the given binding for a test node.
func listenFor(t testing.TB, binding string) string {
	switch binding {
	case "tcp":
		return "tcp://127.0.0.1:0"
	case "unix":
		d, err := os.MkdirTemp("", "awp")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		return "unix://" + filepath.Join(d, "n.sock")
	case "wg":
		return "wg://127.0.0.1:0"
	}
	t.Fatalf("unknown binding %s", binding)
	return ""
}

// pairOver makes two nodes on one binding and connects a to b (wg: through
// an exchange of invites, as people would).
func pairOver(t *testing.T, binding string) (*testNode, *testNode) {
	a := newTestNode(t, "a", func(c *Config) { c.Listen = []string{listenFor(t, binding)} })
	b := newTestNode(t, "b", func(c *Config) { c.Listen = []string{listenFor(t, binding)} })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if binding == "wg" {
		// b learns a's invite first (so it accepts a's tunnel), then a adds b's and dials.
		bctx, bcancel := context.WithTimeout(ctx, 100*time.Millisecond)
		_, _ = b.AddInvite(bctx, a.Invite())
		bcancel()
		if k, err := a.AddInvite(ctx, b.Invite()); err != nil || k != b.Key() {
			t.Fatalf("add invite: %v", err)
		}
		return a, b
	}
	connect(t, a, b)
	return a, b
}

// TestScenarios runs the protocol scenarios over every binding.
func TestScenarios(t *testing.T) {
	for _, binding := range []string{"tcp", "unix", "wg"} {
		t.Run(binding, func(t *testing.T) {
			a, b := pairOver(t, binding)
			r := msgsAndBlob(t, a, b)
			// Restart the receiver; what was queued meanwhile is replayed in order.
			replayAcrossRestart(t, a, b, r.Th, 3, 20, "q", b.restart)
		})
	}
}

func allOutAcked(ls []LineInfo) bool {
	for _, l := range ls {
		if l.Dir == "out" && !l.Acked {
			return false
		}
	}
	return true
}
