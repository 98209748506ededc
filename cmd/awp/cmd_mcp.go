package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/awp-tray/awp-tray/cmd/awp/internal/mcpserver"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/localapi"
)

// mcpStdin is what `awp mcp` reads JSON-RPC from.
var mcpStdin io.ReadCloser = os.Stdin

// runMCP serves one MCP session on stdin/stdout: stdout carries JSON-RPC
// only, logs go to stderr. It ends when the client closes stdin, or on
// SIGINT/SIGTERM; a peer it started stops then too.
func runMCP(e *env, args []string) error {
	fs := newFlags("mcp")
	var o runOptions
	o.flags(fs)
	// An agent's peer rarely moves large blobs: it makes the transfer
	// buffers (76 MiB) when one comes, unless --warm-buffers says otherwise.
	if f := fs.Lookup("warm-buffers"); f != nil {
		o.warmBuffers, f.DefValue = false, "false"
	}
	runPeer := fs.Bool("run", false, "start the peer of --data in this process when none runs, and stop it when the session ends")
	if err := fs.parseNoArgs(args); err != nil {
		return err
	}
	if !*runPeer {
		var stray string
		fs.Visit(func(f *flag.Flag) {
			if f.Name != "data" && f.Name != "run" && f.Name != "verbose" {
				stray = f.Name
			}
		})
		if stray != "" {
			return usagef("--%s is a flag of the peer: it goes with --run", stray)
		}
	}
	if err := o.check(); err != nil {
		return err
	}
	dir, err := e.dataDir(fs.data)
	if err != nil {
		return err
	}
	log := e.logger(o.verbose)
	c := localapi.NewClient(localapi.SocketPath(dir))
	opt := mcpserver.Options{DataDir: dir, Logger: log.With("component", "mcp"), Version: peer.Version}

	var own *ownPeer
	if *runPeer {
		own = &ownPeer{e: e, o: &o, dir: dir, log: log, c: c}
		if err := own.ensure(e.ctx); err != nil {
			// Keep serving: every tool call says why (and tries again).
			log.Error("could not start the peer", "data", dir, "err", err)
		}
		opt.Ensure = own.ensure
	} else if id, err := c.Identity(e.ctx); err != nil {
		log.Warn("no peer is running yet: tool calls will say so until one runs", "data", dir, "err", err)
	} else {
		log.Info("attached to the running peer", "key", id.Key, "name", id.Name, "data", dir)
	}

	srv := mcpserver.New(c, opt)
	err = srv.Run(e.ctx, &mcp.IOTransport{Reader: mcpStdin, Writer: nopCloser{e.stdout}})
	srv.Close()
	log.Info("MCP session ended")
	if own != nil {
		err = errors.Join(err, own.stop())
	}
	return err
}

// nopCloser is a writer whose Close does nothing: closing the session
// must not close stdout under the process.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// ownPeer is the peer `awp mcp --run` starts in this process when none
// runs for the data directory: the same node, flags and local API as
// `awp run` (serveNode), so `awp` commands and other agents reach it.
type ownPeer struct {
	e   *env
	o   *runOptions
	dir string
	log *slog.Logger
	c   *localapi.Client

	mu     sync.Mutex
	cancel context.CancelFunc // ends the running peer; nil when none
	done   chan error         // serveNode's result
}

// readyPoll is how often ensure asks a starting peer whether it answers.
const readyPoll = 20 * time.Millisecond

// ensure returns once a peer answers on the data directory's socket,
// starting one here when none does. A peer it started that has ended is
// started again.
func (p *ownPeer) ensure(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := p.c.Identity(ctx); !errors.Is(err, localapi.ErrNotRunning) {
		return err // nil: one runs (ours, the tray's, or `awp run`'s)
	}
	if p.done != nil {
		select {
		case err := <-p.done:
			p.log.Warn("the peer started for this session stopped; starting it again", "err", err)
			p.cancel()
			p.cancel, p.done = nil, nil
		default:
			// Ours is still coming up or going down: wait for it below.
		}
	}
	if p.done == nil {
		if err := p.start(); err != nil {
			return err
		}
	}
	t := time.NewTicker(readyPoll)
	defer t.Stop()
	for {
		if _, err := p.c.Identity(ctx); err == nil {
			return nil
		}
		select {
		case err := <-p.done:
			p.cancel()
			p.cancel, p.done = nil, nil
			if err == nil {
				err = errors.New("the peer stopped as it started")
			}
			return err
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// start builds the node from the run flags and serves it on a goroutine.
func (p *ownPeer) start() error {
	priv, created, err := p.e.loadIdentity(p.dir, p.o.keyring)
	if err != nil {
		return err
	}
	if created {
		p.log.Info("created a new identity", "key", priv.Public().String())
	}
	ws := p.o.workspace
	if ws == "" {
		if ws, err = os.Getwd(); err != nil {
			return fmt.Errorf("workspace: %w", err)
		}
	}
	if ws, err = filepath.Abs(ws); err != nil {
		return fmt.Errorf("workspace: %w", err)
	}
	listen := []string(p.o.listen)
	if len(listen) == 0 {
		listen = []string{defaultListen}
	}
	n, err := newNode(p.o.config(priv, p.dir, ws, listen, p.log))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	pe := &env{ctx: ctx, stdout: io.Discard, stderr: p.e.stderr, getenv: p.e.getenv}
	go func() { done <- serveNode(pe, p.log, n, p.dir) }()
	p.cancel, p.done = cancel, done
	return nil
}

// stop ends a peer ensure started, cleanly (serveNode closes the local API
// and then the node), and waits for it.
func (p *ownPeer) stop() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cancel == nil {
		return nil
	}
	p.cancel()
	err := <-p.done
	p.cancel, p.done = nil, nil
	return err
}
