// Package dirsync makes the names in a directory durable: after a file is
// created, renamed into place or removed, syncing its directory makes the
// change survive a crash. It owns only that; it writes no files.
package dirsync

import (
	"os"
	"runtime"
)

// Sync fsyncs the directory dir, so that names created, renamed or removed
// in it are on disk. On Windows it does nothing and returns nil: a
// directory cannot be opened for syncing there, and NTFS journals its
// metadata, so the rename a caller made is durable without it.
func Sync(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
