// Package atomicfile writes a small file whole or not at all: the content
// goes to a temporary file beside it, which is synced and then renamed
// over the old one, so a reader, or the disk after a crash, sees the old
// content or the new, never a part of it. The desktop entry that starts
// the tray at login (app/autostart) and the systemd unit of `awp run`
// (internal/service) are written through it.
//
// It owns only that sequence; its callers choose the file's directory,
// name, content and mode. It imports nothing but the standard library:
// `awp` builds with CGO_ENABLED=0 and must not pull in Fyne.
package atomicfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// DirPerm is the mode of a directory WriteFile creates: the configuration
// directories it writes into are readable by all, as their defaults are.
const DirPerm fs.FileMode = 0o755

// WriteFile writes data to dir/name with mode perm, creating dir (DirPerm)
// when it is missing. On a failure the file is as it was and the
// temporary file is gone. The errors of writing, syncing and closing the
// new content begin "write: "; the others are the os package's.
func WriteFile(dir, name string, data []byte, perm fs.FileMode) error {
	if err := os.MkdirAll(dir, DirPerm); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+name+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename this fails harmlessly
	if _, err := writeTemp(tmp, data); err != nil {
		tmp.Close()
		return fmt.Errorf("write: %w", err)
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, name))
}

// writeTemp writes the new content to the temporary file; a test replaces
// it to fail part way, as a full disk does.
var writeTemp = func(f *os.File, data []byte) (int, error) { return f.Write(data) }
