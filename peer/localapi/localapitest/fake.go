// Package localapitest holds a fake localapi.Backend and a helper that
// serves it on a temporary socket, for tests of the local API and of its
// users (cmd/awp) that run without a node.
//
// It is for tests only.
package localapitest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/awp-tray/awp-tray/internal/fanout"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/profile"
)

// ErrNoBlob is returned by Fake.OpenBlob for a blob it does not hold, or
// one that is not complete and intact.
var ErrNoBlob = errors.New("fake: no complete, intact blob")

// Fake is an in-memory Backend. Set the exported data fields before use
// (or under Lock); the recording fields hold what the API asked for.
type Fake struct {
	mu sync.Mutex
	// mu guards every field below.

	// Identity.
	PubKey     key.PublicKey
	NameV      string
	Listens    []string
	WorkspaceV string
	DataDirV   string

	// Data the listing methods return.
	ThreadList  []peer.ThreadInfo
	LinesByTh   map[string][]peer.LineInfo // keyed by th + "|" + from's text ("" for none)
	PeerList    []peer.PeerInfo
	BlobList    []peer.BlobInfo
	BlobData    map[string][]byte // keyed by from's text + "|" + ref
	PendingList []peer.ApprovalRequest
	History     []peer.ApprovalRecord // what ApprovalHistory returns

	// Err, when set, is returned by every method that returns an error.
	Err error
	// ConnectKey is what Connect returns; BlockConnect makes Connect wait
	// for its context instead.
	ConnectKey   key.PublicKey
	BlockConnect bool
	// OnConnect, when set, is called (without the lock) as Connect starts.
	OnConnect func(addr string)
	// SendResult is what Send and SetState return.
	SendResult peer.SendResult

	// Recorded calls.
	Sent      []peer.SendRequest
	States    [][3]string // th, state, note
	Connected []string
	Reads     [][2]string // th, from's text ("" for none)
	TrustSet  map[key.PublicKey]bool
	Decisions map[string]peer.Decision

	// Grants and requests: GrantRaw is what Grant returns, GrantList what
	// Grants lists; RequestResult and RequestErr (e.g. a *wire.Err) are
	// what Request returns.
	GrantRaw      json.RawMessage
	GrantList     []peer.GrantInfo
	RequestResult json.RawMessage
	RequestErr    error
	// Recorded grants, revocations and requests.
	Granted  []GrantCall
	Revoked  []string
	Requests []RequestCall

	// Presence and mirroring.
	PresenceList []peer.PresenceInfo
	Detail       string
	Hosts        []key.PublicKey
	MirrorSet    map[string]bool // th → on, recorded
	Privates     [][2]string     // th, from's text ("" for none), recorded

	// Invites: InviteV is what Invite returns; AddKey and AddErr what
	// AddInvite returns. Added records the invites.
	InviteV string
	AddKey  key.PublicKey
	AddErr  error
	Added   []string

	// SandboxMode is the exec sandbox mode ("" reads as auto); exec runs
	// in bubblewrap unless it is none.
	SandboxMode string
	// Keep is the retention setting (SetRetention stores it).
	Keep peer.Retention

	events   fanout.Broker[peer.Event]
	subbed   chan struct{} // closed and replaced when a subscriber arrives
	unsubbed chan struct{} // closed and replaced when a subscriber leaves
}

// Lock locks the fake for reading or changing its fields.
func (f *Fake) Lock() { f.mu.Lock() }

// Unlock undoes Lock.
func (f *Fake) Unlock() { f.mu.Unlock() }

// Key implements localapi.Backend.
func (f *Fake) Key() key.PublicKey { f.mu.Lock(); defer f.mu.Unlock(); return f.PubKey }

// Name implements localapi.Backend.
func (f *Fake) Name() string { f.mu.Lock(); defer f.mu.Unlock(); return f.NameV }

// ListenAddrs implements localapi.Backend.
func (f *Fake) ListenAddrs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.Listens...)
}

// Workspace implements localapi.Backend.
func (f *Fake) Workspace() string { f.mu.Lock(); defer f.mu.Unlock(); return f.WorkspaceV }

// DataDir implements localapi.Backend.
func (f *Fake) DataDir() string { f.mu.Lock(); defer f.mu.Unlock(); return f.DataDirV }

