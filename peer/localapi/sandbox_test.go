package localapi_test

import (
	"context"
	"errors"
	"testing"

	"github.com/awp-tray/awp-tray/peer/localapi"
	"github.com/awp-tray/awp-tray/peer/profile"
)

func TestExecSandboxEndpoints(t *testing.T) {
	ctx := context.Background()
	f, c, _ := setup(t)
	f.SandboxMode = profile.SandboxAuto
	var re *localapi.RemoteError
	st, err := c.ExecSandbox(ctx)
	if err != nil || st.Mode != profile.SandboxAuto || st.Sandbox != profile.SandboxBwrap || !st.Network {
		t.Fatalf("status %+v %v", st, err)
	}
	st, err = c.SetExecSandbox(ctx, profile.SandboxNone)
	if err != nil || st.Mode != profile.SandboxNone || !st.Unsandboxed() || f.ExecSandbox().Mode != profile.SandboxNone {
		t.Fatalf("set none: %+v %v", st, err)
	}
	if _, err := c.SetExecSandbox(ctx, "chroot"); !errors.As(err, &re) || re.Code != "bad_request" || f.ExecSandbox().Mode != profile.SandboxNone {
		t.Fatalf("set chroot: %v (mode %s)", err, f.ExecSandbox().Mode)
	}
}
