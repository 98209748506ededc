package peer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/awp-tray/awp-tray/internal/visible"
	"github.com/awp-tray/awp-tray/peer/grant"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/profile"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// answer is what a request this node sent got back.
type answer struct {
	mime string
	data json.RawMessage
	err  *wire.Err
}

// waiter waits for the answer to a request this node sent to key to: an
// answer from any other key is not one (anyone who learns or guesses a
// request's id could send it).
type waiter struct {
	to key.PublicKey
	ch chan answer // buffered 1; receives at most one answer
}

// requestWaiters maps the id of a request this node sent to its waiter.
type requestWaiters map[string]*waiter

// onRemoteErr delivers an err line that answers one of this node's requests.
func (n *Node) onRemoteErr(s *session, e *wire.Err) {
	if e.Re != "" {
		n.deliverAnswer(s.peer, e.Re, answer{err: e})
	}
}

// deliverAnswer hands a to the waiter of request re when from is the key
// the request went to; anything else is ignored (and leaves the waiter).
func (n *Node) deliverAnswer(from key.PublicKey, re string, a answer) {
	n.mu.Lock()
	w := n.waiters[re]
	if w == nil || w.to != from {
		n.mu.Unlock()
		if w != nil {
			n.log.Warn("answer from a peer the request did not go to; ignored", "peer", from.Short(), "re", re)
		}
		return
	}
	delete(n.waiters, re)
	n.mu.Unlock()
	w.ch <- a
}

// handleRequest runs on a worker: it does the short part of a request
// (expiry, grants) and hands what may wait (a person, a command, sending
// the answer) to a goroutine of its own.
func (n *Node) handleRequest(j *reqJob) {
	if j.mime == MimeGrantRequest {
		n.onGrantRequest(j)
		return
	}
	n.onProfileRequest(j)
}

// answerBusy answers a request the pool had no room for.
func (n *Node) answerBusy(j *reqJob) {
	const why = "busy: too many requests waiting"
	if j.mime == MimeGrantRequest {
		n.answerGrantRequest(j, MimeGrantDenied, GrantDenied{Reason: why})
		return
	}
	n.sendResultError(j.s, j.m, j.mime, why)
}

// sendResultError answers a profile request with a result whose "error"
// is msg (docs/protocol/profile.md: a request that fails still gets a result).
func (n *Node) sendResultError(s *session, m *wire.Msg, mime, msg string) {
	b, _ := json.Marshal(map[string]string{"error": msg})
	n.sendResult(s, m, profile.Result{Mime: profile.ResultMime(mime), Data: b})
}

// onProfileRequest checks a profile request: its exp, then its grants
// (asking the Approver when none is honored, until the approval deadline
// or the request's exp, whichever comes first); it then runs it.
func (n *Node) onProfileRequest(j *reqJob) {
	s, m, mime, data := j.s, j.m, j.mime, j.data
	exp, hasExp, err := profile.RequestExp(data)
	if err != nil {
		s.sendErr(wire.CodeBadRequest, strings.TrimPrefix(err.Error(), "profile: "), m.ID, m.Th)
		return
	}
	if j.attErr != nil {
		s.sendErr(wire.CodeBadRequest, j.attErr.Error(), m.ID, m.Th)
		return
	}
	expired := func() bool { return hasExp && !n.now().Before(exp) }
	if expired() {
		n.log.Info("request expired before it started", "peer", s.peer.Short(), "id", m.ID, "exp", exp)
		n.goTracked(func() { n.sendResultError(s, m, mime, profile.ErrExpired) })
		return
	}
	c := profile.Cap(mime)
	g, why := n.honored(s.peer, c, j.attached)
	n.goTracked(func() {
		if g != nil {
			n.keepHonored(g)
		} else {
			req := ApprovalRequest{Kind: ApprovalProfile, From: s.peer, FromName: s.hello.Name, Sub: s.peer,
				Caps: []string{c}, On: []key.PublicKey{n.pub}, Th: m.Th, ReqID: m.ID, Detail: data, Reason: why}
			var until time.Time
			if hasExp {
				until = exp
			}
			d := n.askApproval(req, until)
			switch {
			case d.By == decidedByExpiry:
				n.log.Info("request expired waiting for approval", "peer", s.peer.Short(), "id", m.ID)
				n.sendResultError(s, m, mime, profile.ErrExpired)
				return
			case !d.Allow:
				reason := c + " needs a grant (" + why + ")"
				if d.Reason != "" {
					reason += ": " + d.Reason
				}
				n.log.Info("request refused", "peer", s.peer.Short(), "cap", c, "why", why, "by", d.By)
				s.sendErr(wire.CodeForbidden, reason, m.ID, m.Th)
				return
			}
			if d.For > 0 {
				// The grant goes in the request's thread, under the request
				// it answers, not in a thread of its own.
				if _, err := n.issueGrant(context.Background(), s.peer, []string{c}, d.For, []key.PublicKey{n.pub}, "approved for "+visible.Duration(d.For), m.Th); err != nil {
					n.log.Error("issue grant", "err", err)
				}
			}
		}
		if expired() {
			n.sendResultError(s, m, mime, profile.ErrExpired)
			return
		}
		n.runProfile(s, m, mime, data)
	})
}