// Connect implements localapi.Backend.
func (f *Fake) Connect(ctx context.Context, addr string) (key.PublicKey, error) {
	f.mu.Lock()
	f.Connected = append(f.Connected, addr)
	block, k, err, hook := f.BlockConnect, f.ConnectKey, f.Err, f.OnConnect
	f.mu.Unlock()
	if hook != nil {
		hook(addr)
	}
	if block {
		<-ctx.Done()
		return key.PublicKey{}, fmt.Errorf("fake: connect %s: %w", addr, ctx.Err())
	}
	return k, err
}

// Send implements localapi.Backend.
func (f *Fake) Send(ctx context.Context, r peer.SendRequest) (peer.SendResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Err != nil {
		return peer.SendResult{}, f.Err
	}
	f.Sent = append(f.Sent, r)
	return f.SendResult, nil
}

// SetState implements localapi.Backend.
func (f *Fake) SetState(ctx context.Context, th, state, note string) (peer.SendResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Err != nil {
		return peer.SendResult{}, f.Err
	}
	f.States = append(f.States, [3]string{th, state, note})
	return f.SendResult, nil
}

// Threads implements localapi.Backend.
func (f *Fake) Threads() ([]peer.ThreadInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ThreadList, f.Err
}

// Lines implements localapi.Backend.
func (f *Fake) Lines(th string, from key.PublicKey) ([]peer.LineInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Err != nil {
		return nil, f.Err
	}
	ls, ok := f.LinesByTh[th+"|"+from.String()]
	if !ok {
		return nil, fmt.Errorf("fake: no thread %s", th)
	}
	return ls, nil
}

// Thread implements localapi.Backend: the ThreadList entry th (with
// MirroredFrom from).
func (f *Fake) Thread(th string, from key.PublicKey) (peer.ThreadInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Err != nil {
		return peer.ThreadInfo{}, f.Err
	}
	for _, t := range f.ThreadList {
		if t.Th == th && t.MirroredFrom == from {
			return t, nil
		}
	}
	return peer.ThreadInfo{}, fmt.Errorf("fake: no thread %s", th)
}

// LinesAfter implements localapi.Backend: the lines of Lines whose Seq
// is above after, at most limit of them (0: all).
func (f *Fake) LinesAfter(th string, from key.PublicKey, after uint64, limit int) ([]peer.LineInfo, error) {
	ls, err := f.Lines(th, from)
	if err != nil {
		return nil, err
	}
	var out []peer.LineInfo
	for _, l := range ls {
		if l.Seq > after && (limit == 0 || len(out) < limit) {
			out = append(out, l)
		}
	}
	return out, nil
}

// MarkRead implements localapi.Backend.
func (f *Fake) MarkRead(th string, from key.PublicKey) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Reads = append(f.Reads, [2]string{th, from.String()})
	return f.Err
}

// Peers implements localapi.Backend.
func (f *Fake) Peers() ([]peer.PeerInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]peer.PeerInfo(nil), f.PeerList...), f.Err
}

// Trust implements localapi.Backend.
func (f *Fake) Trust(k key.PublicKey, trusted bool) error {
	return f.change(func() {
		if f.TrustSet == nil {
			f.TrustSet = map[key.PublicKey]bool{}
		}
		f.TrustSet[k] = trusted
	})
}

// change runs fn, which records a call, under the lock; with Err set it
// returns Err and records nothing.
func (f *Fake) change(fn func()) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Err != nil {
		return f.Err
	}
	fn()
	return nil
}

// Blobs implements localapi.Backend.
func (f *Fake) Blobs() ([]peer.BlobInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.BlobList, f.Err
}

// OpenBlob implements localapi.Backend: it opens a blob listed in
// BlobList as complete and not corrupt whose bytes are in BlobData.
func (f *Fake) OpenBlob(from key.PublicKey, ref string) (io.ReadCloser, peer.BlobInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Err != nil {
		return nil, peer.BlobInfo{}, f.Err
	}
	for _, b := range f.BlobList {
		if b.From != from || b.Ref != ref {
			continue
		}
		data, ok := f.BlobData[from.String()+"|"+ref]
		if !ok || !b.Complete || b.Corrupt {
			break
		}
		return io.NopCloser(bytes.NewReader(data)), b, nil
	}
	return nil, peer.BlobInfo{}, fmt.Errorf("%w: %s from %s", ErrNoBlob, ref, from)
}

// Subscribe implements localapi.Backend. Like the node, it drops events
// for a subscriber whose buffer is full.
func (f *Fake) Subscribe(buf int) (<-chan peer.Event, func()) {
	ch, cancel := f.events.Subscribe(buf)
	f.noteSubs(&f.subbed)
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			cancel()
			f.noteSubs(&f.unsubbed)
		})
	}
}

