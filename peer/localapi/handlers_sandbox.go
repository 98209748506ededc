package localapi

import (
	"context"
	"net/http"

	"github.com/awp-tray/awp-tray/peer/profile"
)

type sandboxBody struct {
	Mode string `json:"mode"`
}

func (s *Server) handleExecSandbox(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, s.Backend.ExecSandbox())
}

func (s *Server) handleSetExecSandbox(w http.ResponseWriter, r *http.Request) {
	sb := s.Backend
	var req sandboxBody
	if !s.decode(w, r, &req) {
		return
	}
	if err := profile.CheckSandboxMode(req.Mode); err != nil {
		writeError(w, http.StatusBadRequest, codeBadRequest, "localapi: "+err.Error())
		return
	}
	if err := sb.SetExecSandbox(req.Mode); err != nil {
		s.fail(w, "exec sandbox", err)
		return
	}
	writeJSON(w, sb.ExecSandbox())
}

// ExecSandbox says how exec runs on the peer.
func (c *Client) ExecSandbox(ctx context.Context) (profile.SandboxStatus, error) {
	var res profile.SandboxStatus
	err := c.call(ctx, "exec sandbox", http.MethodGet, "/v0/exec-sandbox", nil, nil, &res)
	return res, err
}

// SetExecSandbox sets how exec runs on the peer (auto, bwrap or none) and
// returns the status that follows.
func (c *Client) SetExecSandbox(ctx context.Context, mode string) (profile.SandboxStatus, error) {
	var res profile.SandboxStatus
	err := c.call(ctx, "exec sandbox", http.MethodPost, "/v0/exec-sandbox", nil, sandboxBody{Mode: mode}, &res)
	return res, err
}
