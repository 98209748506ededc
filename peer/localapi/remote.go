package localapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"time"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/profile"
)

// CallTimeout bounds one call of a Remote method that takes no context:
// every one of them reads the store of a node on the same machine, which
// takes milliseconds; the longest (the lines of a 10,000-line thread) well
// under a second. A node that does not answer in this time is stuck.
const CallTimeout = 30 * time.Second

// Remote is a Backend over a running node's local API: the tray app's
// windows use it from their own process. Methods that take a context use
// it; the others are bounded by CallTimeout and end when Close is called.
//
// The node's methods that cannot fail (Pending, Presence, PresenceDetail,
// MirrorHosts, Invite, ExecSandbox) can over a socket: a Remote logs the failure and
// returns the zero value, which the windows show as empty until their next
// refresh. Key, Name, ListenAddrs, Workspace and DataDir were read once by
// DialRemote: they do not change while a node runs.
type Remote struct {
	c      *Client
	id     Identity
	key    key.PublicKey
	log    *slog.Logger
	ctx    context.Context // ends at Close
	cancel context.CancelFunc
}

var _ Backend = (*Remote)(nil)

// DialRemote connects to the node whose control socket is socket and
// reads who it is. log may be nil.
func DialRemote(ctx context.Context, socket string, log *slog.Logger) (*Remote, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := NewClient(socket)
	id, err := c.Identity(ctx)
	if err != nil {
		return nil, err
	}
	k := id.Key
	if k.IsZero() {
		return nil, errors.New("localapi: the node did not say its key")
	}
	rctx, cancel := context.WithCancel(context.Background())
	return &Remote{c: c, id: id, key: k, log: log, ctx: rctx, cancel: cancel}, nil
}

// Close ends the calls in flight and every subscription, and closes idle
// connections.
func (r *Remote) Close() error {
	r.cancel()
	r.c.CloseIdle()
	return nil
}

// call is the context of one call without a context of its own.
func (r *Remote) call() (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.ctx, CallTimeout)
}

// timed runs f with the context of one call (call): the Backend methods
// that take no context.
func timed[T any](r *Remote, f func(ctx context.Context) (T, error)) (T, error) {
	ctx, cancel := r.call()
	defer cancel()
	return f(ctx)
}

// run is timed for a call that returns only an error.
func run(r *Remote, f func(ctx context.Context) error) error {
	ctx, cancel := r.call()
	defer cancel()
	return f(ctx)
}

// logged is timed for the node's methods that cannot fail: a failure of
// the socket is logged as what and gives what the client returned (the
// zero value, or an empty list).
func logged[T any](r *Remote, what string, f func(ctx context.Context) (T, error)) T {
	v, err := timed(r, f)
	if err != nil {
		r.log.Warn(what, "err", err)
	}
	return v
}

// Key implements Backend.
func (r *Remote) Key() key.PublicKey { return r.key }

// Name implements Backend.
func (r *Remote) Name() string { return r.id.Name }

// ListenAddrs implements Backend.
func (r *Remote) ListenAddrs() []string { return append([]string(nil), r.id.Listen...) }

// Workspace implements Backend.
func (r *Remote) Workspace() string { return r.id.Workspace }

// DataDir implements Backend.
func (r *Remote) DataDir() string { return r.id.DataDir }

// Connect implements Backend.
func (r *Remote) Connect(ctx context.Context, addr string) (key.PublicKey, error) {
	k, err := r.c.Connect(ctx, addr)
	if err == nil && k.IsZero() {
		err = errors.New("localapi: connect: the node answered with no key")
	}
	return k, err
}

// Send implements Backend.
func (r *Remote) Send(ctx context.Context, req peer.SendRequest) (peer.SendResult, error) {
	return r.c.Send(ctx, req)
}

// SetState implements Backend.
func (r *Remote) SetState(ctx context.Context, th, state, note string) (peer.SendResult, error) {
	return r.c.SetState(ctx, th, state, note)
}

