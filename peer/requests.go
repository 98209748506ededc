package peer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/awp-tray/awp-tray/peer/grant"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/profile"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// Mime types of grant requests and their answers (NOTES §5).
const (
	MimeGrant        = grant.Mime
	MimeGrantRequest = "application/vnd.awp.grant-request+json"
	MimeGrantDenied  = "application/vnd.awp.grant-denied+json"
)

// GrantRequest is the data of a grant request (NOTES §5).
type GrantRequest struct {
	Caps   []string `json:"caps"`
	Sub    string   `json:"sub,omitempty"`
	On     []string `json:"on,omitempty"`
	TTL    int64    `json:"ttl,omitempty"`
	Reason string   `json:"reason,omitempty"`
}

// answer is what a request this node sent got back.
type answer struct {
	mime string
	data json.RawMessage
	err  *wire.Err
}

// requestWaiters maps the id of a request this node sent to its waiter.
type requestWaiters map[string]chan answer

func grantID(raw []byte) string {
	h := sha256.Sum256(raw)
	return "g_" + hex.EncodeToString(h[:12])
}

// MaxLooseGrants bounds the received grants kept that are neither for this
// node, nor from it, nor from a key it trusts (a grant from an introduced
// issuer, kept so a later request need not attach it): such a grant is
// stored only while fewer than this many grants are held. Anyone can sign
// grants, and every request checks the stored ones, so without a bound a
// peer could flood the store and slow every request.
const MaxLooseGrants = 4096

// grantRoom is how many more loose grants one message may store: counted
// once, on its first loose grant (-1 until then).
type grantRoom int

// storeGrantRaw stores a received grant whose signature verifies and that
// has not expired; anything else is ignored, and so is a loose grant (see
// MaxLooseGrants) when room is used up.
func (n *Node) storeGrantRaw(tx *store.Tx, raw json.RawMessage, now time.Time, room *grantRoom) {
	if len(raw) == 0 || string(raw) == "null" {
		return
	}
	g, err := grant.Parse(raw)
	if err != nil || g.Expired(now) {
		return
	}
	id := grantID(g.Raw)
	if _, ok := tx.Grant(id); ok {
		return
	}
	loose := g.Sub != n.pub && g.Iss != n.pub
	if loose {
		if p, ok := tx.Peer(g.Iss); ok && p.Trusted {
			loose = false
		}
	}
	if loose {
		if *room < 0 {
			*room = grantRoom(max(MaxLooseGrants-tx.GrantCount(), 0))
		}
		if *room == 0 {
			return // before the signature check: a flood costs no verifying
		}
	}
	if g.Verify() != nil {
		return
	}
	if loose {
		*room--
	}
	_ = tx.PutGrant(&store.GrantRec{ID: id, Raw: g.Raw, Exp: g.Exp, Issued: g.Iss == n.pub, Stored: now})
}

// inspectMsg looks at a received msg for grants, grant requests, profile
// requests and answers to this node's own requests. Work that must wait
// for the commit (running a request) goes into res.after.
func (n *Node) inspectMsg(tx *store.Tx, s *session, m *wire.Msg, res *inResult) {
	now := n.now()
	var afters []func()
	room := grantRoom(-1)
	for _, p := range m.DecodeParts() {
		if p.K != wire.PartData {
			continue
		}
		switch {
		case p.Mime == MimeGrant:
			n.storeGrantRaw(tx, p.Data, now, &room)
			if m.Re != "" {
				n.deliverAnswer(m.Re, answer{mime: p.Mime, data: p.Data})
			}
		case p.Mime == MimeGrantDenied && m.Re != "":
			n.deliverAnswer(m.Re, answer{mime: p.Mime, data: p.Data})
		case p.Mime == MimeGrantRequest:
			data := p.Data
			afters = append(afters, func() { n.onGrantRequest(s, m, data) })
		case profile.Cap(p.Mime) != "":
			mime, data := p.Mime, p.Data
			// Grants attached to a request are stored like any other.
			if gs, err := grant.Attached(data); err == nil {
				for _, g := range gs {
					n.storeGrantRaw(tx, g.Raw, now, &room)
				}
			}
			afters = append(afters, func() { n.onProfileRequest(s, m, mime, data) })
		case isResultMime(p.Mime) && m.Re != "":
			n.deliverAnswer(m.Re, answer{mime: p.Mime, data: p.Data})
		}
	}
	if len(afters) > 0 {
		res.after = func() {
			for _, f := range afters {
				n.goTracked(f)
			}
		}
	}
}

