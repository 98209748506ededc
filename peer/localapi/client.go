package localapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"syscall"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

// Client talks to a running peer over its control socket. Build it with
// NewClient; it is safe for concurrent use.
type Client struct {
	socket string
	hc     *http.Client
}

// NewClient returns a client for the control socket at path (see
// SocketPath). It does not connect until a method is called.
func NewClient(path string) *Client {
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		},
		DisableCompression: true,
		MaxIdleConns:       2,
	}
	return &Client{socket: path, hc: &http.Client{Transport: tr}}
}

// Socket returns the control socket path the client uses.
func (c *Client) Socket() string { return c.socket }

// CloseIdle closes idle connections to the peer.
func (c *Client) CloseIdle() { c.hc.CloseIdleConnections() }

// Identity returns the running peer's key, name and listen addresses.
func (c *Client) Identity(ctx context.Context) (Identity, error) {
	var id Identity
	err := c.call(ctx, "id", http.MethodGet, "/v0/id", nil, nil, &id)
	return id, err
}

// Connect asks the peer to dial addr and keep the connection up; it
// returns the remote key once the handshake is done.
func (c *Client) Connect(ctx context.Context, addr string) (key.PublicKey, error) {
	var res connectResponse
	err := c.call(ctx, "connect", http.MethodPost, "/v0/connect", nil, connectRequest{Addr: addr}, &res)
	return res.Key, err
}

// Send queues one msg; it returns once the line is durable.
func (c *Client) Send(ctx context.Context, r peer.SendRequest) (peer.SendResult, error) {
	return callFor[peer.SendResult](c, ctx, "send", http.MethodPost, "/v0/send", nil, r)
}

// SetState queues a state line in thread th.
func (c *Client) SetState(ctx context.Context, th, state, note string) (peer.SendResult, error) {
	return callFor[peer.SendResult](c, ctx, "state", http.MethodPost, "/v0/state", nil, stateRequest{Th: th, State: state, Note: note})
}

// Threads lists the peer's threads, newest activity first.
func (c *Client) Threads(ctx context.Context) ([]peer.ThreadInfo, error) {
	res, err := c.threads(ctx) // threadsjson.go: the large answer, read directly
	return nonNil(res), err
}

// Lines returns the lines of thread th in order; from is the sharer's key
// for a mirrored thread, the zero key for the peer's own.
func (c *Client) Lines(ctx context.Context, th string, from key.PublicKey) ([]peer.LineInfo, error) {
	res := []peer.LineInfo{}
	q := url.Values{"th": {th}}
	if !from.IsZero() {
		q.Set("from", from.String())
	}
	err := c.call(ctx, "show", http.MethodGet, "/v0/lines", q, nil, &res)
	return nonNil(res), err
}

// Thread returns one thread's summary; from is the sharer's key for a
// mirrored thread, "" for the peer's own.
func (c *Client) Thread(ctx context.Context, th string, from key.PublicKey) (peer.ThreadInfo, error) {
	var res peer.ThreadInfo
	q := url.Values{"th": {th}}
	if !from.IsZero() {
		q.Set("from", from.String())
	}
	err := c.call(ctx, "thread", http.MethodGet, "/v0/thread", q, nil, &res)
	return res, err
}

// LinesAfter returns up to limit lines of thread th after the line whose
// seq is after (limit 0: all of them).
func (c *Client) LinesAfter(ctx context.Context, th string, from key.PublicKey, after uint64, limit int) ([]peer.LineInfo, error) {
	res := []peer.LineInfo{}
	q := url.Values{"th": {th}, "after": {strconv.FormatUint(after, 10)}, "limit": {strconv.Itoa(limit)}}
	if !from.IsZero() {
		q.Set("from", from.String())
	}
	err := c.call(ctx, "show", http.MethodGet, "/v0/lines", q, nil, &res)
	return nonNil(res), err
}

