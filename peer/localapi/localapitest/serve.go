package localapitest

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/awp-tray/awp-tray/peer/localapi"
)

// Serve serves b on a fresh data directory's control socket until the
// test ends, and returns the data directory and the server. Cleanup closes
// the server and checks that Serve returned nil.
func Serve(t testing.TB, b localapi.Backend) (dataDir string, srv *localapi.Server) {
	t.Helper()
	dataDir = ShortTempDir(t)
	l, err := localapi.Listen(localapi.SocketPath(dataDir))
	if err != nil {
		t.Fatalf("localapitest: %v", err)
	}
	srv = &localapi.Server{Backend: b}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("localapitest: close: %v", err)
		}
		if err := <-done; err != nil {
			t.Errorf("localapitest: serve: %v", err)
		}
	})
	return dataDir, srv
}

// ShortTempDir returns a temporary directory (mode 0700) whose path is
// short enough for a unix socket inside it (sun_path is 108 bytes), which
// t.TempDir's long, test-named paths may not be.
func ShortTempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "awp")
	if err != nil {
		t.Fatalf("localapitest: %v", err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Errorf("localapitest: %v", err)
		}
	})
	return filepath.Clean(dir)
}
