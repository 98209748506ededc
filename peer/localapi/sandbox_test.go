package localapi_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/awp-tray/awp-tray/peer/localapi"
	"github.com/awp-tray/awp-tray/peer/localapi/localapitest"
	"github.com/awp-tray/awp-tray/peer/profile"
)

// sandboxFake is the fake with the exec sandbox setting.
type sandboxFake struct {
	*localapitest.Fake
	mu   sync.Mutex
	mode string
}

func (f *sandboxFake) ExecSandbox() profile.SandboxStatus {
	m := f.getMode()
	sb := profile.SandboxBwrap
	if m == profile.SandboxNone {
		sb = profile.SandboxNone
	}
	return profile.SandboxStatus{Mode: m, Sandbox: sb, Network: true, Available: true}
}

func (f *sandboxFake) SetExecSandbox(mode string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mode = mode
	return nil
}

func (f *sandboxFake) getMode() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.mode
}

func TestExecSandboxEndpoints(t *testing.T) {
	ctx := context.Background()
	// A backend without the setting answers not_found.
	_, c, _ := setup(t)
	var re *localapi.RemoteError
	if _, err := c.ExecSandbox(ctx); !errors.As(err, &re) || re.Code != "not_found" {
		t.Fatalf("without ExecSandboxer: %v", err)
	}

	f := &sandboxFake{Fake: &localapitest.Fake{PubKey: newKey(t), NameV: "s"}, mode: profile.SandboxAuto}
	dir, _ := localapitest.Serve(t, f)
	c = localapi.NewClient(localapi.SocketPath(dir))
	t.Cleanup(c.CloseIdle)
	st, err := c.ExecSandbox(ctx)
	if err != nil || st.Mode != profile.SandboxAuto || st.Sandbox != profile.SandboxBwrap || !st.Network {
		t.Fatalf("status %+v %v", st, err)
	}
	st, err = c.SetExecSandbox(ctx, profile.SandboxNone)
	if err != nil || st.Mode != profile.SandboxNone || !st.Unsandboxed() || f.getMode() != profile.SandboxNone {
		t.Fatalf("set none: %+v %v", st, err)
	}
	if _, err := c.SetExecSandbox(ctx, "chroot"); !errors.As(err, &re) || re.Code != "bad_request" || f.getMode() != profile.SandboxNone {
		t.Fatalf("set chroot: %v (mode %s)", err, f.getMode())
	}
}