// MarkRead marks thread th read.
func (c *Client) MarkRead(ctx context.Context, th string, from key.PublicKey) error {
	return c.call(ctx, "read", http.MethodPost, "/v0/read", nil, readRequest{Th: th, From: from}, nil)
}

// Peers lists the peers the running peer knows.
func (c *Client) Peers(ctx context.Context) ([]peer.PeerInfo, error) {
	return callList[peer.PeerInfo](c, ctx, "peers", http.MethodGet, "/v0/peers", nil, nil)
}

// PeerNames maps the running peer's known peers to their names, for
// showing a key as a name. Best effort: when the list cannot be read the
// map is empty, and a key shows as itself.
func (c *Client) PeerNames(ctx context.Context) map[key.PublicKey]string {
	names := map[key.PublicKey]string{}
	peers, _ := c.Peers(ctx)
	for _, p := range peers {
		if p.Name != "" {
			names[p.Key] = p.Name
		}
	}
	return names
}

// Trust adds k to the trust list (trusted) or removes it.
func (c *Client) Trust(ctx context.Context, k key.PublicKey, trusted bool) error {
	return c.call(ctx, "trust", http.MethodPost, "/v0/trust", nil, trustRequest{Key: k, Trusted: trusted}, nil)
}

// Blobs lists blobs received and sent.
func (c *Client) Blobs(ctx context.Context) ([]peer.BlobInfo, error) {
	return callList[peer.BlobInfo](c, ctx, "blobs", http.MethodGet, "/v0/blobs", nil, nil)
}

// OpenBlob opens the bytes of blob ref sent by from. The peer opens only
// complete, intact blobs; the caller still checks what it reads against
// the returned BlobInfo's Size and Sha256, since the stream may break.
func (c *Client) OpenBlob(ctx context.Context, from key.PublicKey, ref string) (io.ReadCloser, peer.BlobInfo, error) {
	var info peer.BlobInfo
	q := url.Values{"from": {from.String()}, "ref": {ref}}
	resp, err := c.do(ctx, "blob", http.MethodGet, "/v0/blob", q, nil)
	if err != nil {
		return nil, info, err
	}
	if err := json.Unmarshal([]byte(resp.Header.Get(blobHeader)), &info); err != nil {
		resp.Body.Close()
		return nil, info, fmt.Errorf("localapi: blob: bad %s header: %w", blobHeader, err)
	}
	return resp.Body, info, nil
}

// Pending lists the requests waiting for a decision.
func (c *Client) Pending(ctx context.Context) ([]peer.ApprovalRequest, error) {
	return callList[peer.ApprovalRequest](c, ctx, "pending", http.MethodGet, "/v0/pending", nil, nil)
}

// ApprovalHistory lists the requests decided since the node started,
// newest first.
func (c *Client) ApprovalHistory(ctx context.Context) ([]peer.ApprovalRecord, error) {
	return callList[peer.ApprovalRecord](c, ctx, "approval history", http.MethodGet, "/v0/pending/history", nil, nil)
}

// Decide answers the pending request id.
func (c *Client) Decide(ctx context.Context, id string, d peer.Decision) error {
	return c.call(ctx, "decide", http.MethodPost, "/v0/decide", nil, decideRequest{ID: id, Decision: d}, nil)
}

// callFor is call for an endpoint that answers with a T.
func callFor[T any](c *Client, ctx context.Context, op, method, path string, q url.Values, in any) (T, error) {
	var res T
	err := c.call(ctx, op, method, path, q, in, &res)
	return res, err
}

// callList is call for an endpoint that answers with a list: never nil,
// so that an empty one encodes as [] again.
func callList[T any](c *Client, ctx context.Context, op, method, path string, q url.Values, in any) ([]T, error) {
	res := []T{}
	err := c.call(ctx, op, method, path, q, in, &res)
	return nonNil(res), err
}

