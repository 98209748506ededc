package localapi

import (
	"context"
	"net/http"

	"github.com/awp-tray/awp-tray/peer"
)

// Retainer is implemented by backends that keep threads and blobs for a
// set time (a *peer.Node does): GET and POST /v0/retention. Other backends
// answer those with not_found.
type Retainer interface {
	// Retention is the stored setting.
	Retention() (peer.Retention, error)
	// SetRetention stores a new one.
	SetRetention(r peer.Retention) error
}

var _ Retainer = (*peer.Node)(nil)

// RetentionBody is the body of GET and POST /v0/retention: each a number
// of days ("90d"), a Go duration ("36h") or "off" (keep forever). In a
// POST, a field left out keeps its setting.
type RetentionBody struct {
	KeepThreads *string `json:"keep_threads,omitempty"`
	KeepBlobs   *string `json:"keep_blobs,omitempty"`
}

func retentionBody(r peer.Retention) RetentionBody {
	t, b := peer.FormatKeep(r.KeepThreads), peer.FormatKeep(r.KeepBlobs)
	return RetentionBody{KeepThreads: &t, KeepBlobs: &b}
}

func (s *Server) retainer(w http.ResponseWriter) (Retainer, bool) {
	rt, ok := s.Backend.(Retainer)
	if !ok {
		writeError(w, http.StatusNotFound, codeNotFound, "localapi: this peer has no retention setting")
	}
	return rt, ok
}

func (s *Server) handleRetention(w http.ResponseWriter, r *http.Request) {
	rt, ok := s.retainer(w)
	if !ok {
		return
	}
	cur, err := rt.Retention()
	if err != nil {
		s.fail(w, "retention", err)
		return
	}
	writeJSON(w, retentionBody(cur))
}

func (s *Server) handleSetRetention(w http.ResponseWriter, r *http.Request) {
	rt, ok := s.retainer(w)
	if !ok {
		return
	}
	var req RetentionBody
	if !s.decode(w, r, &req) {
		return
	}
	cur, err := rt.Retention()
	if err != nil {
		s.fail(w, "retention", err)
		return
	}
	if req.KeepThreads != nil {
		d, err := peer.ParseKeep(*req.KeepThreads)
		if err != nil {
			writeError(w, http.StatusBadRequest, codeBadRequest, "localapi: keep_threads: "+err.Error())
			return
		}
		cur.KeepThreads = d
	}
	if req.KeepBlobs != nil {
		d, err := peer.ParseKeep(*req.KeepBlobs)
		if err != nil {
			writeError(w, http.StatusBadRequest, codeBadRequest, "localapi: keep_blobs: "+err.Error())
			return
		}
		cur.KeepBlobs = d
	}
	if err := rt.SetRetention(cur); err != nil {
		s.fail(w, "retention", err)
		return
	}
	writeJSON(w, retentionBody(cur))
}

// Retention returns the running peer's retention setting.
func (c *Client) Retention(ctx context.Context) (RetentionBody, error) {
	var res RetentionBody
	err := c.call(ctx, "retention", http.MethodGet, "/v0/retention", nil, nil, &res)
	return res, err
}

// SetRetention changes it (nil fields keep theirs) and returns it.
func (c *Client) SetRetention(ctx context.Context, b RetentionBody) (RetentionBody, error) {
	var res RetentionBody
	err := c.call(ctx, "retention", http.MethodPost, "/v0/retention", nil, b, &res)
	return res, err
}
