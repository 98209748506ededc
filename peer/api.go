package peer

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
)

// This file holds the node's public API types: what the local API, the
// command line, the tray app and notifications see. They are domain types,
// apart from the wire types in peer/wire. JSON names follow docs/protocol/cli.md.
//
// Keys are key.PublicKey, written in JSON as the "ed25519:…" text they
// always were; a zero key is "" where the field is always written, and the
// field is left out (omitzero) where it was left out when empty.
// GrantRequest stays in strings: it is the data a peer sends, which the node
// parses strictly itself (parseGrantRequest) and the app shows as it came.

// ThreadInfo is one thread as listed by Node.Threads.
type ThreadInfo struct {
	Th           string        `json:"th"`
	Peer         key.PublicKey `json:"peer"`                   // the other party's key
	PeerName     string        `json:"peer_name,omitempty"`    // its display name, when known
	Subject      string        `json:"subject"`                // first subject seen
	Mine         string        `json:"mine"`                   // my last declared state ("" if none)
	Theirs       string        `json:"theirs"`                 // their last declared state
	Unread       int           `json:"unread"`                 // inbound lines not yet read (state lines do not count)
	Updated      string        `json:"updated"`                // RFC 3339 time of the newest line
	Lines        int           `json:"lines"`                  // number of lines stored
	LastText     string        `json:"last_text,omitempty"`    // newest text, for previews
	LastFrom     key.PublicKey `json:"last_from,omitzero"`     // key of who wrote last_text
	MirroredFrom key.PublicKey `json:"mirrored_from,omitzero"` // set on a thread mirrored to me by a sharer
	Mirror       bool          `json:"mirror"`                 // I mirror this thread to my hosts
	Private      bool          `json:"private"`                // mirroring stopped for good (private)
	Withdrawn    bool          `json:"withdrawn,omitempty"`    // a mirrored thread the sharer withdrew
}

// LineInfo is one stored line of a thread, as `awp show --json` prints it.
type LineInfo struct {
	Dir          string          `json:"dir"`  // "in" or "out"
	From         key.PublicKey   `json:"from"` // the key that sent the line
	Line         json.RawMessage `json:"line"` // the line as on the wire
	Acked        bool            `json:"acked"`
	MirroredFrom key.PublicKey   `json:"mirrored_from,omitzero"`
	Seq          uint64          `json:"seq"`              // position in the thread, from 1
	Stored       string          `json:"stored,omitempty"` // when this node stored it
}

// PeerInfo is one known peer.
type PeerInfo struct {
	Key          key.PublicKey `json:"key"`
	Name         string        `json:"name"`
	About        string        `json:"about,omitempty"`
	Up           bool          `json:"up"`
	Trusted      bool          `json:"trusted"`
	IntroducedBy key.PublicKey `json:"introduced_by,omitzero"`
	Listen       []string      `json:"listen"`
	Caps         []string      `json:"caps,omitempty"`
	RTTms        int64         `json:"rtt,omitempty"`
	LastSeen     string        `json:"last_seen,omitempty"` // when its last session ended, or began while it is up (to a minute)
	Dialed       string        `json:"dialed,omitempty"`    // address this node keeps dialing
	Invited      bool          `json:"invited,omitempty"`   // the person added its invite
}

// BlobInfo is one blob received or sent. Received counts bytes stored so far.
type BlobInfo struct {
	Ref        string        `json:"ref"`
	From       key.PublicKey `json:"from"`
	Th         string        `json:"th"`
	Name       string        `json:"name"`
	Mime       string        `json:"mime"`
	Size       int64         `json:"size"`
	Received   int64         `json:"received"` // bytes stored so far
	ReceivedAt string        `json:"received_at,omitempty"`
	Complete   bool          `json:"complete"`
	Corrupt    bool          `json:"corrupt"`
	Reason     string        `json:"reason,omitempty"` // why it is corrupt, or was refused or dropped
	Sha256     string        `json:"sha256,omitempty"`
	Dir        string        `json:"dir"` // "in" or "out"
}

// State says where the blob stands, for people: "corrupt", "complete" or
// "incomplete (N of M bytes)".
func (b BlobInfo) State() string {
	switch {
	case b.Corrupt:
		return "corrupt"
	case b.Complete:
		return "complete"
	}
	return fmt.Sprintf("incomplete (%d of %d bytes)", b.Received, b.Size)
}

// BlobFile names a local file to send as a blob part.
type BlobFile struct {
	Path string `json:"path"`
	Name string `json:"name,omitempty"` // default: base name of Path
	Mime string `json:"mime,omitempty"` // default: by extension, else application/octet-stream
}

// LocalBlobFile is the BlobFile for path as the caller names it: made
// absolute against the caller's working directory, since the node reads
// the file itself, perhaps from another one, and checked to be a regular
// file now rather than when the node gets to it.
func LocalBlobFile(path string) (BlobFile, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return BlobFile{}, fmt.Errorf("%s: %w", path, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return BlobFile{}, err
	}
	if !fi.Mode().IsRegular() {
		return BlobFile{}, fmt.Errorf("%s is not a regular file", path)
	}
	return BlobFile{Path: abs}, nil
}

// SendRequest is one msg to queue. Parts are wire parts (json objects with
// "k"); Blobs are appended as blob parts and their chunks follow.
type SendRequest struct {
	To      key.PublicKey     `json:"to"`
	Th      string            `json:"th,omitempty"` // empty: a new thread
	Subject string            `json:"subject,omitempty"`
	Re      string            `json:"re,omitempty"`
	Parts   []json.RawMessage `json:"parts,omitempty"`
	Blobs   []BlobFile        `json:"blobs,omitempty"`

	waiter *waiter // answers to this msg (Request)
}

