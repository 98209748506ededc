package keystore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestMoveKeyringToFileAndBack(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	mem := NewMemory()
	kr, file := openKeyring(t, dir, mem), openFile(t, dir)
	k, _, err := kr.LoadOrCreate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := MoveTo(ctx, kr, file); err != nil {
		t.Fatal(err)
	}
	if got, err := file.Load(ctx); err != nil || got.Public() != k.Public() {
		t.Fatalf("after move to file: %v", err)
	}
	if mem.Len() != 0 {
		t.Fatal("the keyring entry is still there")
	}
	if err := MoveTo(ctx, file, kr); err != nil {
		t.Fatal(err)
	}
	if got, err := kr.Load(ctx); err != nil || got.Public() != k.Public() {
		t.Fatalf("after move back: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, FileName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the key file is still there: %v", err)
	}
}

func TestMoveRefuses(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	mem := NewMemory()
	kr, file := openKeyring(t, dir, mem), openFile(t, dir)

	if err := MoveTo(ctx, kr, file); !errors.Is(err, ErrNotFound) {
		t.Fatalf("move with nothing to move: %v, want ErrNotFound", err)
	}
	if err := MoveTo(ctx, kr, openKeyring(t, dir, mem)); err == nil {
		t.Fatal("move onto the same place succeeded")
	}

	// The destination holds a different identity: nothing changes.
	a := newKey(t)
	if err := mem.Set(ctx, Service, dir, FormatSecret(a)); err != nil {
		t.Fatal(err)
	}
	b := newKey(t)
	if err := writeKeyFileNew(dir, b); err != nil {
		t.Fatal(err)
	}
	if err := MoveTo(ctx, kr, file); !errors.Is(err, ErrExists) {
		t.Fatalf("move onto a different identity: %v, want ErrExists", err)
	}
	if got, _ := kr.Load(ctx); got.Public() != a.Public() {
		t.Fatal("the source changed")
	}
	if got, _ := file.Load(ctx); got.Public() != b.Public() {
		t.Fatal("the destination changed")
	}
}

// An interrupted move (the identity already in both places) completes.
func TestMoveResumes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	mem := NewMemory()
	kr, file := openKeyring(t, dir, mem), openFile(t, dir)
	k := newKey(t)
	if err := mem.Set(ctx, Service, dir, FormatSecret(k)); err != nil {
		t.Fatal(err)
	}
	if err := writeKeyFileNew(dir, k); err != nil {
		t.Fatal(err)
	}
	if err := MoveTo(ctx, kr, file); err != nil {
		t.Fatal(err)
	}
	if mem.Len() != 0 {
		t.Fatal("the keyring entry is still there")
	}
	if got, err := file.Load(ctx); err != nil || got.Public() != k.Public() {
		t.Fatalf("key file: %v", err)
	}
}

// lyingBackend stores something other than what it is given, as a broken
// keyring might.
type lyingBackend struct{ *Memory }

func (l lyingBackend) Set(ctx context.Context, service, account, _ string) error {
	return l.Memory.Set(ctx, service, account, "ed25519-seed:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8")
}

// undeletable refuses deletion.
type undeletable struct{ *Memory }

func (undeletable) Delete(context.Context, string, string) error { return ErrLocked }

// The source is deleted only once the destination is verified.
func TestMoveKeepsSource(t *testing.T) {
	ctx := context.Background()

	for _, c := range []struct {
		name string
		to   Backend // the keyring the key moves to
		what string  // what it does wrong
		want error
	}{
		{"bad readback", lyingBackend{NewMemory()}, "stores something else", ErrCorrupt},
		{"write fails", failingSet{NewMemory()}, "fails", ErrLocked},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			file := openFile(t, dir)
			k, _, err := file.LoadOrCreate(ctx)
			if err != nil {
				t.Fatal(err)
			}
			kr := openKeyring(t, dir, c.to)
			if err := MoveTo(ctx, file, kr); !errors.Is(err, c.want) {
				t.Fatalf("move to a keyring that %s: %v, want %v", c.what, err, c.want)
			}
			if got, err := file.Load(ctx); err != nil || got.Public() != k.Public() {
				t.Fatalf("the source was lost: %v", err)
			}
		})
	}

	t.Run("delete fails", func(t *testing.T) {
		dir := t.TempDir()
		mem := NewMemory()
		kr := openKeyring(t, dir, undeletable{mem})
		k, _, err := kr.LoadOrCreate(ctx)
		if err != nil {
			t.Fatal(err)
		}
		file := openFile(t, dir)
		if err := MoveTo(ctx, kr, file); !errors.Is(err, ErrLocked) {
			t.Fatalf("move from an undeletable keyring: %v, want ErrLocked", err)
		}
		// In both places, which the error said.
		for _, s := range []*Store{kr, file} {
			if got, err := s.Load(ctx); err != nil || got.Public() != k.Public() {
				t.Fatalf("%s: %v", s.Location(), err)
			}
		}
	})
}

// failingSet refuses writes.
type failingSet struct{ *Memory }

func (failingSet) Set(context.Context, string, string, string) error { return ErrLocked }
