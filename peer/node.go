package peer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/user"
	"slices"
	"sync"
	"time"

	"github.com/awp-tray/awp-tray/internal/fanout"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/presence"
	"github.com/awp-tray/awp-tray/peer/profile"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/transport"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// Accept policies for incoming keys.
const (
	AcceptAny     = "any"     // any authenticated key (capabilities still need grants)
	AcceptKnown   = "known"   // keys the person chose: trusted, dialed, or added from an invite (not introduced ones)
	AcceptTrusted = "trusted" // trusted keys only
)

// Config configures a Node. Key and DataDir are required.
type Config struct {
	Key     key.PrivateKey
	DataDir string
	Name    string
	About   string
	Listen  []string
	Dial    []string
	Accept  string
	Trust   []key.PublicKey
	// Workspace is the root of profile requests (default: the current
	// directory). The data directory is never reachable from it.
	Workspace string
	// ExecSandbox is how exec runs: "auto" (bubblewrap when it works
	// here, else unsandboxed), "bwrap" (bubblewrap or nothing) or "none".
	// "" keeps the person's stored choice (SetExecSandbox), else "auto";
	// a value here applies to this run only.
	ExecSandbox string
	// ExecNoNetwork runs sandboxed exec without network.
	ExecNoNetwork   bool
	Approver        Approver
	ApprovalTimeout time.Duration
	AllowPublicTCP  bool
	Logger          *slog.Logger
	Now             func() time.Time

	// Caps overrides the capabilities announced in hello (tests).
	Caps []string
	// HandshakeTimeout overrides docs/protocol/handshake.md's 10 seconds
	// (tests).
	HandshakeTimeout time.Duration
	// MirrorTo are the hosts this node mirrors its threads to
	// (docs/protocol/mirror.md); nil keeps the stored setting.
	MirrorTo []key.PublicKey
	// Presence is what this node publishes: full, peers or none. ""
	// keeps the person's stored choice (SetPresenceDetail), else
	// DefaultPresence; a value here applies to this run only.
	Presence string
	// Harness and Model describe the agent software in presence.
	Harness, Model string
	// PresenceDebounce and PresenceHeartbeat override
	// docs/protocol/presence.md's 2 s and 60 s (tests).
	PresenceDebounce, PresenceHeartbeat time.Duration

	// KeepaliveInterval and KeepaliveTimeout override keepalive.go's 30 s
	// and 100 s (tests).
	KeepaliveInterval, KeepaliveTimeout time.Duration

	// Tailcat configures the tailcat binding (relay settings); the zero
	// value uses tailcat's default DERP map.
	Tailcat transport.TailcatOptions

	// NoSync turns off fsync (benchmarks of the non-durable path only).
	NoSync bool

	// IncompleteBlobAge overrides IncompleteBlobAge (tests).
	IncompleteBlobAge time.Duration
	// SweepEvery overrides how often idle blob files are closed and
	// incomplete blobs expired (tests).
	SweepEvery time.Duration
	// DiskSpace overrides how the free and total bytes of the data
	// directory's file system are read (tests).
	DiskSpace func() (free, total uint64, err error)

	// KeepThreads and KeepBlobs replace the stored retention when set (retention.go).
	KeepThreads, KeepBlobs *time.Duration

	// WarmBuffers makes Start fault in the buffers blob transfers use
	// (about 76 MiB) and keep them for the life of the process, so no
	// transfer pays for fresh memory: otherwise they are made on first
	// use and let go after 10 s unused. Fresh memory is dear where the
	// host takes back what a VM frees (here 17% of both nodes' CPU in a
	// 256 MiB transfer went to faulting it in). Off by default (an idle
	// node holds ~21 MiB, not 97); `awp run --warm-buffers` turns it on.
	WarmBuffers bool
}

// Errors returned by the node's API.
var (
	// ErrClosed is returned by calls made after Close.
	ErrClosed = errors.New("peer: node closed")
	// ErrStarted is returned by a second Start.
	ErrStarted = errors.New("peer: node already started")
	// ErrNoThread is returned when a thread does not exist.
	ErrNoThread = errors.New("peer: no such thread")
	// ErrBadKey is returned when a key argument is malformed.
	ErrBadKey = errors.New("peer: bad key")
	// ErrNoBlob is returned when a blob does not exist or is not complete.
	ErrNoBlob = errors.New("peer: no complete blob")
	// ErrSelfAddress is returned by Connect when the address leads back to
	// this node (its hello carries this node's own key): nothing redials it.
	ErrSelfAddress = errors.New("that address leads back to this node itself, so it is not dialed again")
)

// DefaultCaps are the capabilities this peer announces.
var DefaultCaps = []string{"chat", "blob", "grant", "introduce", "presence", "mirror", TypeKeepalive, capPing}

