package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// names lists dir's entries, hidden ones (a temporary file) included.
func names(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range m {
		m[i] = filepath.Base(m[i])
	}
	return m
}

func TestWriteFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b") // created on the way
	if err := WriteFile(dir, "f.conf", []byte("one\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(dir, "f.conf", []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "f.conf"))
	if err != nil || string(b) != "two\n" {
		t.Fatalf("f.conf = %q, %v; want the second content", b, err)
	}
	fi, err := os.Stat(filepath.Join(dir, "f.conf"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	if got := names(t, dir); !slices.Equal(got, []string{"f.conf"}) {
		t.Errorf("directory holds %q, want only f.conf", got)
	}
}

// A write that fails part way (a full disk) leaves the old file as it was
// and no temporary file behind.
func TestWriteFileFailedWriteKeepsOld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.conf")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	full := errors.New("no space left on device")
	defer func(w func(*os.File, []byte) (int, error)) { writeTemp = w }(writeTemp)
	writeTemp = func(f *os.File, data []byte) (int, error) {
		n, err := f.Write(data[:len(data)/2])
		if err != nil {
			return n, err
		}
		return n, full
	}
	err := WriteFile(dir, "f.conf", []byte("the new content, twice as long\n"), 0o644)
	if !errors.Is(err, full) || !strings.HasPrefix(err.Error(), "write: ") {
		t.Fatalf("WriteFile with a failing write: %v, want write: %v", err, full)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "old\n" {
		t.Errorf("after a failed write f.conf = %q, %v; want the old content", b, err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"f.conf"}) {
		t.Errorf("directory holds %q, want only f.conf", got)
	}
}

// A rename that fails (the name is a directory) leaves it and no
// temporary file behind.
func TestWriteFileFailedRename(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "f.conf", "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(dir, "f.conf", []byte("x"), 0o644); err == nil {
		t.Fatal("WriteFile over a directory succeeded")
	}
	if got := names(t, dir); !slices.Equal(got, []string{"f.conf"}) {
		t.Errorf("directory holds %q, want only f.conf", got)
	}
	if got := names(t, filepath.Join(dir, "f.conf")); !slices.Equal(got, []string{"inside"}) {
		t.Errorf("f.conf/ holds %q, want only inside", got)
	}
}

// A directory that cannot be made (a file is in the way) is an error, and
// nothing is written.
func TestWriteFileNoDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "file"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(filepath.Join(dir, "file", "sub"), "f.conf", []byte("x"), 0o644)
	if err == nil {
		t.Fatal("WriteFile below a file succeeded")
	}
	if b, err := os.ReadFile(filepath.Join(dir, "file")); err != nil || string(b) != "keep" {
		t.Errorf("the file in the way = %q, %v", b, err)
	}
}
