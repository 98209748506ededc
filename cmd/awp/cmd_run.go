package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/awp-tray/awp-tray/internal/gctune"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/localapi"
	"github.com/awp-tray/awp-tray/peer/profile"
	"github.com/awp-tray/awp-tray/peer/transport"
)

// defaultListen is where `awp run` listens when no --listen is given:
// loopback TCP on a free port (logged once bound, and shown by
// `awp status`).
const defaultListen = "tcp://127.0.0.1:0"

// runOptions are the flags of `awp run`.
type runOptions struct {
	keyring        string
	listen, dial   stringList
	name, about    string
	workspace      string
	trust          stringList
	accept         string
	allowPublicTCP bool
	warmBuffers    bool
	verbose        bool
	mirrorTo       stringList
	presence       string
	execSandbox    string
	execNetwork    bool
	harness, model string
	approve        string
	approvalWait   time.Duration
	tailcatRelay   string
	retention      retentionFlags // cmd_retention.go
}

func (o *runOptions) flags(fs *flagSet) {
	fs.StringVar(&o.keyring, "keyring", "", "where the identity lives: keyring (default, or $AWP_KEYRING) or file")
	fs.Var(&o.listen, "listen", "address to listen on (repeatable; default "+defaultListen+")")
	fs.Var(&o.dial, "dial", "address to dial and keep up (repeatable)")
	fs.StringVar(&o.name, "name", "", "display name (default user@host)")
	fs.StringVar(&o.about, "about", "", "free text sent in hello")
	fs.StringVar(&o.workspace, "workspace", "", "profile root for exec and fs requests (default the current directory)")
	fs.Var(&o.trust, "trust", "key to mark trusted at start (repeatable)")
	fs.StringVar(&o.accept, "accept", peer.AcceptAny, "which authenticated keys may connect: any, known (trusted, dialed or added from an invite) or trusted")
	fs.Var(&o.mirrorTo, "mirror-to", "key of a host to mirror threads to (repeatable; replaces the stored hosts)")
	fs.StringVar(&o.presence, "presence", "", "presence published: full (threads and whom they are with, to every peer within 8 hops), peers or none (default: the choice stored by `awp presence detail`, else peers)")
	fs.StringVar(&o.execSandbox, "exec-sandbox", "", "how exec requests run: auto (bubblewrap when it works here, else unsandboxed as you), bwrap (bubblewrap or not at all) or none (default: the choice stored by `awp sandbox`, else auto)")
	fs.BoolVar(&o.execNetwork, "exec-network", true, "sandboxed exec has network; false: only its own loopback")
	fs.StringVar(&o.harness, "harness", "", "the agent harness, published in presence")
	fs.StringVar(&o.model, "model", "", "the agent model, published in presence")
	fs.StringVar(&o.approve, "approve", "deny", "requests no grant covers: deny at once, or ask (wait for `awp decide`)")
	fs.durationVar(&o.approvalWait, "approval-timeout", 0, "with --approve ask: deny a request not decided this long (default 5m)")
	fs.BoolVar(&o.allowPublicTCP, "allow-public-tcp", false, "allow plaintext tcp to and from public addresses")
	fs.BoolVar(&o.warmBuffers, "warm-buffers", false, "fault in the buffers blob transfers use (about 76 MiB) at start and keep them for good (default: made on first use, given back after 10 s idle)")
	fs.StringVar(&o.tailcatRelay, "tailcat-relay", "", "tailcat relay: default (tailcat's DERP map), a DERP map URL, or your own relay host[:port]")
	fs.BoolVar(&o.verbose, "verbose", false, "log debug messages")
	o.retention.flags(fs)
}

func (o *runOptions) check() error {
	for _, a := range o.dial {
		if _, err := transport.ParseAddr(a); err != nil {
			return usagef("--dial: %v", err)
		}
	}
	if _, err := transport.ParseTailcatRelay(o.tailcatRelay); err != nil {
		return usagef("--tailcat-relay: %v", err)
	}
	switch o.accept {
	case peer.AcceptAny, peer.AcceptKnown, peer.AcceptTrusted:
	default:
		return usagef("--accept %q: want any, known or trusted", o.accept)
	}
	if o.execSandbox != "" {
		if err := profile.CheckSandboxMode(o.execSandbox); err != nil {
			return usagef("--exec-sandbox %q: want auto, bwrap or none", o.execSandbox)
		}
	}
	switch o.presence {
	case "", "full", "peers", "none":
	default:
		return usagef("--presence %q: want full, peers or none", o.presence)
	}
	switch o.approve {
	case "deny", "ask":
	default:
		return usagef("--approve %q: want deny or ask", o.approve)
	}
	if o.approvalWait < 0 {
		return usagef("--approval-timeout must not be negative")
	}
	if err := o.retention.check(); err != nil {
		return err
	}
	for _, k := range o.trust {
		if err := checkKey("--trust", k); err != nil {
			return err
		}
	}
	for _, k := range o.mirrorTo {
		if err := checkKey("--mirror-to", k); err != nil {
			return err
		}
	}
	return nil
}