// checker is the honor rule bound to this node's trust list and grant
// index.
func (n *Node) checker() grant.Checker {
	return grant.Checker{Self: n.pub, Trusted: n.trust.has, Now: n.now, Stored: n.grants.forSub}
}

// honored applies the honor rule to a request from k for capability c with
// the grants attached to it (those revoked here left out) and those
// stored; it returns the grant that honors it, or nil and why not.
func (n *Node) honored(k key.PublicKey, c string, attached []*grant.Grant) (*grant.Grant, string) {
	live := make([]*grant.Grant, 0, len(attached))
	for _, g := range attached {
		if !n.grants.isRevoked(g.ID()) {
			live = append(live, g)
		}
	}
	return n.checker().Check(k, c, live)
}

func (n *Node) runProfile(s *session, m *wire.Msg, mime string, data json.RawMessage) {
	r := n.runner()
	res, err := r.Handle(n.ctx, s.peer, mime, data, s.hello.HasCap("blob"))
	switch {
	case errors.Is(err, profile.ErrBadRequest), errors.Is(err, profile.ErrUnknownMime):
		s.sendErr(wire.CodeBadRequest, err.Error(), m.ID, m.Th)
		return
	case errors.Is(err, profile.ErrBusy), errors.Is(err, profile.ErrNoRoot):
		// A granted request that fails gets a result with "error"
		// (docs/protocol/profile.md). Not err rate_limited or internal: those
		// say the line was not stored and will be sent again
		// (docs/protocol/framing.md), and this line was stored and acked.
		if errors.Is(err, profile.ErrNoRoot) {
			n.log.Error("profile request", "err", err)
		}
		b, _ := json.Marshal(map[string]string{"error": strings.TrimPrefix(err.Error(), "profile: ")})
		res = profile.Result{Mime: profile.ResultMime(mime), Data: b}
	case err != nil:
		n.log.Error("profile request", "err", err)
		s.sendErr(wire.CodeInternal, "could not run the request", m.ID, m.Th)
		return
	}
	n.sendResult(s, m, res)
}

// sendResult sends a profile request's result (and its attachments) in a
// msg answering m.
func (n *Node) sendResult(s *session, m *wire.Msg, res profile.Result) {
	defer res.Remove()
	part, err := wire.DataPart(res.Mime, res.Data)
	if err != nil {
		s.sendErr(wire.CodeInternal, "bad result", m.ID, m.Th)
		return
	}
	req := SendRequest{To: s.peer, Th: m.Th, Re: m.ID, Parts: []json.RawMessage{part}}
	for _, a := range res.Attachments {
		req.Blobs = append(req.Blobs, BlobFile{Path: a.Path, Name: a.Name, Mime: a.Mime})
	}
	if _, err := n.Send(n.ctx, req); err != nil && !errors.Is(err, ErrClosed) {
		n.log.Error("send result", "err", err)
	}
}

// runner returns the node's profile runner.
func (n *Node) runner() *profile.Runner {
	n.runnerOnce.Do(func() {
		n.prof = &profile.Runner{Root: n.cfg.Workspace, Logger: n.log, TempDir: n.cfg.DataDir,
			Hidden: []string{n.cfg.DataDir}, Sandbox: n.sandboxMode, NoNetwork: n.cfg.ExecNoNetwork}
	})
	return n.prof
}

