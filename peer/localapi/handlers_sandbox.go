package localapi

import (
	"context"
	"net/http"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/profile"
)

// ExecSandboxer is implemented by backends that say, and let the person
// choose, how exec runs (a *peer.Node does): GET and POST
// /v0/exec-sandbox. Other backends answer those with not_found.
type ExecSandboxer interface {
	// ExecSandbox says how exec runs now.
	ExecSandbox() profile.SandboxStatus
	// SetExecSandbox changes the mode (auto, bwrap or none) and stores it.
	SetExecSandbox(mode string) error
}

var _ ExecSandboxer = (*peer.Node)(nil)

type sandboxBody struct {
	Mode string `json:"mode"`
}

func (s *Server) sandboxer(w http.ResponseWriter) (ExecSandboxer, bool) {
	sb, ok := s.Backend.(ExecSandboxer)
	if !ok {
		writeError(w, http.StatusNotFound, codeNotFound, "localapi: this peer has no exec sandbox setting")
	}
	return sb, ok
}

func (s *Server) handleExecSandbox(w http.ResponseWriter, r *http.Request) {
	if sb, ok := s.sandboxer(w); ok {
		writeJSON(w, sb.ExecSandbox())
	}
}

func (s *Server) handleSetExecSandbox(w http.ResponseWriter, r *http.Request) {
	sb, ok := s.sandboxer(w)
	if !ok {
		return
	}
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