func runRun(e *env, args []string) error {
	fs := newFlags("run")
	var o runOptions
	o.flags(fs)
	if err := fs.parseNoArgs(args); err != nil {
		return err
	}
	if err := o.check(); err != nil {
		return err
	}
	if o.execSandbox == profile.SandboxBwrap {
		// Asked for by name: refuse to start rather than refuse every exec.
		if st := (&profile.Runner{Sandbox: profile.SandboxBwrap}).SandboxStatus(); !st.Available {
			return fmt.Errorf("--exec-sandbox bwrap: %s", st.Reason)
		}
	}
	gctune.Node() // a long-running node: fewer collections (GOGC/GOMEMLIMIT win)
	dir, err := e.dataDir(fs.data)
	if err != nil {
		return err
	}
	log := e.logger(o.verbose)

	priv, created, err := e.loadIdentity(dir, o.keyring)
	if err != nil {
		return err
	}
	if created {
		log.Info("created a new identity", "key", priv.Public().String())
	}
	ws := o.workspace
	if ws == "" {
		if ws, err = os.Getwd(); err != nil {
			return fmt.Errorf("workspace: %w", err)
		}
	}
	if ws, err = filepath.Abs(ws); err != nil {
		return fmt.Errorf("workspace: %w", err)
	}
	listen := []string(o.listen)
	if len(listen) == 0 {
		listen = []string{defaultListen}
	}
	n, err := newNode(o.config(priv, dir, ws, listen, log))
	if err != nil {
		return err
	}
	return serveNode(e, log, n, dir)
}

// config builds the node's Config from the options.
func (o *runOptions) config(priv key.PrivateKey, dir, ws string, listen []string, log *slog.Logger) peer.Config {
	cfg := peer.Config{
		Key:            priv,
		DataDir:        dir,
		Name:           o.name,
		About:          o.about,
		Listen:         listen,
		Dial:           o.dial,
		Accept:         o.accept,
		Trust:          checkedKeys(o.trust),
		Workspace:      ws,
		AllowPublicTCP: o.allowPublicTCP,
		WarmBuffers:    o.warmBuffers,
		Logger:         log.With("component", "peer"),
		Presence:       o.presence,
		ExecSandbox:    o.execSandbox,
		ExecNoNetwork:  !o.execNetwork,
		Harness:        o.harness,
		Model:          o.model,
		// --approve ask: a nil Approver leaves requests pending for
		// `awp decide` until the deadline.
		ApprovalTimeout: o.approvalWait,
	}
	// No --mirror-to keeps the stored hosts (nil); `awp mirror hosts`
	// changes them at run time.
	if len(o.mirrorTo) > 0 {
		cfg.MirrorTo = checkedKeys(o.mirrorTo)
	}
	if o.approve == "deny" {
		cfg.Approver = peer.DenyAll{}
	}
	if tc, err := transport.ParseTailcatRelay(o.tailcatRelay); err == nil {
		cfg.Tailcat = tc
	}
	o.retention.apply(&cfg)
	return cfg
}

// serveNode starts n, serves the local API on DIR/awp.sock and waits for
// a signal (e.ctx) or the node to end; then it closes the local API first
// (no new requests), then the node (which keeps every line it acked).
func serveNode(e *env, log *slog.Logger, n node, dir string) error {
	if err := n.Start(); err != nil {
		return errors.Join(fmt.Errorf("start: %w", err), n.Close())
	}
	sock := localapi.SocketPath(dir)
	l, err := localapi.Listen(sock)
	if err != nil {
		if errors.Is(err, localapi.ErrAlreadyRunning) {
			err = fmt.Errorf("a peer is already running for %s", dir)
		}
		return errors.Join(err, n.Close())
	}
	srv := &localapi.Server{Backend: n, Logger: log.With("component", "localapi")}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()

	for _, a := range n.ListenAddrs() {
		log.Info("listening", "addr", a)
	}
	log.Info("ready", "key", n.Key().String(), "name", n.Name(), "data", dir, "socket", sock)

	var runErr error
	serveDone := false
	select {
	case <-e.ctx.Done():
		log.Info("shutting down")
	case <-n.Done():
		runErr = errors.New("the peer stopped")
	case serr := <-served:
		serveDone = true
		runErr = fmt.Errorf("local API stopped: %v", serr)
	}
	if err := srv.Close(); err != nil {
		log.Warn("closing the local API", "err", err)
	}
	if !serveDone {
		if serr := <-served; serr != nil {
			log.Warn("local API", "err", serr)
		}
	}
	if err := n.Close(); err != nil {
		return errors.Join(runErr, fmt.Errorf("close: %w", err))
	}
	if runErr != nil {
		return runErr
	}
	log.Info("stopped")
	return nil
}