// call does one request and decodes a JSON answer into out (when non-nil).
func (c *Client) call(ctx context.Context, op, method, path string, q url.Values, in, out any) error {
	resp, err := c.do(ctx, op, method, path, q, in)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("localapi: %s: %w", op, ctx.Err())
		}
		return fmt.Errorf("localapi: %s: decode answer: %w", op, err)
	}
	return nil
}

// do sends a request and returns a 2xx response; anything else becomes an
// error: *NotRunningError, a context error, or *RemoteError.
func (c *Client) do(ctx context.Context, op, method, path string, q url.Values, in any) (*http.Response, error) {
	var body io.Reader
	if in != nil {
		// No HTML escaping: wire parts keep their bytes as the user gave them.
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(in); err != nil {
			return nil, fmt.Errorf("localapi: %s: encode request: %w", op, err)
		}
		body = &b
	}
	u := "http://awp" + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, fmt.Errorf("localapi: %s: %w", op, err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("localapi: %s: %w", op, ctx.Err())
		}
		if notListening(err) {
			return nil, &NotRunningError{Socket: c.socket}
		}
		return nil, fmt.Errorf("localapi: %s: %w", op, err)
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer resp.Body.Close()
	return nil, remoteError(resp)
}

// notListening reports whether a dial error means no server: no socket
// file, or a stale one nobody accepts on.
func notListening(err error) bool {
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "dial" {
		return false
	}
	return errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED)
}

// remoteError decodes a failure body; a body that is not one (a proxy, an
// old server) still gives a one-line message.
func remoteError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var eb errorBody
	if err := json.Unmarshal(b, &eb); err != nil || eb.Error == "" {
		eb.Error = "localapi: " + resp.Status
		if t := bytes.TrimSpace(b); len(t) > 0 && len(t) < 200 {
			eb.Error += ": " + string(t)
		}
	}
	return &RemoteError{Status: resp.StatusCode, Code: eb.Code, Msg: eb.Error, Err: eb.Err, Key: eb.Key}
}

// Watch subscribes to the peer's events. It returns once the subscription
// is in place; read events with Next and end it with Close or by
// canceling ctx.
func (c *Client) Watch(ctx context.Context) (*EventStream, error) {
	return c.WatchBuf(ctx, 0)
}

// WatchBuf is Watch with the peer-side subscriber buffer set to buf
// events (0: the server's default).
func (c *Client) WatchBuf(ctx context.Context, buf int) (*EventStream, error) {
	var q url.Values
	if buf > 0 {
		q = url.Values{"buf": {strconv.Itoa(buf)}}
	}
	resp, err := c.do(ctx, "watch", http.MethodGet, "/v0/watch", q, nil)
	if err != nil {
		return nil, err
	}
	return &EventStream{ctx: ctx, body: resp.Body, dec: json.NewDecoder(resp.Body)}, nil
}

// EventStream is an open watch: one event per Next.
type EventStream struct {
	ctx  context.Context
	body io.ReadCloser
	dec  *json.Decoder
}

// Next returns the next event. It returns io.EOF when the peer ends the
// stream (it is shutting down), and the context's error once ctx ends.
func (s *EventStream) Next() (peer.Event, error) {
	var ev peer.Event
	raw, err := s.NextRaw()
	if err != nil {
		return ev, err
	}
	if err := json.Unmarshal(raw, &ev); err != nil {
		return ev, fmt.Errorf("localapi: watch: decode event: %w", err)
	}
	return ev, nil
}

// NextRaw returns the next event as the JSON object the peer sent, for
// callers that pass events on unchanged (awp watch --json).
func (s *EventStream) NextRaw() (json.RawMessage, error) {
	var raw json.RawMessage
	if err := s.dec.Decode(&raw); err != nil {
		if s.ctx.Err() != nil {
			return nil, fmt.Errorf("localapi: watch: %w", s.ctx.Err())
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("localapi: watch: %w", err)
	}
	return raw, nil
}

// Close ends the subscription.
func (s *EventStream) Close() error { return s.body.Close() }
