//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package keystore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// lockFileName is the lock file, in the data directory, that serializes
// writers of the identity between processes.
const lockFileName = "identity.lock"

// lockDir takes an exclusive flock on dir/identity.lock (creating dir 0700
// and the file 0600), polling until it is free or ctx is done.
func lockDir(ctx context.Context, dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("keystore: create data directory: %w", err)
	}
	path := filepath.Join(dir, lockFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("keystore: open lock file: %w", err)
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil // closing releases the lock
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("keystore: lock %s: %w", path, err)
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			f.Close()
			return nil, hint(ErrBusy, ctx.Err(), fmt.Sprintf(
				"keystore: another process holds %s (is another awp or the tray app starting?); try again", path))
		}
	}
}
