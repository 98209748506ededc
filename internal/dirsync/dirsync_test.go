package dirsync

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestSync(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Sync(dir); err != nil {
		t.Fatalf("Sync(%s): %v", dir, err)
	}
}

func TestSyncMissing(t *testing.T) {
	err := Sync(filepath.Join(t.TempDir(), "gone"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Sync of a missing directory: %v, want os.ErrNotExist", err)
	}
}
