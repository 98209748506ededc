package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/awp-tray/awp-tray/peer"
)

// A state line does not count as unread on the peer, so the first unread
// line is found past it: a msg then alice's state, one unread, hands out
// the msg (and the state after it), not the state alone.
func TestFirstUnreadSkipsStateLines(t *testing.T) {
	li := func(seq uint64, dir, typ string) peer.LineInfo {
		return peer.LineInfo{Seq: seq, Dir: dir, Line: json.RawMessage(`{"t":"` + typ + `"}`)}
	}
	lines := []peer.LineInfo{li(1, "in", "msg"), li(2, "out", "msg"), li(3, "in", "msg"), li(4, "in", "state")}
	for _, tc := range []struct {
		unread int
		want   uint64
	}{{0, 5}, {1, 3}, {2, 1}, {3, 0}} {
		if got := firstUnread(lines, 4, tc.unread); got != tc.want {
			t.Errorf("unread %d: first %d, want %d", tc.unread, got, tc.want)
		}
	}
}
