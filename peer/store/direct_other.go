//go:build !linux

package store

import "os"

func directAligned(off int64, data []byte) bool { return false }

func openDirect(path string) *os.File { return nil }

func openDirectRead(path string) *os.File { return nil }

const directAlign = 4096

// writevAt writes bufs one after another from off (never called where
// openDirect returns nil).
func writevAt(f *os.File, off int64, bufs [][]byte) error {
	for _, p := range bufs {
		if _, err := f.WriteAt(p, off); err != nil {
			return err
		}
		off += int64(len(p))
	}
	return nil
}
