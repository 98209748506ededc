package keystore

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/awp-tray/awp-tray/internal/dirsync"
	"github.com/awp-tray/awp-tray/peer/key"
)

// FileName is the key file's name inside the data directory.
const FileName = "identity.key"

// checkPerms reports whether the key file's permissions are enforced here:
// on Windows the Unix mode bits mean nothing.
var checkPerms = runtime.GOOS != "windows"

// testHookBeforePublish, when set, runs after the temporary key file is
// complete and synced and before it takes the key file's name.
var testHookBeforePublish func(tmp string)

// readKeyFile reads and parses the key file at path. A missing file gives
// ErrNotFound; the file is never modified.
func readKeyFile(path string) (key.PrivateKey, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return key.PrivateKey{}, fmt.Errorf("keystore: %s: %w", path, ErrNotFound)
	}
	if err != nil {
		return key.PrivateKey{}, fmt.Errorf("keystore: open key file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return key.PrivateKey{}, fmt.Errorf("keystore: stat key file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return key.PrivateKey{}, hint(ErrCorrupt, nil, fmt.Sprintf(
			"keystore: %s is not a regular file (%s); move it away", path, fi.Mode().Type()))
	}
	if checkPerms && fi.Mode().Perm()&0o077 != 0 {
		return key.PrivateKey{}, hint(ErrPermissions, nil, fmt.Sprintf(
			"keystore: %s has mode %04o: other users may read this private key; "+
				"run: chmod 600 %s (and consider the identity exposed if others could read it)",
			path, fi.Mode().Perm(), path))
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSecretLen+1))
	if err != nil {
		return key.PrivateKey{}, fmt.Errorf("keystore: read key file: %w", err)
	}
	k, why := parseSecret(string(b))
	if why != "" {
		return key.PrivateKey{}, hint(ErrCorrupt, nil, fmt.Sprintf(
			"keystore: %s is not an AWP identity: it %s; it was left untouched. "+
				"Restore it from a backup, or move it away to create a new identity", path, why))
	}
	return k, nil
}

// writeKeyFileNew stores k at dir/FileName, creating dir (0700) if needed.
// It never replaces an existing file: that gives ErrExists. The file appears
// complete or not at all: it is written to a temporary file (0600), synced,
// then linked to its name, and the directory is synced.
func writeKeyFileNew(dir string, k key.PrivateKey) (err error) {
	if k.IsZero() {
		return errors.New("keystore: write key file: zero key")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("keystore: create data directory: %w", err)
	}
	path := filepath.Join(dir, FileName)
	f, err := os.CreateTemp(dir, "."+FileName+".*.tmp")
	if err != nil {
		return fmt.Errorf("keystore: create key file: %w", err)
	}
	tmp := f.Name()
	defer func() {
		if f != nil {
			f.Close()
		}
		if rerr := os.Remove(tmp); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) && err == nil {
			err = fmt.Errorf("keystore: remove temporary key file: %w", rerr)
		}
	}()
	if err := f.Chmod(0o600); err != nil && checkPerms {
		return fmt.Errorf("keystore: chmod key file: %w", err)
	}
	if _, err := f.WriteString(FormatSecret(k) + "\n"); err != nil {
		return fmt.Errorf("keystore: write key file: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("keystore: sync key file: %w", err)
	}
	cerr := f.Close()
	f = nil
	if cerr != nil {
		return fmt.Errorf("keystore: close key file: %w", cerr)
	}
	if testHookBeforePublish != nil {
		testHookBeforePublish(tmp)
	}
	if err := publish(tmp, path); err != nil {
		return err
	}
	return syncDir(dir)
}

// publish gives tmp the name path unless path exists. A hard link does that
// atomically; where links are not supported, it checks and renames, which
// the identity lock makes safe between our own processes.
func publish(tmp, path string) error {
	lerr := os.Link(tmp, path)
	if lerr == nil {
		return nil
	}
	if errors.Is(lerr, fs.ErrExist) {
		return hint(ErrExists, lerr, fmt.Sprintf("keystore: %s already exists; not replacing it", path))
	}
	if _, err := os.Lstat(path); err == nil {
		return hint(ErrExists, nil, fmt.Sprintf("keystore: %s already exists; not replacing it", path))
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("keystore: stat key file: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("keystore: install key file (link: %v): %w", lerr, err)
	}
	return nil
}

// removeKeyFile deletes the key file at path and syncs its directory.
func removeKeyFile(path string) error {
	if err := os.Remove(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("keystore: remove %s: %w", path, ErrNotFound)
		}
		return fmt.Errorf("keystore: remove key file: %w", err)
	}
	return syncDir(filepath.Dir(path))
}

// syncDir makes a new or removed name in dir durable (dirsync.Sync: not
// on Windows, which cannot sync a directory).
func syncDir(dir string) error {
	if err := dirsync.Sync(dir); err != nil {
		return fmt.Errorf("keystore: sync data directory: %w", err)
	}
	return nil
}
