package localapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
)

// Server serves the local API for a Backend. Set its fields, call Serve
// (on the listener from Listen) and Close when done. The zero value with a
// Backend set works; a nil Logger is silent.
type Server struct {
	// Backend is the node the requests act on (required).
	Backend Backend
	// Logger receives request failures; nil: silent.
	Logger *slog.Logger

	// mu guards: srv, closed, ctx, cancel, and handlers.Add.
	mu     sync.Mutex
	srv    *http.Server
	closed bool
	ctx    context.Context // parent of every request context; canceled by Close
	cancel context.CancelFunc

	handlers sync.WaitGroup // running handlers, waited for by Close
}

// Serve accepts connections on l until Close. It returns nil after Close
// (at once, closing l, when Close came first) and the accept error
// otherwise. Serve may be called for several listeners; Close stops them
// all.
func (s *Server) Serve(l net.Listener) error {
	srv := s.server()
	if srv == nil {
		l.Close()
		return nil
	}
	if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("localapi: serve: %w", err)
	}
	return nil
}

// server returns the http.Server, made on first use; nil after Close.
func (s *Server) server() *http.Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	if s.srv == nil {
		s.ctx, s.cancel = context.WithCancel(context.Background())
		ctx := s.ctx
		s.srv = &http.Server{
			Handler:     s.routes(),
			BaseContext: func(net.Listener) context.Context { return ctx },
			ErrorLog:    slog.NewLogLogger(s.logger().Handler(), slog.LevelDebug),
		}
	}
	return s.srv
}

// Close stops accepting, ends every request (watch streams too: their
// contexts are canceled), closes the listeners and waits for the running
// handlers. Calling it more than once is safe.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	srv, cancel := s.srv, s.cancel
	s.mu.Unlock()
	if srv == nil {
		return nil
	}
	cancel()
	err := srv.Close()
	s.handlers.Wait()
	if err != nil {
		return fmt.Errorf("localapi: close: %w", err)
	}
	return nil
}

func (s *Server) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Logger
}

// routes builds the mux: one endpoint per command.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	handle := func(pattern string, h http.HandlerFunc) {
		mux.Handle(pattern, s.track(h))
	}
	handle("GET /v0/id", s.handleID)
	handle("POST /v0/connect", s.handleConnect)
	handle("POST /v0/send", s.handleSend)
	handle("POST /v0/state", s.handleState)
	handle("GET /v0/threads", s.handleThreads)
	handle("GET /v0/thread", s.handleThread)
	handle("GET /v0/lines", s.handleLines)
	handle("POST /v0/read", s.handleRead)
	handle("GET /v0/peers", s.handlePeers)
	handle("POST /v0/trust", s.handleTrust)
	handle("GET /v0/blobs", s.handleBlobs)
	handle("GET /v0/blob", s.handleBlob)
	handle("GET /v0/watch", s.handleWatch)
	handle("GET /v0/pending", s.handlePending)
	handle("GET /v0/pending/history", s.handleApprovalHistory)
	handle("POST /v0/decide", s.handleDecide)
	handle("POST /v0/grant", s.handleGrant)
	handle("GET /v0/grants", s.handleGrants)
	handle("POST /v0/revoke", s.handleRevoke)
	handle("POST /v0/request", s.handleRequest)
	handle("GET /v0/presence", s.handlePresence)
	handle("GET /v0/presence/detail", s.handlePresenceDetail)
	handle("POST /v0/presence/detail", s.handleSetPresenceDetail)
	handle("GET /v0/mirror/hosts", s.handleMirrorHosts)
	handle("POST /v0/mirror/hosts", s.handleSetMirrorHosts)
	handle("POST /v0/mirror", s.handleMirror)
	handle("POST /v0/private", s.handlePrivate)
	handle("GET /v0/invite", s.handleInvite)
	handle("POST /v0/add", s.handleAdd)
	handle("GET /v0/exec-sandbox", s.handleExecSandbox)
	handle("POST /v0/exec-sandbox", s.handleSetExecSandbox)
	handle("GET /v0/retention", s.handleRetention)
	handle("POST /v0/retention", s.handleSetRetention)
	mux.Handle("/", s.track(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, codeNotFound, "localapi: no endpoint "+r.Method+" "+r.URL.Path)
	}))
	return mux
}

// track counts running handlers so Close can wait for them.
func (s *Server) track(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Add under mu, so no handler starts once Close waits.
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			writeError(w, http.StatusServiceUnavailable, codeCanceled, "localapi: server closing")
			return
		}
		s.handlers.Add(1)
		s.mu.Unlock()
		defer s.handlers.Done()
		h(w, r)
	})
}
