//go:build !linux

package store

import "os"

// startWriteback is a no-op where sync_file_range does not exist.
func startWriteback(f *os.File, off, n int64) {}