// goTracked runs f on a goroutine that Close waits for.
func (n *Node) goTracked(f func()) {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return
	}
	n.wg.Add(1)
	n.mu.Unlock()
	go func() {
		defer n.wg.Done()
		f()
	}()
}

// onRemoteErr delivers an err line that answers one of this node's requests.
func (n *Node) onRemoteErr(s *session, e *wire.Err) {
	if e.Re != "" {
		n.deliverAnswer(e.Re, answer{err: e})
	}
}

func (n *Node) deliverAnswer(re string, a answer) {
	n.mu.Lock()
	ch := n.waiters[re]
	delete(n.waiters, re)
	n.mu.Unlock()
	if ch != nil {
		ch <- a
	}
}

// checker is the honor rule bound to this node's trust list.
func (n *Node) checker(tx *store.Tx) grant.Checker {
	trusted := map[key.PublicKey]bool{}
	tx.Peers(func(p *store.Peer) bool {
		if p.Trusted {
			if k, err := key.ParsePublic(p.Key); err == nil {
				trusted[k] = true
			}
		}
		return true
	})
	return grant.Checker{Self: n.pub, Trusted: func(k key.PublicKey) bool { return trusted[k] }, Now: n.now}
}

// storedGrants returns the stored grants that are not revoked or expired.
func (n *Node) storedGrants(tx *store.Tx) (gs []*grant.Grant, revoked map[string]bool) {
	now := n.now()
	revoked = map[string]bool{}
	tx.Grants(func(r *store.GrantRec) bool {
		if r.Revoked {
			revoked[r.ID] = true
			return true
		}
		if !now.Before(r.Exp) {
			return true
		}
		if g, err := grant.Parse(r.Raw); err == nil {
			gs = append(gs, g)
		}
		return true
	})
	return gs, revoked
}

// honored applies the honor rule to a request from k for capability c with
// the grants attached to it and those stored.
func (n *Node) honored(k key.PublicKey, c string, data json.RawMessage) (bool, string) {
	attached, err := grant.Attached(data)
	if err != nil {
		return false, "attached grant malformed: " + err.Error()
	}
	var ok bool
	var why string
	_ = n.db.View(func(tx *store.Tx) error {
		stored, revoked := n.storedGrants(tx)
		all := stored
		for _, g := range attached {
			if !revoked[grantID(g.Raw)] {
				all = append(all, g)
			}
		}
		ok, why = n.checker(tx).Honors(k, c, all)
		return nil
	})
	return ok, why
}

// onProfileRequest checks a profile request against grants (asking the
// Approver when none is honored) and runs it.
func (n *Node) onProfileRequest(s *session, m *wire.Msg, mime string, data json.RawMessage) {
	c := profile.Cap(mime)
	ok, why := n.honored(s.peer, c, data)
	if !ok {
		req := ApprovalRequest{Kind: ApprovalProfile, From: s.peerS, FromName: s.hello.Name, Sub: s.peerS,
			Caps: []string{c}, On: []string{n.pub.String()}, Th: m.Th, ReqID: m.ID, Detail: data, Reason: why}
		d := n.askApproval(req)
		if !d.Allow {
			reason := c + " needs a grant (" + why + ")"
			if d.Reason != "" {
				reason += ": " + d.Reason
			}
			n.log.Info("request refused", "peer", s.peer.Short(), "cap", c, "why", why, "by", d.By)
			s.sendErr(wire.CodeForbidden, reason, m.ID, m.Th)
			return
		}
		if d.For > 0 {
			if _, err := n.issueGrant(context.Background(), s.peer, []string{c}, d.For, []key.PublicKey{n.pub}, "approved for "+d.For.String()); err != nil {
				n.log.Error("issue grant", "err", err)
			}
		}
	}
	n.runProfile(s, m, mime, data)
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
		// (docs/protocol/profile.md). Not err rate_limited or internal: those say the
		// line was not stored and will be sent again (SPEC §8), and this
		// line was stored and acked.
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
	defer res.Remove()
	part, err := wire.DataPart(res.Mime, res.Data)
	if err != nil {
		s.sendErr(wire.CodeInternal, "bad result", m.ID, m.Th)
		return
	}
	req := SendRequest{To: s.peerS, Th: m.Th, Re: m.ID, Parts: []json.RawMessage{part}}
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
		n.prof = &profile.Runner{Root: n.cfg.Workspace, Logger: n.log, TempDir: n.cfg.DataDir}
	})
	return n.prof
}