// SendResult names the queued line.
type SendResult struct {
	ID string `json:"id"`
	Th string `json:"th"`
}

// Event types published to subscribers.
const (
	EventLine         = "line"          // a content line stored (in or out); Line set
	EventAck          = "ack"           // the peer acknowledged lines of Th up to Of
	EventPeerUp       = "peer_up"       // a session finished its handshake
	EventPeerDown     = "peer_down"     // a session ended
	EventThread       = "thread"        // thread metadata changed (state, unread, toggles)
	EventBlob         = "blob"          // blob progress or completion; Blob set
	EventPresence     = "presence"      // the presence table changed
	EventApproval     = "approval"      // a request waits for a decision; Approval set
	EventApprovalDone = "approval_done" // that request was decided or timed out
	EventDialError    = "dial_error"    // a dial failed; Err set
	EventSettings     = "settings"      // node settings changed
)

// Event is one notification to subscribers (the UI, notify, `awp watch`).
type Event struct {
	Type     string           `json:"type"`
	Time     string           `json:"time"`
	Peer     key.PublicKey    `json:"peer,omitzero"`
	PeerName string           `json:"peer_name,omitempty"`
	Th       string           `json:"th,omitempty"`
	Of       string           `json:"of,omitempty"`
	Line     *LineInfo        `json:"line,omitempty"`
	Replayed bool             `json:"replayed,omitempty"` // a line received again, not new to the user
	Blob     *BlobInfo        `json:"blob,omitempty"`
	Approval *ApprovalRequest `json:"approval,omitempty"`
	Decision *Decision        `json:"decision,omitempty"`
	Err      string           `json:"err,omitempty"`
}

// Approval kinds.
const (
	ApprovalProfile      = "profile"       // an exec/fs request arrived without an honored grant
	ApprovalGrantRequest = "grant_request" // a peer asks for a grant (docs/protocol/grants.md)
)

// ApprovalRequest is a request waiting for a person or a policy.
type ApprovalRequest struct {
	ID       string          `json:"id"`   // approval id, local to this node
	Kind     string          `json:"kind"` // ApprovalProfile or ApprovalGrantRequest
	From     key.PublicKey   `json:"from"` // who asks
	FromName string          `json:"from_name,omitempty"`
	Sub      key.PublicKey   `json:"sub,omitzero"` // who would hold the grant
	Caps     []string        `json:"caps"`         // capabilities asked for
	On       []key.PublicKey `json:"on,omitzero"`  // where it would be used; nil (absent): anywhere, []: nowhere
	Th       string          `json:"th"`
	ReqID    string          `json:"req_id"`           // id of the line that asked
	Detail   json.RawMessage `json:"detail,omitempty"` // the request's data (command, cwd, path…)
	Reason   string          `json:"reason,omitempty"`
	TTL      int64           `json:"ttl,omitempty"` // seconds asked for (grant requests)
	// Sandbox says, when exec is among Caps, how exec runs on this node:
	// "bwrap" (in the sandbox), "none" (unsandboxed, as the person: the
	// prompt says "runs unsandboxed as you") or SandboxUnavailable (the
	// sandbox is required and cannot run here: exec will fail). See
	// Node.ExecSandbox.
	Sandbox  string `json:"sandbox,omitempty"`
	Created  string `json:"created"`
	Deadline string `json:"deadline"` // the approval deadline, or the request's exp when earlier
	// Stranger says the asking key is not a peer this node knows (trusted,
	// dialed, introduced by a trusted key, or given a grant here): anyone
	// can make such keys.
	Stranger bool `json:"stranger,omitempty"`
}

// ApprovalRecord is a request that no longer waits: how it ended, by whom
// and when (Node.ApprovalHistory). Request.Detail is dropped when it is
// longer than MaxHistoryDetail.
type ApprovalRecord struct {
	Request  ApprovalRequest `json:"request"`
	Decision Decision        `json:"decision"`
	At       string          `json:"at"` // RFC 3339: when it was decided, timed out or refused
}

// Decision answers an ApprovalRequest. Allow with For == 0 allows once;
// Allow with For > 0 also issues a signed grant valid for that long.
type Decision struct {
	Allow  bool          `json:"allow"`
	For    time.Duration `json:"for,omitempty"`
	Reason string        `json:"reason,omitempty"`
	By     string        `json:"by,omitempty"` // "user", "policy", "timeout", "notification"
}

// Approver decides requests that no grant covers. Approve is called on its
// own goroutine with a context that ends at the request's deadline; a nil
// Approver (or one that returns ok == false) leaves the request pending
// until Node.Decide is called or the deadline passes (then: deny).
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (d Decision, ok bool)
}

// GrantDenied is the data of a grant-denied answer (MimeGrantDenied): why
// the person, or the policy, refused the grant request.
type GrantDenied struct {
	Reason string `json:"reason"`
}

// GrantRequest is the data of a grant request (docs/protocol/grants.md). On is
// nil when the request has no "on", and non-nil (maybe empty) when it has one.
type GrantRequest struct {
	Caps   []string `json:"caps"`
	Sub    string   `json:"sub,omitempty"`
	On     []string `json:"on,omitzero"`
	TTL    int64    `json:"ttl,omitempty"`
	Reason string   `json:"reason,omitempty"`
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

// PresenceInfo is one entry of the presence table, as `awp presence --json`
// prints it.
type PresenceInfo struct {
	Doc      json.RawMessage `json:"doc"`
	Hops     int             `json:"hops"`
	Received string          `json:"received"`
	From     key.PublicKey   `json:"from"`
}
