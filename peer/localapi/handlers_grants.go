package localapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Grants and profile requests: POST /v0/grant, GET /v0/grants,
// POST /v0/revoke, POST /v0/request.

func (s *Server) handleGrant(w http.ResponseWriter, r *http.Request) {
	serve(s, w, r, "grant", func(req GrantRequest) (any, error) {
		if req.To.IsZero() || len(req.Caps) == 0 || req.TTL == "" {
			return nil, badRequest("localapi: grant: to, caps and ttl are required")
		}
		ttl, err := time.ParseDuration(req.TTL)
		if err != nil || ttl <= 0 {
			return nil, badRequest(fmt.Sprintf("localapi: grant: ttl %q: want a positive Go duration", req.TTL))
		}
		return s.Backend.Grant(r.Context(), req.To, req.Caps, ttl, req.On, req.Note)
	})
}

func (s *Server) handleGrants(w http.ResponseWriter, r *http.Request) {
	gs, err := s.Backend.Grants()
	s.reply(w, "grants", nonNil(gs), err)
}

func (s *Server) handleRevoke(w http.ResponseWriter, r *http.Request) {
	serve(s, w, r, "revoke", func(req revokeRequest) (any, error) {
		if req.ID == "" {
			return nil, badRequest("localapi: revoke: id is required")
		}
		return struct{}{}, s.Backend.RevokeGrant(req.ID)
	})
}

// handleRequest sends a profile request and answers with the result part's
// data, or with the err line that answered it (code peer_err, status 502).
// It waits as long as the client does: the request's context is the
// node's deadline.
func (s *Server) handleRequest(w http.ResponseWriter, r *http.Request) {
	serve(s, w, r, "request", func(req ProfileRequest) (any, error) {
		if req.To.IsZero() || req.Mime == "" || len(req.Data) == 0 {
			return nil, badRequest("localapi: request: to, mime and data are required")
		}
		return s.Backend.Request(r.Context(), req.To, req.Mime, req.Data, req.Th)
	})
}

// writeRaw answers with a JSON value byte for byte (encoding/json would
// compact it), followed by a newline.
func writeRaw(w http.ResponseWriter, v json.RawMessage) {
	if !json.Valid(v) {
		writeError(w, http.StatusInternalServerError, codeBackend, "localapi: the node returned invalid JSON")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(append(append([]byte(nil), v...), '\n'))
}