// Node is an AWP peer.
type Node struct {
	cfg  Config
	priv key.PrivateKey
	pub  key.PublicKey
	pubS string // pub.String()
	log  *slog.Logger
	now  func() time.Time
	db   *store.DB
	tm   *transport.Manager
	ids  wire.IDGen

	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup // every goroutine but the commit loop
	commit   commitLoop
	events   fanout.Broker[Event]
	names    liveNames // connected peers' names, for events (livenames.go)
	mirror   mirrorState
	pres     presenceState
	hs       hsAdmit // accepted connections in their handshake
	ret      retentionState
	inflight budget
	grants   grantIndex // stored grants, by subject (grantstore.go)
	trust    trustSet   // the trust list in memory
	reqs     reqQueue   // requests waiting for a worker (reqpool.go)
	disk     diskState
	queued   sharedQueue   // content queued for every session's writer
	lineBufs lineBufSlots  // long-line buffers lent to sessions' readers
	sweepNow chan struct{} // a commit found the disk full: expire and clean up now

	mu        sync.Mutex // guards the fields below
	started   bool
	closed    bool
	sessions  map[key.PublicKey]*session
	dialers   map[string]*dialer
	listeners []transport.Listener
	outSig    map[key.PublicKey]chan struct{}
	approvals map[string]*pending
	history   []ApprovalRecord // decided requests, oldest first, at most MaxApprovalHistory
	waiters   requestWaiters
	doneCh    chan struct{}

	runnerOnce  sync.Once
	prof        *profile.Runner
	sandboxMode string // the runner's mode when it is made
}

// New opens the store and prepares a node; Start runs it.
func New(cfg Config) (*Node, error) {
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	db, err := store.Open(cfg.DataDir, store.Options{NoSync: cfg.NoSync})
	if err != nil {
		return nil, err
	}
	n := &Node{
		cfg: cfg, priv: cfg.Key, pub: cfg.Key.Public(), pubS: cfg.Key.Public().String(), log: log, now: now, db: db,
		sessions:  map[key.PublicKey]*session{},
		dialers:   map[string]*dialer{},
		outSig:    map[key.PublicKey]chan struct{}{},
		approvals: map[string]*pending{},
		waiters:   requestWaiters{},
		pres:      presenceState{changed: make(chan struct{}, 1)},
		ret:       retentionState{wake: make(chan struct{}, 1)},
		inflight:  budget{max: maxInflight},
		sweepNow:  make(chan struct{}, 1),
		doneCh:    make(chan struct{}),
	}
	n.disk.space = cfg.DiskSpace
	if n.disk.space == nil {
		n.disk.space = func() (uint64, uint64, error) { return statfs(cfg.DataDir) }
	}
	n.ids.Now = now
	if err := n.loadGrants(); err != nil {
		db.Close()
		return nil, err
	}
	_ = db.View(func(tx *store.Tx) error {
		if b := tx.Meta("last_id"); b != nil {
			n.ids.Observe(string(b))
		}
		n.loadMirrorHosts(tx)
		n.pres.detail = chosen(cfg.Presence, tx.Meta(metaPresence), DefaultPresence, validDetail)
		n.sandboxMode = chosen(cfg.ExecSandbox, tx.Meta(metaExecSandbox), profile.SandboxAuto, validSandbox)
		return nil
	})
	n.tm = transport.New(transport.Options{Key: cfg.Key, AllowPublicTCP: cfg.AllowPublicTCP, Logger: log,
		Tailcat: tailcatOptions(cfg.Tailcat, cfg.DataDir), OnWGHandshake: n.probeTunnel, OnWGRefused: n.onWGRefused})
	n.ctx, n.cancel = context.WithCancel(context.Background())
	n.commit.init(n)
	return n, nil
}

// fill checks c and sets the defaults of the fields left zero.
func (c *Config) fill() error {
	if c.Key.IsZero() {
		return errors.New("peer: config: no key")
	}
	if c.DataDir == "" {
		return errors.New("peer: config: no data directory")
	}
	switch c.Accept {
	case "":
		c.Accept = AcceptAny
	case AcceptAny, AcceptKnown, AcceptTrusted:
	default:
		return fmt.Errorf("peer: config: accept %q: want any, known or trusted", c.Accept)
	}
	if c.Name == "" {
		c.Name = defaultName()
	}
	if c.ApprovalTimeout == 0 {
		c.ApprovalTimeout = defaultApprovalTimeout
	}
	if c.HandshakeTimeout == 0 {
		c.HandshakeTimeout = defaultHandshakeTimeout
	}
	switch c.Presence {
	case "", presence.DetailFull, presence.DetailPeers, presence.DetailNone:
	default:
		return errBadDetail(c.Presence)
	}
	if err := profile.CheckSandboxMode(c.ExecSandbox); err != nil {
		return fmt.Errorf("peer: config: %w", err)
	}
	if c.PresenceDebounce == 0 {
		c.PresenceDebounce = presence.Debounce
	}
	if c.PresenceHeartbeat == 0 {
		c.PresenceHeartbeat = presence.Heartbeat
	}
	if c.KeepaliveInterval == 0 {
		c.KeepaliveInterval = defaultKeepaliveInterval
	}
	if c.KeepaliveTimeout == 0 {
		c.KeepaliveTimeout = defaultKeepaliveTimeout
	}
	if c.Caps == nil {
		c.Caps = DefaultCaps
	}
	if c.IncompleteBlobAge == 0 {
		c.IncompleteBlobAge = IncompleteBlobAge
	}
	if c.SweepEvery == 0 {
		c.SweepEvery = sweepEvery
	}
	if c.Workspace == "" {
		c.Workspace, _ = os.Getwd()
	}
	return nil
}

