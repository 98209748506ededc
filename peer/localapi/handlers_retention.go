package localapi

import (
	"context"
	"fmt"
	"net/http"

	"github.com/awp-tray/awp-tray/peer"
)

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

func (s *Server) handleRetention(w http.ResponseWriter, r *http.Request) {
	cur, err := s.Backend.Retention()
	s.reply(w, "retention", retentionBody(cur), err)
}

func (s *Server) handleSetRetention(w http.ResponseWriter, r *http.Request) {
	serve(s, w, r, "retention", func(req RetentionBody) (any, error) {
		cur, err := s.Backend.Retention()
		if err != nil {
			return nil, err
		}
		if req.KeepThreads != nil {
			if cur.KeepThreads, err = peer.ParseKeep(*req.KeepThreads); err != nil {
				return nil, badRequest("localapi: keep_threads: " + err.Error())
			}
		}
		if req.KeepBlobs != nil {
			if cur.KeepBlobs, err = peer.ParseKeep(*req.KeepBlobs); err != nil {
				return nil, badRequest("localapi: keep_blobs: " + err.Error())
			}
		}
		return retentionBody(cur), s.Backend.SetRetention(cur)
	})
}

// Retention returns the running peer's retention setting.
func (c *Client) Retention(ctx context.Context) (RetentionBody, error) {
	return callFor[RetentionBody](c, ctx, "retention", http.MethodGet, "/v0/retention", nil, nil)
}

// SetRetention changes it (nil fields keep theirs) and returns it.
func (c *Client) SetRetention(ctx context.Context, b RetentionBody) (RetentionBody, error) {
	return callFor[RetentionBody](c, ctx, "retention", http.MethodPost, "/v0/retention", nil, b)
}

// bodyRetention reads a RetentionBody back (Remote): a field missing
// reads as off.
func bodyRetention(b RetentionBody) (peer.Retention, error) {
	var r peer.Retention
	var err error
	if b.KeepThreads != nil {
		if r.KeepThreads, err = peer.ParseKeep(*b.KeepThreads); err != nil {
			return r, fmt.Errorf("localapi: retention: keep_threads: %w", err)
		}
	}
	if b.KeepBlobs != nil {
		if r.KeepBlobs, err = peer.ParseKeep(*b.KeepBlobs); err != nil {
			return r, fmt.Errorf("localapi: retention: keep_blobs: %w", err)
		}
	}
	return r, nil
}
