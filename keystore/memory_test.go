package keystore

import (
	"context"
	"errors"
	"testing"
)

func TestMemory(t *testing.T) {
	ctx := context.Background()
	m := NewMemory()
	if _, err := m.Get(ctx, "awp", "/a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get on empty: %v, want ErrNotFound", err)
	}
	if err := m.Delete(ctx, "awp", "/a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Delete on empty: %v, want ErrNotFound", err)
	}
	if err := m.Set(ctx, "awp", "/a", "one"); err != nil {
		t.Fatal(err)
	}
	if err := m.Set(ctx, "other", "/a", "two"); err != nil {
		t.Fatal(err)
	}
	if got, err := m.Get(ctx, "awp", "/a"); err != nil || got != "one" {
		t.Fatalf("Get = %q, %v; want one", got, err)
	}
	if _, err := m.Get(ctx, "awp", "/b"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of another account: %v, want ErrNotFound", err)
	}
	if err := m.Set(ctx, "awp", "/a", "three"); err != nil {
		t.Fatal(err)
	}
	if got, _ := m.Get(ctx, "awp", "/a"); got != "three" {
		t.Fatalf("Set did not replace: %q", got)
	}
	if err := m.Delete(ctx, "awp", "/a"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Get(ctx, "awp", "/a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get after Delete: %v", err)
	}
	if got, _ := m.Get(ctx, "other", "/a"); got != "two" || m.Len() != 1 {
		t.Fatalf("Delete touched another service: %q, len %d", got, m.Len())
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := m.Set(cctx, "awp", "/c", "x"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Set with canceled ctx: %v", err)
	}
	if m.Len() != 1 {
		t.Fatal("Set with canceled ctx stored something")
	}
}