// Threads implements Backend.
func (r *Remote) Threads() ([]peer.ThreadInfo, error) {
	return timed(r, r.c.Threads)
}

// Thread implements Backend.
func (r *Remote) Thread(th string, from key.PublicKey) (peer.ThreadInfo, error) {
	return timed(r, func(ctx context.Context) (peer.ThreadInfo, error) { return r.c.Thread(ctx, th, from) })
}

// Lines implements Backend.
func (r *Remote) Lines(th string, from key.PublicKey) ([]peer.LineInfo, error) {
	return timed(r, func(ctx context.Context) ([]peer.LineInfo, error) { return r.c.Lines(ctx, th, from) })
}

// LinesAfter implements Backend.
func (r *Remote) LinesAfter(th string, from key.PublicKey, after uint64, limit int) ([]peer.LineInfo, error) {
	return timed(r, func(ctx context.Context) ([]peer.LineInfo, error) { return r.c.LinesAfter(ctx, th, from, after, limit) })
}

// MarkRead implements Backend.
func (r *Remote) MarkRead(th string, from key.PublicKey) error {
	return run(r, func(ctx context.Context) error { return r.c.MarkRead(ctx, th, from) })
}

// Peers implements Backend.
func (r *Remote) Peers() ([]peer.PeerInfo, error) {
	return timed(r, r.c.Peers)
}

// Trust implements Backend.
func (r *Remote) Trust(k key.PublicKey, trusted bool) error {
	return run(r, func(ctx context.Context) error { return r.c.Trust(ctx, k, trusted) })
}

// Blobs implements Backend.
func (r *Remote) Blobs() ([]peer.BlobInfo, error) {
	return timed(r, r.c.Blobs)
}

// OpenBlob implements Backend. The stream ends when the Remote is
// closed; the caller checks what it read against the BlobInfo (size,
// sha256), as the stream may break.
func (r *Remote) OpenBlob(from key.PublicKey, ref string) (io.ReadCloser, peer.BlobInfo, error) {
	return r.c.OpenBlob(r.ctx, from, ref)
}

