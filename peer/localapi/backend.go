package localapi

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"time"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/profile"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// Backend is what a running node offers its front ends, whole: the local
// API serves it, the tray app's windows use it (in their own process,
// through Remote), and *peer.Node implements it. It is the one contract
// between the node and its users (docs/NODE-API.md): nothing in it is
// optional, and a front end never asks a Backend for more by a type
// assertion. It is an interface so front ends build and are tested
// without a node (localapitest.Fake implements it too).
type Backend interface {
	// Key is the node's public key.
	Key() key.PublicKey
	// Name is the node's display name.
	Name() string
	// ListenAddrs are the bound listen addresses, ports resolved.
	ListenAddrs() []string
	// Workspace is the directory requests are confined to ("": not said).
	Workspace() string
	// DataDir is the node's data directory, which no request reaches.
	DataDir() string
	// Connect dials addr, keeps the connection up and returns the peer's
	// key after the handshake.
	Connect(ctx context.Context, addr string) (key.PublicKey, error)

	// Send queues one msg durably.
	Send(ctx context.Context, r peer.SendRequest) (peer.SendResult, error)
	// SetState queues a state line for thread th.
	SetState(ctx context.Context, th, state, note string) (peer.SendResult, error)
	// Threads lists threads, newest activity first.
	Threads() ([]peer.ThreadInfo, error)
	// Thread returns one thread's summary; from is the sharer's key for a
	// mirrored thread, the zero key for one of mine.
	Thread(th string, from key.PublicKey) (peer.ThreadInfo, error)
	// Lines returns a thread's lines in order.
	Lines(th string, from key.PublicKey) ([]peer.LineInfo, error)
	// LinesAfter returns up to limit lines after seq after (limit 0: all).
	LinesAfter(th string, from key.PublicKey, after uint64, limit int) ([]peer.LineInfo, error)
	// LinesLast returns the last n lines of a thread, in order, read from
	// its end (the cost is n lines, not the thread).
	LinesLast(th string, from key.PublicKey, n int) ([]peer.LineInfo, error)
	// MarkRead marks a thread's lines read.
	MarkRead(th string, from key.PublicKey) error

	// Peers lists known peers.
	Peers() ([]peer.PeerInfo, error)
	// Trust adds k to the trust list, or removes it.
	Trust(k key.PublicKey, trusted bool) error
	// Blobs lists blobs received and sent.
	Blobs() ([]peer.BlobInfo, error)
	// OpenBlob opens a complete, intact blob.
	OpenBlob(from key.PublicKey, ref string) (io.ReadCloser, peer.BlobInfo, error)
	// Subscribe registers an event subscriber with a buffer of buf events;
	// a subscriber that falls behind loses events, it never blocks the node.
	Subscribe(buf int) (events <-chan peer.Event, cancel func())

	// Pending lists requests waiting for a decision.
	Pending() []peer.ApprovalRequest
	// Decide answers a pending request.
	Decide(id string, d peer.Decision) error
	// ApprovalHistory lists the requests decided since the node started,
	// newest first (allowed, denied, timed out, refused unseen).
	ApprovalHistory() []peer.ApprovalRecord
	// Grant signs a grant of caps to to, valid for ttl (only on the peers
	// in on when it is not empty), stores it, sends it to to in a msg and
	// returns the grant object.
	Grant(ctx context.Context, to key.PublicKey, caps []string, ttl time.Duration, on []key.PublicKey, note string) (json.RawMessage, error)
	// Grants lists stored grants, issued and received.
	Grants() ([]peer.GrantInfo, error)
	// RevokeGrant stops honoring a stored grant.
	RevokeGrant(id string) error
	// Request sends a profile request (mime: profile.MimeExec, MimeRead or
	// MimeWrite) and waits for the result part's data; an err line answering
	// it comes back as a *wire.Err.
	Request(ctx context.Context, to key.PublicKey, mime string, data json.RawMessage, th string) (json.RawMessage, error)

	// Presence lists the newest presence document per other origin.
	Presence() []peer.PresenceInfo
	// PresenceDetail is what this node publishes: full, peers or none.
	PresenceDetail() string
	// SetPresenceDetail changes it.
	SetPresenceDetail(d string) error

	// MirrorHosts are the hosts this node mirrors its threads to.
	MirrorHosts() []key.PublicKey
	// SetMirrorHosts replaces them.
	SetMirrorHosts(hosts []key.PublicKey) error
	// SetMirror switches mirroring of one of my threads on or off.
	SetMirror(th string, on bool) error
	// SetPrivate sends a private line for thread th (from: the sharer of a
	// thread mirrored to me, the zero key for my own thread).
	SetPrivate(th string, from key.PublicKey) (peer.SendResult, error)

	// Invite is this peer's invite line.
	Invite() string
	// AddInvite records the peer an invite describes and dials it; the key
	// is returned (non-zero) with the error when the peer was recorded but
	// could not be reached.
	AddInvite(ctx context.Context, invite string) (key.PublicKey, error)

	// ExecSandbox says how exec runs now (docs/profile.md "Exec sandbox").
	ExecSandbox() profile.SandboxStatus
	// SetExecSandbox changes the mode (auto, bwrap or none) and stores it.
	SetExecSandbox(mode string) error

	// Retention is how long threads and blobs of closed threads are kept
	// (docs/cli.md "Retention and compaction"; zero: forever).
	Retention() (peer.Retention, error)
	// SetRetention stores a new setting; a sweep follows soon.
	SetRetention(r peer.Retention) error
}

