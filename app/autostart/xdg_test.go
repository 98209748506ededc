//go:build !windows && !darwin

package autostart

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// In a Flatpak sandbox Dir says, in words, that there is no login entry,
// instead of handing out a directory the sandbox cannot write.
func TestDirSandboxed(t *testing.T) {
	info := filepath.Join(t.TempDir(), ".flatpak-info")
	old := flatpakInfo
	flatpakInfo = info
	t.Cleanup(func() { flatpakInfo = old })
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())

	if d, err := Dir(); err != nil || filepath.Base(d) != "autostart" {
		t.Fatalf("outside a sandbox: Dir() = %q, %v", d, err)
	}
	if err := os.WriteFile(info, []byte("[Application]\nname=dev.awp.tray\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d, err := Dir(); !errors.Is(err, ErrSandboxed) || d != "" {
		t.Fatalf("in a sandbox: Dir() = %q, %v; want ErrSandboxed", d, err)
	}
}