// Subscribe implements Backend over GET /v0/watch: the node keeps a
// buffer of buf events for this subscriber, and so does the channel. The
// channel is closed when cancel is called, the Remote closed, or the node
// ends the stream (it is shutting down).
func (r *Remote) Subscribe(buf int) (<-chan peer.Event, func()) {
	ctx, cancel := context.WithCancel(r.ctx)
	ch := make(chan peer.Event, buf)
	s, err := r.c.WatchBuf(ctx, buf)
	if err != nil {
		r.log.Error("subscribe to the node's events", "err", err)
		cancel()
		close(ch)
		return ch, func() {}
	}
	go func() {
		defer close(ch)
		defer s.Close()
		for {
			ev, err := s.Next()
			if err != nil {
				if ctx.Err() == nil && err != io.EOF {
					r.log.Warn("the node's events", "err", err)
				}
				return
			}
			select {
			case ch <- ev:
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch, cancel
}

// Pending implements Backend; a failure is logged and lists nothing.
func (r *Remote) Pending() []peer.ApprovalRequest {
	return logged(r, "pending requests", r.c.Pending)
}

// ApprovalHistory implements Backend; a failure is logged and lists
// nothing.
func (r *Remote) ApprovalHistory() []peer.ApprovalRecord {
	return logged(r, "approval history", r.c.ApprovalHistory)
}

// Decide implements Backend.
func (r *Remote) Decide(id string, d peer.Decision) error {
	return run(r, func(ctx context.Context) error { return r.c.Decide(ctx, id, d) })
}

// Grant implements Backend.
func (r *Remote) Grant(ctx context.Context, to key.PublicKey, caps []string, ttl time.Duration, on []key.PublicKey, note string) (json.RawMessage, error) {
	return r.c.Grant(ctx, GrantRequest{To: to, Caps: caps, TTL: ttl.String(), On: on, Note: note})
}

// Grants implements Backend.
func (r *Remote) Grants() ([]peer.GrantInfo, error) {
	return timed(r, r.c.Grants)
}

// RevokeGrant implements Backend.
func (r *Remote) RevokeGrant(id string) error {
	return run(r, func(ctx context.Context) error { return r.c.RevokeGrant(ctx, id) })
}

// Request implements Backend.
func (r *Remote) Request(ctx context.Context, to key.PublicKey, mime string, data json.RawMessage, th string) (json.RawMessage, error) {
	return r.c.Request(ctx, ProfileRequest{To: to, Mime: mime, Data: data, Th: th})
}

// Presence implements Backend; a failure is logged and lists nothing.
func (r *Remote) Presence() []peer.PresenceInfo {
	return logged(r, "presence", r.c.Presence)
}

// PresenceDetail implements Backend; a failure is logged and gives "".
func (r *Remote) PresenceDetail() string {
	return logged(r, "presence detail", r.c.PresenceDetail)
}

// SetPresenceDetail implements Backend.
func (r *Remote) SetPresenceDetail(d string) error {
	return run(r, func(ctx context.Context) error { return r.c.SetPresenceDetail(ctx, d) })
}

// MirrorHosts implements Backend; a failure is logged and lists nothing.
func (r *Remote) MirrorHosts() []key.PublicKey {
	return logged(r, "mirror hosts", r.c.MirrorHosts)
}

// SetMirrorHosts implements Backend.
func (r *Remote) SetMirrorHosts(hosts []key.PublicKey) error {
	return run(r, func(ctx context.Context) error {
		_, err := r.c.SetMirrorHosts(ctx, hosts)
		return err
	})
}

// SetMirror implements Backend.
func (r *Remote) SetMirror(th string, on bool) error {
	return run(r, func(ctx context.Context) error { return r.c.SetMirror(ctx, th, on) })
}

// SetPrivate implements Backend.
func (r *Remote) SetPrivate(th string, from key.PublicKey) (peer.SendResult, error) {
	return timed(r, func(ctx context.Context) (peer.SendResult, error) { return r.c.SetPrivate(ctx, th, from) })
}

// Invite implements Backend; a failure is logged and gives "".
func (r *Remote) Invite() string {
	return logged(r, "invite", r.c.Invite)
}

// AddInvite implements Backend: like the node, it returns the invite's key
// with the error when the peer was recorded but could not be reached.
func (r *Remote) AddInvite(ctx context.Context, invite string) (key.PublicKey, error) {
	k, err := r.c.AddInvite(ctx, invite)
	if err == nil && k.IsZero() {
		err = errors.New("localapi: add: the node answered with no key")
	}
	return k, err
}

// ExecSandbox implements Backend; a failure is logged and gives the zero
// status (not available).
func (r *Remote) ExecSandbox() profile.SandboxStatus {
	return logged(r, "exec sandbox", r.c.ExecSandbox)
}

// SetExecSandbox implements Backend.
func (r *Remote) SetExecSandbox(mode string) error {
	return run(r, func(ctx context.Context) error {
		_, err := r.c.SetExecSandbox(ctx, mode)
		return err
	})
}

// LinesLast implements Backend.
func (r *Remote) LinesLast(th string, from key.PublicKey, n int) ([]peer.LineInfo, error) {
	return timed(r, func(ctx context.Context) ([]peer.LineInfo, error) { return r.c.LinesLast(ctx, th, from, n) })
}

// Retention implements Backend.
func (r *Remote) Retention() (peer.Retention, error) {
	b, err := timed(r, r.c.Retention)
	if err != nil {
		return peer.Retention{}, err
	}
	return bodyRetention(b)
}

// SetRetention implements Backend.
func (r *Remote) SetRetention(rt peer.Retention) error {
	return run(r, func(ctx context.Context) error {
		_, err := r.c.SetRetention(ctx, retentionBody(rt))
		return err
	})
}
