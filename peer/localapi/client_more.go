package localapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

// Grant signs a grant and sends it to r.To; it returns the grant object
// as the peer signed it.
func (c *Client) Grant(ctx context.Context, r GrantRequest) (json.RawMessage, error) {
	return callFor[json.RawMessage](c, ctx, "grant", http.MethodPost, "/v0/grant", nil, r)
}

// Grants lists the stored grants, issued and received.
func (c *Client) Grants(ctx context.Context) ([]peer.GrantInfo, error) {
	return callList[peer.GrantInfo](c, ctx, "grants", http.MethodGet, "/v0/grants", nil, nil)
}

// RevokeGrant stops the peer honoring the stored grant id.
func (c *Client) RevokeGrant(ctx context.Context, id string) error {
	return c.call(ctx, "revoke", http.MethodPost, "/v0/revoke", nil, revokeRequest{ID: id}, nil)
}

// Request sends a profile request through the peer and waits for the
// result part's data, as long as ctx allows. When the other peer answers
// with an err line, the error is a *RemoteError from which errors.As
// extracts the *wire.Err.
func (c *Client) Request(ctx context.Context, r ProfileRequest) (json.RawMessage, error) {
	return callFor[json.RawMessage](c, ctx, "request", http.MethodPost, "/v0/request", nil, r)
}

// Presence lists the peer's presence table, each doc byte for byte.
func (c *Client) Presence(ctx context.Context) ([]peer.PresenceInfo, error) {
	return callList[peer.PresenceInfo](c, ctx, "presence", http.MethodGet, "/v0/presence", nil, nil)
}

// PresenceDetail returns what the peer publishes: full, peers or none.
func (c *Client) PresenceDetail(ctx context.Context) (string, error) {
	var res detailBody
	err := c.call(ctx, "presence detail", http.MethodGet, "/v0/presence/detail", nil, nil, &res)
	return res.Detail, err
}

// SetPresenceDetail changes what the peer publishes.
func (c *Client) SetPresenceDetail(ctx context.Context, d string) error {
	return c.call(ctx, "presence detail", http.MethodPost, "/v0/presence/detail", nil, detailBody{Detail: d}, nil)
}

// MirrorHosts returns the hosts the peer mirrors its threads to.
func (c *Client) MirrorHosts(ctx context.Context) ([]key.PublicKey, error) {
	return callList[key.PublicKey](c, ctx, "mirror hosts", http.MethodGet, "/v0/mirror/hosts", nil, nil)
}

// SetMirrorHosts replaces the mirror hosts (none: mirror nowhere) and
// returns the hosts now set.
func (c *Client) SetMirrorHosts(ctx context.Context, hosts []key.PublicKey) ([]key.PublicKey, error) {
	return callList[key.PublicKey](c, ctx, "mirror hosts", http.MethodPost, "/v0/mirror/hosts", nil, hostsBody{Hosts: nonNil(hosts)})
}

// SetMirror switches mirroring of the peer's thread th on or off.
func (c *Client) SetMirror(ctx context.Context, th string, on bool) error {
	return c.call(ctx, "mirror", http.MethodPost, "/v0/mirror", nil, mirrorRequest{Th: th, On: on}, nil)
}

// SetPrivate sends a private line for thread th: from is the sharer of a
// thread mirrored to the peer, the zero key for one of its own.
func (c *Client) SetPrivate(ctx context.Context, th string, from key.PublicKey) (peer.SendResult, error) {
	return callFor[peer.SendResult](c, ctx, "private", http.MethodPost, "/v0/private", nil, privateRequest{Th: th, From: from})
}

// Invite returns the peer's invite line.
func (c *Client) Invite(ctx context.Context) (string, error) {
	var res inviteBody
	err := c.call(ctx, "invite", http.MethodGet, "/v0/invite", nil, nil, &res)
	return res.Invite, err
}

// AddInvite asks the peer to add the peer an invite describes and connect
// to it; it returns that peer's key. When the peer was recorded but could
// not be reached, the key comes back with the error (the running peer
// keeps dialing it).
func (c *Client) AddInvite(ctx context.Context, invite string) (key.PublicKey, error) {
	var res connectResponse
	err := c.call(ctx, "add", http.MethodPost, "/v0/add", nil, inviteBody{Invite: invite}, &res)
	var re *RemoteError
	if errors.As(err, &re) {
		return re.Key, err
	}
	return res.Key, err
}
