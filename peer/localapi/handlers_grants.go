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
	var req GrantRequest
	if !s.decode(w, r, &req) {
		return
	}
	if req.To.IsZero() || len(req.Caps) == 0 || req.TTL == "" {
		writeError(w, http.StatusBadRequest, codeBadRequest, "localapi: grant: to, caps and ttl are required")
		return
	}
	ttl, err := time.ParseDuration(req.TTL)
	if err != nil || ttl <= 0 {
		writeError(w, http.StatusBadRequest, codeBadRequest, fmt.Sprintf("localapi: grant: ttl %q: want a positive Go duration", req.TTL))
		return
	}
	g, err := s.Backend.Grant(r.Context(), req.To, req.Caps, ttl, req.On, req.Note)
	if err != nil {
		s.fail(w, "grant", err)
		return
	}
	writeRaw(w, g)
}

func (s *Server) handleGrants(w http.ResponseWriter, r *http.Request) {
	gs, err := s.Backend.Grants()
	if err != nil {
		s.fail(w, "grants", err)
		return
	}
	writeJSON(w, nonNil(gs))
}

func (s *Server) handleRevoke(w http.ResponseWriter, r *http.Request) {
	var req revokeRequest
	if !s.decode(w, r, &req) {
		return
	}
	if req.ID == "" {
		writeError(w, http.StatusBadRequest, codeBadRequest, "localapi: revoke: id is required")
		return
	}
	if err := s.Backend.RevokeGrant(req.ID); err != nil {
		s.fail(w, "revoke", err)
		return
	}
	writeJSON(w, struct{}{})
}

// handleRequest sends a profile request and answers with the result part's
// data, or with the err line that answered it (code peer_err, status 502).
// It waits as long as the client does: the request's context is the
// node's deadline.
func (s *Server) handleRequest(w http.ResponseWriter, r *http.Request) {
	var req ProfileRequest
	if !s.decode(w, r, &req) {
		return
	}
	if req.To.IsZero() || req.Mime == "" || len(req.Data) == 0 {
		writeError(w, http.StatusBadRequest, codeBadRequest, "localapi: request: to, mime and data are required")
		return
	}
	data, err := s.Backend.Request(r.Context(), req.To, req.Mime, req.Data, req.Th)
	if err != nil {
		s.fail(w, "request", err)
		return
	}
	writeRaw(w, data)
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