// The node is the Backend.
var _ Backend = (*peer.Node)(nil)

// Identity is what GET /v0/id returns: who the running peer is and where
// it listens.
type Identity struct {
	Key    key.PublicKey `json:"key"`
	Name   string        `json:"name"`
	Listen []string      `json:"listen"`
	// Workspace and DataDir say where requests are confined and what they
	// never reach (the Approvals window marks a path the node will refuse).
	Workspace string `json:"workspace,omitempty"`
	DataDir   string `json:"data_dir,omitempty"`
}

// The request bodies of the POST endpoints.
type (
	connectRequest struct {
		Addr string `json:"addr"`
	}
	connectResponse struct {
		Key key.PublicKey `json:"key"`
	}
	stateRequest struct {
		Th    string `json:"th"`
		State string `json:"state"`
		Note  string `json:"note,omitempty"`
	}
	readRequest struct {
		Th   string        `json:"th"`
		From key.PublicKey `json:"from,omitzero"`
	}
	trustRequest struct {
		Key     key.PublicKey `json:"key"`
		Trusted bool          `json:"trusted"`
	}
	decideRequest struct {
		ID       string        `json:"id"`
		Decision peer.Decision `json:"decision"`
	}
	// GrantRequest is the body of POST /v0/grant. TTL is a Go duration
	// ("90s", "1h").
	GrantRequest struct {
		To   key.PublicKey   `json:"to"`
		Caps []string        `json:"caps"`
		TTL  string          `json:"ttl"`
		On   []key.PublicKey `json:"on,omitempty"`
		Note string          `json:"note,omitempty"`
	}
	revokeRequest struct {
		ID string `json:"id"`
	}
	// ProfileRequest is the body of POST /v0/request: Data is the request's
	// data object, Th an optional thread.
	ProfileRequest struct {
		To   key.PublicKey   `json:"to"`
		Mime string          `json:"mime"`
		Data json.RawMessage `json:"data"`
		Th   string          `json:"th,omitempty"`
	}
	detailBody struct {
		Detail string `json:"detail"`
	}
	hostsBody struct {
		Hosts []key.PublicKey `json:"hosts"`
	}
	mirrorRequest struct {
		Th string `json:"th"`
		On bool   `json:"on"`
	}
	privateRequest struct {
		Th   string        `json:"th"`
		From key.PublicKey `json:"from,omitzero"`
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
		Key key.PublicKey `json:"key,omitzero"`
	}
)

// blobHeader carries the BlobInfo of GET /v0/blob as JSON.
const blobHeader = "Awp-Blob"

// SocketName is the control socket's file name inside the data directory.
const SocketName = "awp.sock"

// SocketPath returns the control socket's path for a data directory.
func SocketPath(dataDir string) string { return filepath.Join(dataDir, SocketName) }