// Request sends a profile request (mime one of profile.MimeExec, MimeRead,
// MimeWrite) to peer to, attaching the stored grants that may authorize it
// (myGrants), and waits for the result part's data or the err line
// (returned as *wire.Err). When ctx has a deadline the request carries it
// as "exp" (docs/protocol/profile.md; an earlier exp in data is kept),
// so that what this node stops waiting for never runs later.
func (n *Node) Request(ctx context.Context, to key.PublicKey, mime string, data json.RawMessage, th string) (json.RawMessage, error) {
	k := to
	if err := n.checkPeer(k); err != nil {
		return nil, err
	}
	c := profile.Cap(mime)
	if c == "" {
		return nil, fmt.Errorf("peer: request: unknown request mime %q", mime)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
		return nil, errors.New("peer: request: data must be a JSON object")
	}
	if _, has := obj["grants"]; !has {
		limit := grant.MaxAttached
		if _, one := obj["grant"]; one {
			limit--
		}
		if mine := n.myGrants(k, c, limit); len(mine) > 0 {
			b, _ := json.Marshal(mine)
			obj["grants"] = b
		}
	}
	data, _ = json.Marshal(obj)
	if dl, ok := ctx.Deadline(); ok {
		var err error
		if data, err = profile.WithExp(data, dl); err != nil {
			return nil, fmt.Errorf("peer: request: %w", err)
		}
	}
	part, err := wire.DataPart(mime, data)
	if err != nil {
		return nil, err
	}
	subject := ""
	if th == "" {
		th, subject = n.requestThread(k)
	}
	// The waiter is registered in the commit that gives the msg its id,
	// before the msg can be sent, so no answer can come before it.
	w := &waiter{to: k, ch: make(chan answer, 1)}
	res, err := n.Send(ctx, SendRequest{To: k, Th: th, Subject: subject, Parts: []json.RawMessage{part}, waiter: w})
	if err != nil {
		return nil, err
	}
	defer func() {
		n.mu.Lock()
		if n.waiters[res.ID] == w {
			delete(n.waiters, res.ID)
		}
		n.mu.Unlock()
	}()
	select {
	case a := <-w.ch:
		if a.err != nil {
			return nil, a.err
		}
		return a.data, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("peer: request %s: %w", res.ID, ctx.Err())
	case <-n.ctx.Done():
		return nil, ErrClosed
	}
}

// myGrants returns the stored grants a request for capability c to peer k
// may carry, at most limit: those for this node that cover c (or
// introduce) and that k may honor (on), the ones k issued first (k
// honors its own), then the longest-lived; and the introduce grants held
// by their issuers, which help k's honor rule.
func (n *Node) myGrants(k key.PublicKey, c string, limit int) []json.RawMessage {
	now := n.now()
	var mine []*grant.Grant
	for _, g := range n.grants.forSub(n.pub) {
		if !g.Expired(now) && (g.Has(c) || g.Has(grant.CapIntroduce)) && g.OnAllows(k) {
			mine = append(mine, g)
		}
	}
	slices.SortStableFunc(mine, func(a, b *grant.Grant) int {
		if (a.Iss == k) != (b.Iss == k) {
			if a.Iss == k {
				return -1
			}
			return 1
		}
		return b.Exp.Compare(a.Exp)
	})
	var out []json.RawMessage
	issuers := map[key.PublicKey]bool{}
	for _, g := range mine {
		if len(out) == limit/2 {
			break
		}
		out = append(out, g.Canonical())
		if g.Iss != k {
			issuers[g.Iss] = true
		}
	}
	for iss := range issuers {
		for _, g := range n.grants.forSub(iss) {
			if len(out) == limit {
				return out
			}
			if !g.Expired(now) && g.Has(grant.CapIntroduce) && g.OnAllows(k) {
				out = append(out, g.Canonical())
			}
		}
	}
	return out
}

func isResultMime(m string) bool {
	switch m {
	case profile.MimeExecResult, profile.MimeReadResult, profile.MimeWriteResult:
		return true
	}
	return false
}
