//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package keystore

import (
	"context"
	"fmt"
	"os"
)

// lockDir only creates dir here: there is no cross-process lock on this
// platform (see the package Caveats).
func lockDir(ctx context.Context, dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("keystore: create data directory: %w", err)
	}
	return func() {}, nil
}
