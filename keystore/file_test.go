package keystore

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func openFile(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(Options{DataDir: dir, Mode: ModeFile})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// dirNames lists dir, to check that no temporary file is left behind.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestFileCreate(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data", "awp") // does not exist yet
	s := openFile(t, dir)
	if want := filepath.Join(dir, FileName); s.Location() != want {
		t.Fatalf("Location = %q, want %q", s.Location(), want)
	}
	if _, err := s.Load(ctx); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Load before create: %v, want ErrNotFound", err)
	}
	k, created, err := s.LoadOrCreate(ctx)
	if err != nil || !created || k.IsZero() {
		t.Fatalf("LoadOrCreate = %v, %v, %v", k, created, err)
	}
	path := filepath.Join(dir, FileName)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if checkPerms && fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %04o, want 0600", fi.Mode().Perm())
	}
	if di, err := os.Stat(dir); err != nil || (checkPerms && di.Mode().Perm() != 0o700) {
		t.Errorf("data directory: %v, %v; want mode 0700", di.Mode(), err)
	}
	b, _ := os.ReadFile(path)
	if string(b) != FormatSecret(k)+"\n" {
		t.Errorf("key file holds %q, want the secret form and a newline", b)
	}
	for _, n := range dirNames(t, dir) {
		if n != FileName && n != "identity.lock" {
			t.Errorf("left behind in the data directory: %s", n)
		}
	}

	k2, created, err := openFile(t, dir).LoadOrCreate(ctx)
	if err != nil || created || k2.Public() != k.Public() {
		t.Fatalf("second LoadOrCreate = %v, created %v, %v; want the same key", k2.Public(), created, err)
	}
}

// The key file appears complete or not at all: when it takes its name, the
// temporary file is already complete, synced and 0600.
func TestFileWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	k := testKey(t)
	called := false
	testHookBeforePublish = func(tmp string) {
		called = true
		if filepath.Dir(tmp) != dir {
			t.Errorf("temporary file %s is not in the data directory", tmp)
		}
		if _, err := os.Stat(filepath.Join(dir, FileName)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("key file exists before publish: %v", err)
		}
		b, err := os.ReadFile(tmp)
		if err != nil || string(b) != FormatSecret(k)+"\n" {
			t.Errorf("temporary file holds %q, %v", b, err)
		}
		if fi, err := os.Stat(tmp); err != nil || (checkPerms && fi.Mode().Perm() != 0o600) {
			t.Errorf("temporary file mode: %v, %v", fi.Mode(), err)
		}
	}
	t.Cleanup(func() { testHookBeforePublish = nil })
	if err := writeKeyFileNew(dir, k); err != nil {
		t.Fatal(err)
	}
	if !called {
		t.Fatal("hook not called")
	}
	if names := dirNames(t, dir); len(names) != 1 || names[0] != FileName {
		t.Fatalf("data directory holds %v, want only %s", names, FileName)
	}
}

// A write never replaces an existing key file, and leaves no temporary file.
func TestFileWriteNeverReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	old := []byte(FormatSecret(testKey(t)) + "\n")
	if err := os.WriteFile(path, old, 0o600); err != nil {
		t.Fatal(err)
	}
	other := newKey(t)
	if err := writeKeyFileNew(dir, other); !errors.Is(err, ErrExists) {
		t.Fatalf("writeKeyFileNew over an existing file: %v, want ErrExists", err)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, old) {
		t.Fatalf("existing key file changed to %q", b)
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Fatalf("data directory holds %v, want only %s", names, FileName)
	}
}

// Hostile or broken key files: a clear error, and the file stays as it was,
// through Load and LoadOrCreate alike.
func TestFileCorrupt(t *testing.T) {
	good := FormatSecret(testKey(t)) + "\n"
	for name, content := range map[string]string{
		"empty":       "",
		"garbage":     "hello, world\n",
		"public key":  testKey(t).Public().String() + "\n",
		"truncated":   good[:30],
		"two keys":    good + good,
		"huge":        strings.Repeat("x", 1<<20),
		"nul bytes":   "\x00\x00\x00",
		"crlf inside": SecretPrefix + "\r\n" + good[len(SecretPrefix):],
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, FileName)
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			s := openFile(t, dir)
			_, err := s.Load(context.Background())
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Load: %v, want ErrCorrupt", err)
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "untouched") {
				t.Errorf("error does not name the file and say it was kept: %v", err)
			}
			if _, _, err := s.LoadOrCreate(context.Background()); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("LoadOrCreate: %v, want ErrCorrupt", err)
			}
			if b, _ := os.ReadFile(path); string(b) != content {
				t.Fatal("the corrupt key file was modified")
			}
		})
	}
}

func TestFileNotRegular(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, FileName), 0o700); err != nil {
		t.Fatal(err)
	}
	s := openFile(t, dir)
	if _, _, err := s.LoadOrCreate(context.Background()); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("LoadOrCreate with a directory as key file: %v, want ErrCorrupt", err)
	}
	if fi, err := os.Stat(filepath.Join(dir, FileName)); err != nil || !fi.IsDir() {
		t.Fatal("the directory in the key file's place was touched")
	}
}

// A key file others may read is refused with an error that says how to fix
// it; the file is not changed (not even chmod-ed behind the user's back).
func TestFilePermissions(t *testing.T) {
	if !checkPerms {
		t.Skip("no Unix permissions on this platform")
	}
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604, 0o620, 0o666} {
		dir := t.TempDir()
		path := filepath.Join(dir, FileName)
		content := FormatSecret(testKey(t)) + "\n"
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		_, _, err := openFile(t, dir).LoadOrCreate(context.Background())
		if !errors.Is(err, ErrPermissions) {
			t.Fatalf("mode %04o: %v, want ErrPermissions", mode, err)
		}
		if !strings.Contains(err.Error(), "chmod 600 "+path) {
			t.Errorf("mode %04o: error does not say how to fix it: %v", mode, err)
		}
		fi, _ := os.Stat(path)
		b, _ := os.ReadFile(path)
		if fi.Mode().Perm() != mode || string(b) != content {
			t.Errorf("mode %04o: the key file was changed (now %04o)", mode, fi.Mode().Perm())
		}
		// Fixed as the error says, it loads.
		if err := os.Chmod(path, 0o600); err != nil {
			t.Fatal(err)
		}
		if k, err := openFile(t, dir).Load(context.Background()); err != nil || k.Public() != testKey(t).Public() {
			t.Fatalf("after chmod 600: %v", err)
		}
	}
}
