package peer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/profile"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// pending is an approval waiting for a decision.
type pending struct {
	req  ApprovalRequest
	done chan Decision // receives exactly one decision
}

// ErrNoApproval is returned by Decide for an unknown or already decided id.
var ErrNoApproval = errors.New("peer: no such pending approval")

// decidedByExpiry is Decision.By when a request reached its exp while it
// waited (docs/protocol/profile.md: the prompt is withdrawn, and the
// request is answered as expired).
const decidedByExpiry = "expired"

// askApproval registers req, asks the Approver (if any), and waits for a
// decision, Decide, or the deadline: Config.ApprovalTimeout from now, or
// until when that is earlier (a request's exp; zero: none). At the
// approval deadline the decision is deny (By "timeout"); at until the
// request is withdrawn (By decidedByExpiry). It blocks: call it off the
// session goroutines.
func (n *Node) askApproval(req ApprovalRequest, until time.Time) Decision {
	now := n.now()
	if !until.IsZero() && !now.Before(until) {
		return Decision{By: decidedByExpiry, Reason: "the request expired"}
	}
	req.ID = "apr_" + wire.NewNonce(9)
	if slices.Contains(req.Caps, "exec") && (req.On == nil || slices.Contains(req.On, n.pub)) {
		// How it would run here.
		switch st := n.ExecSandbox(); {
		case st.Sandbox == profile.SandboxBwrap && !st.Available:
			req.Sandbox = SandboxUnavailable
		default:
			req.Sandbox = st.Sandbox
		}
	}
	req.Created = wire.FormatTime(now)
	deadline := now.Add(n.cfg.ApprovalTimeout)
	byExp := !until.IsZero() && until.Before(deadline)
	if byExp {
		deadline = until
	}
	req.Deadline = wire.FormatTime(deadline)
	if !req.From.IsZero() {
		req.Stranger = !n.knownPeer(req.From)
	}
	p := &pending{req: req, done: make(chan Decision, 1)}
	n.mu.Lock()
	if full := n.pendingFullLocked(req.From, req.Stranger); full != "" {
		n.mu.Unlock()
		n.log.Warn("request refused unseen", "peer", req.From, "caps", req.Caps, "stranger", req.Stranger, "why", full)
		d := Decision{Allow: false, By: "limit", Reason: full}
		n.remember(req, d)
		return d
	}
	n.approvals[req.ID] = p
	n.mu.Unlock()
	n.publish(Event{Type: EventApproval, Peer: req.From, PeerName: req.FromName, Th: req.Th, Approval: &req})

	ctx, cancel := context.WithTimeout(n.ctx, deadline.Sub(now))
	defer cancel()
	if a := n.cfg.Approver; a != nil {
		go func() {
			if d, ok := a.Approve(ctx, req); ok {
				_ = n.Decide(req.ID, d)
			}
		}()
	}
	var d Decision
	select {
	case d = <-p.done:
	case <-ctx.Done():
		n.mu.Lock()
		delete(n.approvals, req.ID)
		n.mu.Unlock()
		select {
		case d = <-p.done: // decided at the last moment
		default:
			d = Decision{Allow: false, By: "timeout", Reason: "no decision in time"}
			if byExp && n.ctx.Err() == nil {
				d = Decision{Allow: false, By: decidedByExpiry, Reason: "the request expired"}
			}
		}
	}
	n.remember(req, d)
	n.publish(Event{Type: EventApprovalDone, Peer: req.From, PeerName: req.FromName, Th: req.Th, Approval: &req, Decision: &d})
	return d
}

// How much of what was decided the node keeps for the Approvals window's
// history (Node.ApprovalHistory), in memory: the newest MaxApprovalHistory
// records, each request's data only up to MaxHistoryDetail bytes (a
// request may carry a 1 MiB line; 100 of them would be 100 MiB). A record
// is a few hundred bytes besides, so the history stays under 1 MiB.
const (
	MaxApprovalHistory = 100
	MaxHistoryDetail   = 4 << 10
)

// remember adds a decided request to the history.
func (n *Node) remember(req ApprovalRequest, d Decision) {
	if len(req.Detail) > MaxHistoryDetail {
		req.Detail = nil
	}
	r := ApprovalRecord{Request: req, Decision: d, At: wire.FormatTime(n.now())}
	n.mu.Lock()
	if len(n.history) >= MaxApprovalHistory {
		n.history = slices.Delete(n.history, 0, len(n.history)-MaxApprovalHistory+1)
	}
	n.history = append(n.history, r)
	n.mu.Unlock()
}

// ApprovalHistory lists the requests decided since the node started,
// newest first: allowed or denied (by whom), timed out, expired, or
// refused unseen because too many were waiting. It is kept in memory, at
// most MaxApprovalHistory records.
func (n *Node) ApprovalHistory() []ApprovalRecord {
	n.mu.Lock()
	out := make([]ApprovalRecord, len(n.history))
	for i, r := range n.history {
		out[len(out)-1-i] = r
	}
	n.mu.Unlock()
	return out
}

// pendingFullLocked says why a request from peer k (a stranger or not)
// may not wait for a person now ("" when it may). n.mu is held.
func (n *Node) pendingFullLocked(k key.PublicKey, stranger bool) string {
	if len(n.approvals) >= MaxPendingTotal {
		return fmt.Sprintf("%d requests are already waiting for approval", len(n.approvals))
	}
	mine, strangers := 0, 0
	for _, p := range n.approvals {
		if p.req.From == k {
			mine++
		}
		if p.req.Stranger {
			strangers++
		}
	}
	switch {
	case stranger && mine >= MaxPendingPerStranger:
		return fmt.Sprintf("%d requests from this unknown peer are already waiting for approval", mine)
	case stranger && strangers >= MaxPendingStrangers:
		return fmt.Sprintf("%d requests from unknown peers are already waiting for approval", strangers)
	case mine >= MaxPendingPerPeer:
		return fmt.Sprintf("%d requests from this peer are already waiting for approval", mine)
	}
	return ""
}

// Pending lists approvals waiting for a decision, oldest first.
func (n *Node) Pending() []ApprovalRequest {
	n.mu.Lock()
	out := make([]ApprovalRequest, 0, len(n.approvals))
	for _, p := range n.approvals {
		out = append(out, p.req)
	}
	n.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Created < out[j].Created })
	return out
}

// Decide answers a pending approval. The same call serves the approvals
// window, a notification action, the local API and a policy.
func (n *Node) Decide(id string, d Decision) error {
	n.mu.Lock()
	p := n.approvals[id]
	delete(n.approvals, id)
	n.mu.Unlock()
	if p == nil {
		return fmt.Errorf("%w: %s", ErrNoApproval, id)
	}
	if d.By == "" {
		d.By = "user"
	}
	if d.For < 0 || d.For > MaxGrantTTL {
		d.For = 0
	}
	p.done <- d
	return nil
}

// DenyAll is the headless default Approver: every request without an
// honored grant is refused at once.
type DenyAll struct{}

// Approve refuses.
func (DenyAll) Approve(ctx context.Context, req ApprovalRequest) (Decision, bool) {
	return Decision{Allow: false, By: "policy", Reason: "this peer refuses requests without a grant"}, true
}
