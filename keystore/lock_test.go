//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package keystore

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
)

// Processes starting together (here: Stores with their own lock file
// descriptors, which flock treats like separate processes) agree on one
// identity: exactly one creates it, all get it.
func TestConcurrentCreate(t *testing.T) {
	for _, mode := range []Mode{ModeKeyring, ModeFile} {
		t.Run(string(mode), func(t *testing.T) {
			dir := t.TempDir()
			mem := NewMemory()
			const n = 8
			var wg sync.WaitGroup
			keys := make([]key.PublicKey, n)
			created := make([]bool, n)
			errs := make([]error, n)
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					s, err := Open(Options{DataDir: dir, Mode: mode, Backend: mem})
					if err != nil {
						errs[i] = err
						return
					}
					k, c, err := s.LoadOrCreate(context.Background())
					keys[i], created[i], errs[i] = k.Public(), c, err
				}()
			}
			wg.Wait()
			ncreated := 0
			for i := range n {
				if errs[i] != nil {
					t.Fatalf("LoadOrCreate %d: %v", i, errs[i])
				}
				if keys[i] != keys[0] {
					t.Fatalf("LoadOrCreate %d got %s, 0 got %s", i, keys[i], keys[0])
				}
				if created[i] {
					ncreated++
				}
			}
			if ncreated != 1 {
				t.Fatalf("%d callers created an identity, want 1", ncreated)
			}
		})
	}
}

// A lock held for longer than a few keyring timeouts gives ErrBusy, and
// nothing is created.
func TestLockBusy(t *testing.T) {
	dir := t.TempDir()
	unlock, err := lockDir(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	mem := NewMemory()
	s, err := Open(Options{DataDir: dir, Backend: mem, Timeout: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.LoadOrCreate(context.Background()); !errors.Is(err, ErrBusy) {
		t.Fatalf("LoadOrCreate with the lock held: %v, want ErrBusy", err)
	}
	if mem.Len() != 0 {
		t.Fatal("an identity was created without the lock")
	}
}