func defaultName() string {
	host, _ := os.Hostname()
	u, err := user.Current()
	if err != nil || u.Username == "" {
		return "awp@" + host
	}
	return u.Username + "@" + host
}

// Key returns this node's public key.
func (n *Node) Key() key.PublicKey { return n.pub }

// Name returns this node's display name.
func (n *Node) Name() string { return n.cfg.Name }

// DataDir returns the node's data directory.
func (n *Node) DataDir() string { return n.cfg.DataDir }

// Workspace returns the root that exec, fs:read and fs:write requests are
// confined to (Config.Workspace, or the directory the node started in).
func (n *Node) Workspace() string { return n.cfg.Workspace }

// Done is closed when the node has stopped.
func (n *Node) Done() <-chan struct{} { return n.doneCh }

// Start opens the listeners, starts the dialers (Config.Dial and addresses
// dialed before a restart) and the node's loops. A failed Start undoes
// itself; the node must then be closed.
func (n *Node) Start() error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return ErrClosed
	}
	if n.started {
		n.mu.Unlock()
		return ErrStarted
	}
	n.started = true
	n.mu.Unlock()
	if n.cfg.WarmBuffers {
		t := time.Now()
		size := warmBuffers()
		n.log.Info("blob buffers warmed", "mib", size>>20, "took", time.Since(t).Round(time.Millisecond))
	}

	n.commit.start()
	n.startRequestWorkers()
	if err := n.applyTrustConfig(); err != nil {
		return err
	}
	if n.cfg.MirrorTo != nil {
		if err := n.SetMirrorHosts(n.cfg.MirrorTo); err != nil {
			return err
		}
	}
	if err := n.startRetention(); err != nil {
		return err
	}
	n.wg.Add(3)
	go n.presenceLoop()
	go n.keepaliveLoop()
	go n.sweepLoop()
	for _, a := range n.cfg.Listen {
		if err := n.Listen(a); err != nil {
			n.closeListeners()
			return err
		}
	}
	dials := append([]string(nil), n.cfg.Dial...)
	var announce []announcement
	_ = n.db.View(func(tx *store.Tx) error {
		tx.Peers(func(p *store.Peer) bool {
			if p.Dialed != "" {
				dials = append(dials, p.Dialed)
			}
			// Only keys the person chose reach this node over wg, also after a
			// restart (docs/protocol/bindings.md): not every key ever stored.
			if k, err := key.ParsePublic(p.Key); err == nil && known(p) {
				n.tm.AllowKey(k)
				if a := wgListenOf(k, p); a != "" && p.Dialed == "" {
					announce = append(announce, announcement{k, a})
				}
			}
			return true
		})
		return nil
	})
	for _, a := range dials {
		if _, _, err := n.ensureDialer(a); err != nil {
			n.log.Warn("not dialing a malformed address", "err", err) // a Config.Dial; stored ones are dialed ones
		}
	}
	n.announceRestart(announce)
	n.log.Info("node started", "key", n.pub.String(), "name", n.cfg.Name, "listen", n.ListenAddrs())
	n.logWorkspace()
	return nil
}

func (n *Node) applyTrustConfig() error {
	for _, k := range n.cfg.Trust {
		if err := n.Trust(k, true); err != nil {
			return err
		}
	}
	return nil
}

// Close stops the node: listeners, dialers and sessions end, the commit
// loop stores what it has been handed, and the store closes. It is safe to
// call more than once.
func (n *Node) Close() error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		<-n.doneCh
		return nil
	}
	n.closed = true
	sessions := slices.Collect(maps.Values(n.sessions))
	n.mu.Unlock()

	n.cancel()
	n.closeListeners()
	n.hs.closeAll()
	for _, s := range sessions {
		s.close(nil)
	}
	n.wg.Wait()
	n.commit.stop()
	n.events.Close()
	err := n.tm.Close()
	if cerr := n.db.Close(); err == nil {
		err = cerr
	}
	n.log.Info("node stopped")
	close(n.doneCh)
	return err
}

func (n *Node) isClosed() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.closed
}

func (n *Node) stamp() string { return wire.FormatTime(n.now()) }

// goTracked runs f on a goroutine that Close waits for; once Close has
// begun (it may be waiting on n.wg already), f does not run.
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
