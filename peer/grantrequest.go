package peer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/awp-tray/awp-tray/peer/grant"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// Mime types of grant requests and their answers (docs/protocol/grants.md).
const (
	MimeGrant        = grant.Mime
	MimeGrantRequest = "application/vnd.awp.grant-request+json"
	MimeGrantDenied  = "application/vnd.awp.grant-denied+json"
)

// answerGrantRequest answers grant request j with a part of mime and data v.
func (n *Node) answerGrantRequest(j *reqJob, mime string, v any) {
	var b []byte
	if raw, ok := v.(json.RawMessage); ok {
		b = raw
	} else {
		b, _ = json.Marshal(v)
	}
	part, _ := wire.DataPart(mime, b)
	if _, err := n.Send(n.ctx, SendRequest{To: j.s.peer, Th: j.m.Th, Re: j.m.ID, Parts: []json.RawMessage{part}}); err != nil && !errors.Is(err, ErrClosed) {
		n.log.Error("answer grant request", "err", err)
	}
}

// parsedGrantRequest is a grant request that is valid: every field the
// person will see, and exactly what a grant issued for it holds.
type parsedGrantRequest struct {
	GrantRequest
	sub key.PublicKey
	on  []key.PublicKey // nil: no "on"; non-nil (maybe empty): "on" as asked
	ttl time.Duration
}

// parseGrantRequest reads a grant request's data strictly
// (docs/protocol/grants.md): the person approves exactly what they see, or the
// request is refused. caps a non-empty array of non-empty strings; sub (if
// present) a key; on (if present) an array of keys (one that is not a key makes
// the request invalid: it is not dropped, which would widen the grant; an empty
// array stays empty: honored nowhere, unlike no "on"); ttl (if present) whole
// seconds up to MaxGrantTTL; reason a string. From is the requester (the
// default sub).
func parseGrantRequest(data json.RawMessage, from key.PublicKey) (*parsedGrantRequest, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil || m == nil {
		return nil, errors.New("malformed grant request: not a JSON object")
	}
	if _, err := wire.Canonical(data); err != nil {
		return nil, errors.New("malformed grant request: duplicate keys or a number that is not an integer")
	}
	r := &parsedGrantRequest{sub: from}
	var caps []*string
	if json.Unmarshal(m["caps"], &caps) != nil || len(caps) == 0 {
		return nil, errors.New("malformed grant request: caps is not a non-empty array of strings")
	}
	for i, c := range caps {
		if c == nil || *c == "" {
			return nil, fmt.Errorf("malformed grant request: caps[%d] is not a non-empty string", i)
		}
		r.Caps = append(r.Caps, *c)
	}
	if raw, ok := m["sub"]; ok {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, errors.New("malformed grant request: sub is not a string")
		}
		k, err := key.ParsePublic(s)
		if err != nil || k.IsZero() {
			return nil, errors.New("malformed grant request: sub is not a key")
		}
		r.sub = k
	}
	r.Sub = r.sub.String()
	if raw, ok := m["on"]; ok {
		var on []*string
		if json.Unmarshal(raw, &on) != nil || on == nil {
			return nil, errors.New("malformed grant request: on is not an array of keys")
		}
		r.On, r.on = []string{}, []key.PublicKey{}
		for i, s := range on {
			var k key.PublicKey
			var err error
			if s != nil {
				k, err = key.ParsePublic(*s)
			}
			if s == nil || err != nil || k.IsZero() {
				return nil, fmt.Errorf("malformed grant request: on[%d] is not a key", i)
			}
			r.On, r.on = append(r.On, *s), append(r.on, k)
		}
	}
	if raw, ok := m["ttl"]; ok {
		if json.Unmarshal(raw, &r.TTL) != nil || r.TTL < 0 || time.Duration(r.TTL) > MaxGrantTTL/time.Second {
			return nil, fmt.Errorf("malformed grant request: ttl is not a number of seconds from 0 to %d", int64(MaxGrantTTL/time.Second))
		}
	}
	if r.TTL == 0 {
		r.TTL = int64(DefaultGrantTTL / time.Second)
	}
	r.ttl = time.Duration(r.TTL) * time.Second
	if raw, ok := m["reason"]; ok && json.Unmarshal(raw, &r.Reason) != nil {
		return nil, errors.New("malformed grant request: reason is not a string")
	}
	return r, nil
}

// onGrantRequest checks a grant request; a valid one goes to the Approver
// (on its own goroutine) and is answered with the grant or a denial.
func (n *Node) onGrantRequest(j *reqJob) {
	s, m := j.s, j.m
	gr, err := parseGrantRequest(j.data, s.peer)
	if err != nil {
		n.log.Info("grant request refused unseen", "peer", s.peer.Short(), "why", err)
		n.goTracked(func() { n.answerGrantRequest(j, MimeGrantDenied, GrantDenied{Reason: err.Error()}) })
		return
	}
	n.goTracked(func() {
		d := n.askApproval(ApprovalRequest{Kind: ApprovalGrantRequest, From: s.peer, FromName: s.hello.Name,
			Sub: gr.sub, Caps: gr.Caps, On: gr.on, Th: m.Th, ReqID: m.ID, Detail: j.data, Reason: gr.Reason, TTL: gr.TTL}, time.Time{})
		if !d.Allow {
			reason := d.Reason
			if reason == "" {
				reason = "denied by " + d.By
			}
			n.answerGrantRequest(j, MimeGrantDenied, GrantDenied{Reason: reason})
			return
		}
		ttl := gr.ttl
		if d.For > 0 {
			ttl = d.For // the person chose another lifetime
		}
		g, err := n.signGrant(gr.sub, gr.Caps, ttl, gr.on, gr.Reason)
		if err != nil {
			n.answerGrantRequest(j, MimeGrantDenied, GrantDenied{Reason: err.Error()})
			return
		}
		n.answerGrantRequest(j, MimeGrant, json.RawMessage(g.Raw))
	})
}

// issueGrant signs a grant for sub, stores it and sends it to sub in a msg:
// in thread th when it answers a request there, else in a new thread.
func (n *Node) issueGrant(ctx context.Context, sub key.PublicKey, caps []string, ttl time.Duration, on []key.PublicKey, note, th string) (*grant.Grant, error) {
	g, err := n.signGrant(sub, caps, ttl, on, note)
	if err != nil {
		return nil, err
	}
	part, err := wire.DataPart(MimeGrant, g.Raw)
	if err != nil {
		return nil, err
	}
	r := SendRequest{To: sub, Th: th, Parts: []json.RawMessage{part}}
	if th == "" {
		r.Th, r.Subject = n.requestThread(sub)
	}
	if _, err := n.Send(ctx, r); err != nil {
		return nil, err
	}
	return g, nil
}

// Grant signs a grant of caps to key to, valid for ttl (and only on the
// given peers when on is not empty), stores it and sends it to to.
func (n *Node) Grant(ctx context.Context, to key.PublicKey, caps []string, ttl time.Duration, on []key.PublicKey, note string) (json.RawMessage, error) {
	if err := n.checkPeer(to); err != nil {
		return nil, err
	}
	if len(caps) == 0 || ttl <= 0 {
		return nil, errors.New("peer: grant: needs caps and a positive ttl")
	}
	for _, o := range on {
		if o.IsZero() {
			return nil, fmt.Errorf("%w: on: no key", ErrBadKey)
		}
	}
	g, err := n.issueGrant(ctx, to, caps, ttl, on, note, "")
	if err != nil {
		return nil, wrapOp("grant", err)
	}
	return g.Raw, nil
}
