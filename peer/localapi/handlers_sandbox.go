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
	serve(s, w, r, "exec sandbox", func(req sandboxBody) (any, error) {
		if err := profile.CheckSandboxMode(req.Mode); err != nil {
			return nil, badRequest("localapi: " + err.Error())
		}
		if err := s.Backend.SetExecSandbox(req.Mode); err != nil {
			return nil, err
		}
		return s.Backend.ExecSandbox(), nil
	})
}

// ExecSandbox says how exec runs on the peer.
func (c *Client) ExecSandbox(ctx context.Context) (profile.SandboxStatus, error) {
	return callFor[profile.SandboxStatus](c, ctx, "exec sandbox", http.MethodGet, "/v0/exec-sandbox", nil, nil)
}

// SetExecSandbox sets how exec runs on the peer (auto, bwrap or none) and
// returns the status that follows.
func (c *Client) SetExecSandbox(ctx context.Context, mode string) (profile.SandboxStatus, error) {
	return callFor[profile.SandboxStatus](c, ctx, "exec sandbox", http.MethodPost, "/v0/exec-sandbox", nil, sandboxBody{Mode: mode})
}