// noteSubs closes and replaces *c (f.subbed or f.unsubbed): the
// subscriptions changed.
func (f *Fake) noteSubs(c *chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.initLocked()
	close(*c)
	*c = make(chan struct{})
}

func (f *Fake) initLocked() {
	if f.subbed == nil {
		f.subbed = make(chan struct{})
		f.unsubbed = make(chan struct{})
	}
}

// Publish sends ev to every subscriber that has room.
func (f *Fake) Publish(ev peer.Event) { f.events.Publish(ev) }

// Subscribers returns the number of live subscriptions, and channels that
// are closed at the next subscribe and the next unsubscribe, so a test can
// wait for a change without sleeping.
func (f *Fake) Subscribers() (n int, subscribed, unsubscribed <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.initLocked()
	return f.events.Len(), f.subbed, f.unsubbed
}

// EndSubscriptions closes every subscriber's channel, as a closing node
// does; a later Subscribe gets a closed channel, as from a closed node.
func (f *Fake) EndSubscriptions() { f.events.Close() }

// Presence implements localapi.Backend.
func (f *Fake) Presence() []peer.PresenceInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.PresenceList
}

// PresenceDetail implements localapi.Backend; "" reads as full.
func (f *Fake) PresenceDetail() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Detail == "" {
		return "full"
	}
	return f.Detail
}

// SetPresenceDetail implements localapi.Backend, checking d as the node does.
func (f *Fake) SetPresenceDetail(d string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Err != nil {
		return f.Err
	}
	switch d {
	case "full", "peers", "none":
	default:
		return fmt.Errorf("fake: presence detail %s: want full, peers or none", d)
	}
	f.Detail = d
	return nil
}

// MirrorHosts implements localapi.Backend.
func (f *Fake) MirrorHosts() []key.PublicKey {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]key.PublicKey(nil), f.Hosts...)
}

// SetMirrorHosts implements localapi.Backend.
func (f *Fake) SetMirrorHosts(hosts []key.PublicKey) error {
	return f.change(func() { f.Hosts = append([]key.PublicKey(nil), hosts...) })
}

// SetMirror implements localapi.Backend.
func (f *Fake) SetMirror(th string, on bool) error {
	return f.change(func() {
		if f.MirrorSet == nil {
			f.MirrorSet = map[string]bool{}
		}
		f.MirrorSet[th] = on
	})
}

// SetPrivate implements localapi.Backend; it returns SendResult.
func (f *Fake) SetPrivate(th string, from key.PublicKey) (peer.SendResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Err != nil {
		return peer.SendResult{}, f.Err
	}
	f.Privates = append(f.Privates, [2]string{th, from.String()})
	return f.SendResult, nil
}

// Invite implements localapi.Backend.
func (f *Fake) Invite() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.InviteV
}

// AddInvite implements localapi.Backend.
func (f *Fake) AddInvite(ctx context.Context, invite string) (key.PublicKey, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Err != nil {
		return key.PublicKey{}, f.Err
	}
	f.Added = append(f.Added, invite)
	return f.AddKey, f.AddErr
}

// ExecSandbox implements localapi.Backend: bubblewrap available, the
// network allowed, the mode SandboxMode.
func (f *Fake) ExecSandbox() profile.SandboxStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := f.SandboxMode
	if m == "" {
		m = profile.SandboxAuto
	}
	sb := profile.SandboxBwrap
	if m == profile.SandboxNone {
		sb = profile.SandboxNone
	}
	return profile.SandboxStatus{Mode: m, Sandbox: sb, Network: true, Available: true}
}

// SetExecSandbox implements localapi.Backend, checking mode as the node does.
func (f *Fake) SetExecSandbox(mode string) error {
	if err := profile.CheckSandboxMode(mode); err != nil {
		return err
	}
	return f.change(func() { f.SandboxMode = mode })
}

// LinesLast implements localapi.Backend: the last n lines of Lines.
func (f *Fake) LinesLast(th string, from key.PublicKey, n int) ([]peer.LineInfo, error) {
	ls, err := f.Lines(th, from)
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return ls, err
}

// Retention implements localapi.Backend: Keep.
func (f *Fake) Retention() (peer.Retention, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.Keep, f.Err
}

// SetRetention implements localapi.Backend, refusing a negative duration as
// the node does.
func (f *Fake) SetRetention(r peer.Retention) error {
	if r.KeepThreads < 0 || r.KeepBlobs < 0 {
		return errors.New("fake: retention: a duration must not be negative")
	}
	return f.change(func() { f.Keep = r })
}