// onGrantRequest shows a grant request to the Approver and answers it.
func (n *Node) onGrantRequest(s *session, m *wire.Msg, data json.RawMessage) {
	var gr GrantRequest
	answer := func(mime string, v any) {
		b, _ := json.Marshal(v)
		part, _ := wire.DataPart(mime, b)
		if _, err := n.Send(n.ctx, SendRequest{To: s.peerS, Th: m.Th, Re: m.ID, Parts: []json.RawMessage{part}}); err != nil && !errors.Is(err, ErrClosed) {
			n.log.Error("answer grant request", "err", err)
		}
	}
	if err := json.Unmarshal(data, &gr); err != nil || len(gr.Caps) == 0 {
		answer(MimeGrantDenied, map[string]string{"reason": "malformed grant request"})
		return
	}
	sub := s.peer
	if gr.Sub != "" {
		k, err := key.ParsePublic(gr.Sub)
		if err != nil {
			answer(MimeGrantDenied, map[string]string{"reason": "bad sub"})
			return
		}
		sub = k
	}
	var on []key.PublicKey
	for _, o := range gr.On {
		if k, err := key.ParsePublic(o); err == nil {
			on = append(on, k)
		}
	}
	d := n.askApproval(ApprovalRequest{Kind: ApprovalGrantRequest, From: s.peerS, FromName: s.hello.Name,
		Sub: sub.String(), Caps: gr.Caps, On: gr.On, Th: m.Th, ReqID: m.ID, Detail: data, Reason: gr.Reason, TTL: gr.TTL})
	if !d.Allow {
		reason := d.Reason
		if reason == "" {
			reason = "denied by " + d.By
		}
		answer(MimeGrantDenied, map[string]string{"reason": reason})
		return
	}
	ttl := d.For
	if ttl == 0 {
		ttl = time.Duration(gr.TTL) * time.Second
	}
	if ttl <= 0 || ttl > 30*24*time.Hour {
		ttl = time.Hour
	}
	g, err := n.signGrant(sub, gr.Caps, ttl, on, gr.Reason)
	if err != nil {
		answer(MimeGrantDenied, map[string]string{"reason": err.Error()})
		return
	}
	answer(MimeGrant, g.Raw)
}

// signGrant signs a grant with this node's key and stores it as issued.
func (n *Node) signGrant(sub key.PublicKey, caps []string, ttl time.Duration, on []key.PublicKey, note string) (*grant.Grant, error) {
	g, err := grant.Sign(n.priv, sub, caps, n.now().Add(ttl), on, note)
	if err != nil {
		return nil, err
	}
	err = n.commit.run(func(tx *store.Tx) error {
		return tx.PutGrant(&store.GrantRec{ID: grantID(g.Raw), Raw: g.Raw, Exp: g.Exp, Issued: true, Stored: n.now()})
	})
	return g, err
}

// issueGrant signs a grant for sub, stores it and sends it to sub in a msg.
func (n *Node) issueGrant(ctx context.Context, sub key.PublicKey, caps []string, ttl time.Duration, on []key.PublicKey, note string) (*grant.Grant, error) {
	g, err := n.signGrant(sub, caps, ttl, on, note)
	if err != nil {
		return nil, err
	}
	part, err := wire.DataPart(MimeGrant, g.Raw)
	if err != nil {
		return nil, err
	}
	if _, err := n.Send(ctx, SendRequest{To: sub.String(), Subject: "grant: " + fmt.Sprint(caps), Parts: []json.RawMessage{part}}); err != nil {
		return nil, err
	}
	return g, nil
}

// Grant signs a grant of caps to key to, valid for ttl (and only on the
// given peers when on is not empty), stores it and sends it to to.
func (n *Node) Grant(ctx context.Context, to string, caps []string, ttl time.Duration, on []string, note string) (json.RawMessage, error) {
	k, err := n.parsePeer(to)
	if err != nil {
		return nil, err
	}
	if len(caps) == 0 || ttl <= 0 {
		return nil, errors.New("peer: grant: needs caps and a positive ttl")
	}
	var onKeys []key.PublicKey
	for _, o := range on {
		ok, err := key.ParsePublic(o)
		if err != nil {
			return nil, fmt.Errorf("%w: on: %v", ErrBadKey, err)
		}
		onKeys = append(onKeys, ok)
	}
	g, err := n.issueGrant(ctx, k, caps, ttl, onKeys, note)
	if err != nil {
		return nil, wrapOp("grant", err)
	}
	return g.Raw, nil
}

