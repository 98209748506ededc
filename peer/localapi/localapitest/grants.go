package localapitest

import (
	"context"
	"encoding/json"
	"time"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

// The fake's approvals, grants and profile requests.

// Pending implements localapi.Backend.
func (f *Fake) Pending() []peer.ApprovalRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.PendingList
}

// ApprovalHistory implements localapi.Backend.
func (f *Fake) ApprovalHistory() []peer.ApprovalRecord {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.History
}

// Decide implements localapi.Backend.
func (f *Fake) Decide(id string, d peer.Decision) error {
	return f.change(func() {
		if f.Decisions == nil {
			f.Decisions = map[string]peer.Decision{}
		}
		f.Decisions[id] = d
	})
}

// GrantCall is one recorded Grant.
type GrantCall struct {
	To   key.PublicKey
	Caps []string
	TTL  time.Duration
	On   []key.PublicKey
	Note string
}

// RequestCall is one recorded Request.
type RequestCall struct {
	To   key.PublicKey
	Mime string
	Data json.RawMessage
	Th   string
}

// Grant implements localapi.Backend.
func (f *Fake) Grant(ctx context.Context, to key.PublicKey, caps []string, ttl time.Duration, on []key.PublicKey, note string) (json.RawMessage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Err != nil {
		return nil, f.Err
	}
	f.Granted = append(f.Granted, GrantCall{To: to, Caps: caps, TTL: ttl, On: on, Note: note})
	return f.GrantRaw, nil
}

// Grants implements localapi.Backend.
func (f *Fake) Grants() ([]peer.GrantInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.GrantList, f.Err
}

// RevokeGrant implements localapi.Backend.
func (f *Fake) RevokeGrant(id string) error {
	return f.change(func() { f.Revoked = append(f.Revoked, id) })
}

// Request implements localapi.Backend.
func (f *Fake) Request(ctx context.Context, to key.PublicKey, mime string, data json.RawMessage, th string) (json.RawMessage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Err != nil {
		return nil, f.Err
	}
	f.Requests = append(f.Requests, RequestCall{To: to, Mime: mime, Data: data, Th: th})
	if f.RequestErr != nil {
		return nil, f.RequestErr
	}
	return f.RequestResult, nil
}
