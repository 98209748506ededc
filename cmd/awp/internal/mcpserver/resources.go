package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// Resources: awp://inbox and awp://thread/{th}, both subscribable.

const (
	// InboxURI is the unread lines of every thread.
	InboxURI = "awp://inbox"
	// threadPrefix starts a thread's URI: awp://thread/{th}.
	threadPrefix = "awp://thread/"
	jsonMime     = "application/json"
)

// ThreadURI is the resource URI of thread th.
func ThreadURI(th string) string { return threadPrefix + th }

func (s *Server) addResources() {
	s.mcp.AddResource(&mcp.Resource{URI: InboxURI, Name: "inbox", Title: "AWP inbox", MIMEType: jsonMime,
		Description: "Threads with unread lines and those lines, as awp_inbox returns them (reading it leaves them unread). Subscribe to hear when a line arrives."},
		s.readInbox)
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: threadPrefix + "{th}", Name: "thread", Title: "AWP thread", MIMEType: jsonMime,
		Description: fmt.Sprintf("One thread and its newest %d lines, as awp_show returns them. Subscribe to hear when a line is stored in it.", MaxShowLimit)},
		s.readThread)
}

func (s *Server) readInbox(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	ths, more, err := s.unread(ctx, filter{}, true)
	if err != nil {
		return nil, err
	}
	return jsonContents(req.Params.URI, InboxOut{Threads: nonNil(ths), More: more, Peeked: true})
}

func (s *Server) readThread(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	th, ok := strings.CutPrefix(req.Params.URI, threadPrefix)
	if !ok || !wire.ValidThread(th) {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	out, err := s.thread(ctx, th, key.PublicKey{}, 0, MaxShowLimit, false)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, err
		}
		if strings.Contains(err.Error(), "no such thread") {
			return nil, mcp.ResourceNotFoundError(req.Params.URI)
		}
		return nil, err
	}
	return jsonContents(req.Params.URI, out)
}

func jsonContents(uri string, v any) (*mcp.ReadResourceResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: jsonMime, Text: string(b)}}}, nil
}

// subscribe accepts a subscription to the inbox or a thread and makes
// sure the watcher runs: with a peer running, the watcher is subscribed to
// its events before subscribe returns, so no line stored after the
// subscription goes unannounced.
func (s *Server) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	if th, ok := strings.CutPrefix(uri, threadPrefix); uri != InboxURI && (!ok || !wire.ValidThread(th)) {
		return fmt.Errorf("no resource %q: subscribe to %s or %s{th}", uri, InboxURI, threadPrefix)
	}
	s.watchMu.Lock()
	if !s.watching {
		s.watching = true
		s.watchUp = make(chan struct{})
		s.wg.Add(1)
		go s.watch(s.watchUp)
	}
	up := s.watchUp
	s.watchMu.Unlock()
	select {
	case <-up:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// unsubscribe has nothing to undo: the SDK keeps who is subscribed, and
// the watcher stays for the session (one idle connection to the peer).
func (s *Server) unsubscribe(context.Context, *mcp.UnsubscribeRequest) error { return nil }

// watch follows the peer's events until Close and announces changes to
// the subscribed resources; when the peer is not running it asks again
// every watchRetry. up is closed once the first attempt is over.
func (s *Server) watch(up chan struct{}) {
	defer s.wg.Done()
	first := true
	for {
		stream, err := s.c.Watch(s.ctx)
		if first {
			close(up)
		}
		if err != nil {
			if s.ctx.Err() != nil {
				return
			}
			if first {
				s.log.Info("awp mcp: no peer to watch yet; resource updates start once it runs", "err", err)
			}
			first = false
			select {
			case <-s.ctx.Done():
				return
			case <-time.After(watchRetry):
			}
			continue
		}
		if !first {
			// Lines may have come and gone while nobody watched.
			s.updated(InboxURI)
		}
		first = false
		for {
			ev, err := stream.Next()
			if err != nil {
				break
			}
			switch {
			case ev.Type == peer.EventLine && ev.Line != nil && ev.Line.MirroredFrom.IsZero() && !ev.Replayed:
				s.updated(ThreadURI(ev.Th))
				if ev.Line.Dir == "in" {
					s.updated(InboxURI)
				}
			case ev.Type == peer.EventThread:
				s.updated(InboxURI) // read, or a state change
			}
		}
		stream.Close()
		if s.ctx.Err() != nil {
			return
		}
	}
}

// updated sends notifications/resources/updated for uri to the sessions
// subscribed to it (the SDK sends nothing when none is).
func (s *Server) updated(uri string) {
	if err := s.mcp.ResourceUpdated(s.ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
		s.log.Debug("resource updated", "uri", uri, "err", err)
	}
}
