//go:build !linux

package store

import "os"

func directAligned(off int64, data []byte) bool { return false }

func openDirect(path string) *os.File { return nil }
