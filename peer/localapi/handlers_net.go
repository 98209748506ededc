package localapi

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/awp-tray/awp-tray/peer"
)

// Presence, mirroring and invites: GET /v0/presence, GET and POST
// /v0/presence/detail, GET and POST /v0/mirror/hosts, POST /v0/mirror,
// POST /v0/private, GET /v0/invite, POST /v0/add.

func (s *Server) handlePresence(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(append(AppendPresence(nil, s.Backend.Presence()), '\n'))
}

// AppendPresence appends list as a JSON array of
// {"doc","hops","received","from"} to dst, with each doc byte for byte as
// received (encoding/json would compact a json.RawMessage; a presence
// document is signed, so it is passed on unchanged). A doc that is not
// valid JSON is written as null. Strings are not HTML-escaped.
func AppendPresence(dst []byte, list []peer.PresenceInfo) []byte {
	dst = append(dst, '[')
	for i, p := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"doc":`...)
		if len(p.Doc) > 0 && json.Valid(p.Doc) {
			dst = append(dst, p.Doc...)
		} else {
			dst = append(dst, "null"...)
		}
		dst = append(dst, `,"hops":`...)
		dst = strconv.AppendInt(dst, int64(p.Hops), 10)
		dst = append(dst, `,"received":`...)
		dst = appendJSONString(dst, p.Received)
		dst = append(dst, `,"from":`...)
		dst = appendKey(dst, p.From)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

func (s *Server) handlePresenceDetail(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, detailBody{Detail: s.Backend.PresenceDetail()})
}

func (s *Server) handleSetPresenceDetail(w http.ResponseWriter, r *http.Request) {
	serve(s, w, r, "presence detail", func(req detailBody) (any, error) {
		if err := s.Backend.SetPresenceDetail(req.Detail); err != nil {
			return nil, err
		}
		return detailBody{Detail: s.Backend.PresenceDetail()}, nil
	})
}

func (s *Server) handleMirrorHosts(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, nonNil(s.Backend.MirrorHosts()))
}

// handleSetMirrorHosts replaces the mirror hosts and answers with the
// hosts now set (deduplicated, as the node keeps them).
func (s *Server) handleSetMirrorHosts(w http.ResponseWriter, r *http.Request) {
	serve(s, w, r, "mirror hosts", func(req hostsBody) (any, error) {
		if err := s.Backend.SetMirrorHosts(req.Hosts); err != nil {
			return nil, err
		}
		return nonNil(s.Backend.MirrorHosts()), nil
	})
}

func (s *Server) handleMirror(w http.ResponseWriter, r *http.Request) {
	serve(s, w, r, "mirror", func(req mirrorRequest) (any, error) {
		if req.Th == "" {
			return nil, badRequest("localapi: mirror: th is required")
		}
		return struct{}{}, s.Backend.SetMirror(req.Th, req.On)
	})
}

func (s *Server) handlePrivate(w http.ResponseWriter, r *http.Request) {
	serve(s, w, r, "private", func(req privateRequest) (any, error) {
		if req.Th == "" {
			return nil, badRequest("localapi: private: th is required")
		}
		return s.Backend.SetPrivate(req.Th, req.From)
	})
}

func (s *Server) handleInvite(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, inviteBody{Invite: s.Backend.Invite()})
}

// handleAdd adds a peer from an invite; a failure after the peer was
// recorded carries its key in the body ("key").
func (s *Server) handleAdd(w http.ResponseWriter, r *http.Request) {
	var req inviteBody
	if !s.decode(w, r, &req) {
		return
	}
	if req.Invite == "" {
		writeError(w, http.StatusBadRequest, codeBadRequest, "localapi: add: invite is required")
		return
	}
	k, err := s.Backend.AddInvite(r.Context(), req.Invite)
	if err != nil {
		var eb errorBody
		if !k.IsZero() {
			eb.Key = k
		}
		s.failBody(w, "add", err, eb)
		return
	}
	writeJSON(w, connectResponse{Key: k})
}