// GrantInfo is a stored grant for listings.
type GrantInfo struct {
	ID      string          `json:"id"`
	Grant   json.RawMessage `json:"grant"`
	Issued  bool            `json:"issued"`
	Revoked bool            `json:"revoked"`
	Expired bool            `json:"expired"`
	Exp     string          `json:"exp"`
}

// Grants lists stored grants (issued by me and received).
func (n *Node) Grants() ([]GrantInfo, error) {
	out := []GrantInfo{}
	now := n.now()
	err := n.db.View(func(tx *store.Tx) error {
		tx.Grants(func(r *store.GrantRec) bool {
			out = append(out, GrantInfo{ID: r.ID, Grant: r.Raw, Issued: r.Issued, Revoked: r.Revoked, Expired: !now.Before(r.Exp), Exp: wire.FormatTime(r.Exp)})
			return true
		})
		return nil
	})
	return out, err
}

// RevokeGrant stops honoring a stored grant on this node (the signed grant
// itself cannot be recalled).
func (n *Node) RevokeGrant(id string) error {
	return n.commit.run(func(tx *store.Tx) error {
		r, ok := tx.Grant(id)
		if !ok {
			return fmt.Errorf("peer: revoke: no grant %s", id)
		}
		r.Revoked = true
		return tx.PutGrant(r)
	})
}

// Request sends a profile request (mime one of profile.MimeExec, MimeRead,
// MimeWrite) to peer to, attaching every stored grant whose subject is this
// node and that covers the capability, and waits for the result part's data
// or the err line (returned as *wire.Err).
func (n *Node) Request(ctx context.Context, to, mime string, data json.RawMessage, th string) (json.RawMessage, error) {
	k, err := n.parsePeer(to)
	if err != nil {
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
	var mine []json.RawMessage
	_ = n.db.View(func(tx *store.Tx) error {
		gs, _ := n.storedGrants(tx)
		for _, g := range gs {
			if g.Sub == n.pub && (g.Has(c) || g.Has(grant.CapIntroduce)) && (g.On == nil || slices.Contains(g.On, k)) {
				mine = append(mine, g.Raw)
			}
		}
		// Introduce grants held by the issuers of mine help the honor rule.
		for _, g := range gs {
			if g.Has(grant.CapIntroduce) && g.Sub != n.pub {
				mine = append(mine, g.Raw)
			}
		}
		return nil
	})
	if len(mine) > 0 {
		if _, has := obj["grants"]; !has {
			b, _ := json.Marshal(mine)
			obj["grants"] = b
		}
	}
	data, _ = json.Marshal(obj)
	part, err := wire.DataPart(mime, data)
	if err != nil {
		return nil, err
	}
	if th == "" {
		th = wire.NewThread()
	}
	// Register the waiter before the msg can be answered: ids come from the
	// commit loop, so reserve it through a pre-registered channel keyed
	// after Send returns; answers cannot arrive before the msg is sent,
	// which needs the commit to finish first.
	ch := make(chan answer, 1)
	res, err := n.sendWithWaiter(ctx, SendRequest{To: k.String(), Th: th, Subject: c + " request", Parts: []json.RawMessage{part}}, ch)
	if err != nil {
		return nil, err
	}
	defer func() {
		n.mu.Lock()
		delete(n.waiters, res.ID)
		n.mu.Unlock()
	}()
	select {
	case a := <-ch:
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

// sendWithWaiter sends r and registers ch for answers to it before the
// sender can put it on the wire.
func (n *Node) sendWithWaiter(ctx context.Context, r SendRequest, ch chan answer) (SendResult, error) {
	n.mu.Lock()
	if n.waiters == nil {
		n.waiters = requestWaiters{}
	}
	n.mu.Unlock()
	r2 := r
	r2.waiter = ch
	return n.Send(ctx, r2)
}

func isResultMime(m string) bool {
	switch m {
	case profile.MimeExecResult, profile.MimeReadResult, profile.MimeWriteResult:
		return true
	}
	return false
}
