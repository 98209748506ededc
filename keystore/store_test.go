package keystore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func openKeyring(t *testing.T, dir string, b Backend) *Store {
	t.Helper()
	s, err := Open(Options{DataDir: dir, Backend: b})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestKeyringCreate(t *testing.T) {
	ctx := context.Background()
	mem := NewMemory()
	dir := t.TempDir()
	s := openKeyring(t, dir, mem)
	if want := "OS keyring (service awp, account " + dir + ")"; s.Location() != want {
		t.Fatalf("Location = %q, want %q", s.Location(), want)
	}
	if _, err := s.Load(ctx); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Load before create: %v, want ErrNotFound", err)
	}
	k, created, err := s.LoadOrCreate(ctx)
	if err != nil || !created {
		t.Fatalf("LoadOrCreate = %v, %v", created, err)
	}
	// One entry, service awp, account the data directory, in the pinned form.
	secret, err := mem.Get(ctx, "awp", dir)
	if err != nil || secret != FormatSecret(k) || mem.Len() != 1 {
		t.Fatalf("keyring entry = %q, %v (%d entries); want the secret form", secret, err, mem.Len())
	}
	if _, err := os.Stat(filepath.Join(dir, FileName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("keyring mode wrote a key file: %v", err)
	}
	k2, created, err := openKeyring(t, dir, mem).LoadOrCreate(ctx)
	if err != nil || created || k2.Public() != k.Public() {
		t.Fatalf("second LoadOrCreate: created %v, %v; want the same key", created, err)
	}
	// Another data directory is another identity.
	k3, created, err := openKeyring(t, t.TempDir(), mem).LoadOrCreate(ctx)
	if err != nil || !created || k3.Public() == k.Public() {
		t.Fatalf("other data directory: created %v, %v", created, err)
	}
}

// The account is the absolute, cleaned data directory, however it was given.
func TestKeyringAccount(t *testing.T) {
	ctx := context.Background()
	mem := NewMemory()
	base := t.TempDir()
	t.Chdir(base)
	s := openKeyring(t, "./data/../data/", mem)
	want := filepath.Join(base, "data")
	if s.DataDir() != want {
		t.Fatalf("DataDir = %q, want %q", s.DataDir(), want)
	}
	if _, _, err := s.LoadOrCreate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := mem.Get(ctx, "awp", want); err != nil {
		t.Fatalf("no entry for account %s: %v", want, err)
	}
}

// A garbage keyring entry is reported, and kept.
func TestKeyringCorrupt(t *testing.T) {
	ctx := context.Background()
	for _, garbage := range []string{"", "hunter2", "ed25519-seed:", testKey(t).Public().String(), strings.Repeat("z", 100000)} {
		mem := NewMemory()
		dir := t.TempDir()
		if err := mem.Set(ctx, "awp", dir, garbage); err != nil {
			t.Fatal(err)
		}
		_, _, err := openKeyring(t, dir, mem).LoadOrCreate(ctx)
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("LoadOrCreate over %.20q: %v, want ErrCorrupt", garbage, err)
		}
		if !strings.Contains(err.Error(), "secret-tool clear service awp username "+dir) {
			t.Errorf("error does not say how to clear the entry: %v", err)
		}
		if got, _ := mem.Get(ctx, "awp", dir); got != garbage {
			t.Fatal("the corrupt keyring entry was overwritten")
		}
	}
}

// Switching to keyring mode must not silently create a second identity when
// the first one lives in the key file.
func TestKeyringOtherMode(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	k, _, err := openFile(t, dir).LoadOrCreate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mem := NewMemory()
	_, _, err = openKeyring(t, dir, mem).LoadOrCreate(ctx)
	if !errors.Is(err, ErrOtherMode) || !strings.Contains(err.Error(), "--keyring file") {
		t.Fatalf("LoadOrCreate: %v, want ErrOtherMode with a hint", err)
	}
	if mem.Len() != 0 {
		t.Fatal("a keyring identity was created")
	}
	if k2, err := openFile(t, dir).Load(ctx); err != nil || k2.Public() != k.Public() {
		t.Fatalf("key file changed: %v", err)
	}
}

// blockingBackend never answers until released, and ignores its context,
// like a Secret Service waiting on an unlock prompt.
type blockingBackend struct {
	release chan struct{}
	calls   chan string
}

func newBlocking(t *testing.T) *blockingBackend {
	b := &blockingBackend{release: make(chan struct{}), calls: make(chan string, 10)}
	t.Cleanup(func() { close(b.release) })
	return b
}

func (b *blockingBackend) Get(_ context.Context, _, _ string) (string, error) {
	b.calls <- "get"
	<-b.release
	return "", ErrNotFound
}

func (b *blockingBackend) Set(_ context.Context, _, _, _ string) error {
	b.calls <- "set"
	<-b.release
	return nil
}

func (b *blockingBackend) Delete(_ context.Context, _, _ string) error {
	b.calls <- "delete"
	<-b.release
	return nil
}

func TestKeyringTimeout(t *testing.T) {
	b := newBlocking(t)
	s, err := Open(Options{DataDir: t.TempDir(), Backend: b, Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = s.LoadOrCreate(context.Background())
	if !errors.Is(err, ErrKeyringTimeout) {
		t.Fatalf("LoadOrCreate with a keyring that never answers: %v, want ErrKeyringTimeout", err)
	}
	for _, want := range []string{"did not answer within 50ms", "--keyring file", "AWP_KEYRING=file"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	// It gave up after the read: no identity was created behind the user's back.
	if got := <-b.calls; got != "get" || len(b.calls) != 0 {
		t.Fatalf("calls: %s and %d more, want one get", got, len(b.calls))
	}
}

// The caller's cancellation is reported as such, not as a keyring timeout.
func TestKeyringCanceled(t *testing.T) {
	b := newBlocking(t)
	s, err := Open(Options{DataDir: t.TempDir(), Backend: b, Timeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-b.calls
		cancel()
	}()
	_, err = s.Load(ctx)
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrKeyringTimeout) {
		t.Fatalf("Load canceled: %v, want context.Canceled", err)
	}
}

// failingBackend returns err from every call.
type failingBackend struct{ err error }

func (f failingBackend) Get(context.Context, string, string) (string, error) { return "", f.err }
func (f failingBackend) Set(context.Context, string, string, string) error   { return f.err }
func (f failingBackend) Delete(context.Context, string, string) error        { return f.err }

// A keyring error other than "not found" is never taken as "no identity".
func TestKeyringErrorNoCreate(t *testing.T) {
	for _, e := range []error{ErrLocked, ErrNoKeyring, errors.New("dbus: something odd")} {
		s := openKeyring(t, t.TempDir(), failingBackend{e})
		_, created, err := s.LoadOrCreate(context.Background())
		if !errors.Is(err, e) || created {
			t.Errorf("LoadOrCreate with Get failing %v: created %v, %v", e, created, err)
		}
	}
}
