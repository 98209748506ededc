package localapi

import (
	"context"
	"encoding/json"
	"path/filepath"
	"time"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// Backend is the part of *peer.Node the local API serves. It is an
// interface so this package builds and is tested without a node; the
// methods and their meaning are those of docs/NODE-API.md.
type Backend interface {
	peer.Frontend

	// Grant signs a grant of caps to to, valid for ttl (only on the peers
	// in on when it is not empty), stores it, sends it to to in a msg and
	// returns the grant object.
	Grant(ctx context.Context, to string, caps []string, ttl time.Duration, on []string, note string) (json.RawMessage, error)
	// Grants lists stored grants, issued and received.
	Grants() ([]peer.GrantInfo, error)
	// RevokeGrant stops honoring a stored grant.
	RevokeGrant(id string) error
	// Request sends a profile request (mime: profile.MimeExec, MimeRead or
	// MimeWrite) and waits for the result part's data; an err line answering
	// it comes back as a *wire.Err.
	Request(ctx context.Context, to, mime string, data json.RawMessage, th string) (json.RawMessage, error)

	// Presence lists the newest presence document per other origin.
	Presence() []peer.PresenceInfo
	// PresenceDetail is what this node publishes: full, peers or none.
	PresenceDetail() string
	// SetPresenceDetail changes it.
	SetPresenceDetail(d string) error

	// MirrorHosts are the hosts this node mirrors its threads to.
	MirrorHosts() []string
	// SetMirrorHosts replaces them.
	SetMirrorHosts(hosts []string) error
	// SetMirror switches mirroring of one of my threads on or off.
	SetMirror(th string, on bool) error
	// SetPrivate sends a private line for thread th (from: the sharer of a
	// thread mirrored to me, "" for my own thread).
	SetPrivate(th, from string) (peer.SendResult, error)

	// Invite is this peer's invite line.
	Invite() string
	// AddInvite records the peer an invite describes and dials it; the key
	// is returned (non-zero) with the error when the peer was recorded but
	// could not be reached.
	AddInvite(ctx context.Context, invite string) (key.PublicKey, error)
}

// Identity is what GET /v0/id returns: who the running peer is and where
// it listens.
type Identity struct {
	Key    string   `json:"key"`
	Name   string   `json:"name"`
	Listen []string `json:"listen"`
}

// The request bodies of the POST endpoints.
type (
	connectRequest struct {
		Addr string `json:"addr"`
	}
	connectResponse struct {
		Key string `json:"key"`
	}
	stateRequest struct {
		Th    string `json:"th"`
		State string `json:"state"`
		Note  string `json:"note,omitempty"`
	}
	readRequest struct {
		Th   string `json:"th"`
		From string `json:"from,omitempty"`
	}
	trustRequest struct {
		Key     string `json:"key"`
		Trusted bool   `json:"trusted"`
	}
	decideRequest struct {
		ID       string        `json:"id"`
		Decision peer.Decision `json:"decision"`
	}
	// GrantRequest is the body of POST /v0/grant. TTL is a Go duration
	// ("90s", "1h").
	GrantRequest struct {
		To   string   `json:"to"`
		Caps []string `json:"caps"`
		TTL  string   `json:"ttl"`
		On   []string `json:"on,omitempty"`
		Note string   `json:"note,omitempty"`
	}
	revokeRequest struct {
		ID string `json:"id"`
	}
	// ProfileRequest is the body of POST /v0/request: Data is the request's
	// data object, Th an optional thread.
	ProfileRequest struct {
		To   string          `json:"to"`
		Mime string          `json:"mime"`
		Data json.RawMessage `json:"data"`
		Th   string          `json:"th,omitempty"`
	}
	detailBody struct {
		Detail string `json:"detail"`
	}
	hostsBody struct {
		Hosts []string `json:"hosts"`
	}
	mirrorRequest struct {
		Th string `json:"th"`
		On bool   `json:"on"`
	}
	privateRequest struct {
		Th   string `json:"th"`
		From string `json:"from,omitempty"`
	}
	inviteBody struct {
		Invite string `json:"invite"`
	}
	errorBody struct {
		Error string `json:"error"`
		Code  string `json:"code"`
		// Err is the err line that answered a profile request (code peer_err).
		Err *wire.Err `json:"err,omitempty"`
		// Key is the peer an invite named when adding it failed after it
		// was recorded.
		Key string `json:"key,omitempty"`
	}
)

// blobHeader carries the BlobInfo of GET /v0/blob as JSON.
const blobHeader = "Awp-Blob"

// SocketName is the control socket's file name inside the data directory.
const SocketName = "awp.sock"

// SocketPath returns the control socket's path for a data directory.
func SocketPath(dataDir string) string { return filepath.Join(dataDir, SocketName) }
