package peer

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
)

// The node keeps what became of each request for the Approvals window's
// history: a decision (with who took it), a timeout, newest first; big
// request data is dropped and the list is bounded.
func TestApprovalHistory(t *testing.T) {
	n := newTestNode(t, "n", func(c *Config) { c.ApprovalTimeout = 50 * time.Millisecond })
	if h := n.ApprovalHistory(); len(h) != 0 {
		t.Fatalf("history of a new node: %+v", h)
	}
	ev, cancel := n.Subscribe(8)
	defer cancel()
	go func() {
		for e := range ev {
			if e.Type == EventApproval && e.Approval.Th == "thr_decided" {
				_ = n.Decide(e.Approval.ID, Decision{Allow: true, For: time.Hour})
				return
			}
		}
	}()
	req := ApprovalRequest{Kind: ApprovalProfile, From: key.PublicKey{}, Caps: []string{"exec"}, Th: "thr_decided",
		Detail: json.RawMessage(`{"cmd":["make","test"]}`), Reason: "no grant"}
	if d := n.askApproval(req, time.Time{}); !d.Allow {
		t.Fatalf("decided: %+v", d)
	}
	big := req
	big.Th = "thr_timeout"
	big.Detail = json.RawMessage(`{"cmd":["echo","` + strings.Repeat("x", MaxHistoryDetail) + `"]}`)
	if d := n.askApproval(big, time.Time{}); d.Allow || d.By != "timeout" {
		t.Fatalf("timed out: %+v", d)
	}
	h := n.ApprovalHistory()
	if len(h) != 2 {
		t.Fatalf("history: %+v", h)
	}
	if h[0].Request.Th != "thr_timeout" || h[0].Decision.By != "timeout" || h[0].Request.Detail != nil || h[0].At == "" {
		t.Errorf("newest = %+v, want the timeout without its big data", h[0])
	}
	if h[1].Request.Th != "thr_decided" || !h[1].Decision.Allow || h[1].Decision.For != time.Hour || h[1].Decision.By != "user" ||
		string(h[1].Request.Detail) != `{"cmd":["make","test"]}` || h[1].Request.ID == "" {
		t.Errorf("oldest = %+v, want the decision with its data", h[1])
	}
	for i := range MaxApprovalHistory + 5 {
		n.remember(ApprovalRequest{ID: "apr_" + string(rune('a'+i%26)), Th: "thr_fill"}, Decision{By: "policy"})
	}
	h = n.ApprovalHistory()
	if len(h) != MaxApprovalHistory {
		t.Fatalf("history holds %d, want at most %d", len(h), MaxApprovalHistory)
	}
	for _, r := range h {
		if r.Request.Th != "thr_fill" {
			t.Fatalf("an old record stayed past the bound: %+v", r)
		}
	}
}
