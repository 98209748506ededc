package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// evictCache drops a file's pages from the page cache (they are clean:
// the generator synced them), so what reads it next reads the disk.
func evictCache(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
}
