package keystore

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
)

// Service is the keyring service name of every AWP identity.
const Service = "awp"

// Options configure Open.
type Options struct {
	// DataDir is the data directory (required). It is made absolute and
	// cleaned; in keyring mode that path is the keyring account.
	DataDir string
	// Mode is where the identity lives; "" means ModeKeyring.
	Mode Mode
	// Backend is the keyring in ModeKeyring; nil means OSKeyring(Timeout).
	// It is not used in ModeFile.
	Backend Backend
	// Timeout bounds each keyring call; 0 means DefaultTimeout.
	Timeout time.Duration
}

// Store is the identity of one data directory, in one place (keyring or
// file). Open makes one; its methods are safe for concurrent use.
type Store struct {
	dir     string
	mode    Mode
	backend Backend
	timeout time.Duration
}

// Open returns the Store for o. It only checks o; it touches neither the
// keyring nor the disk, so it may run anywhere, a UI goroutine included.
func Open(o Options) (*Store, error) {
	if o.DataDir == "" {
		return nil, errors.New("keystore: open: no data directory")
	}
	dir, err := filepath.Abs(o.DataDir)
	if err != nil {
		return nil, fmt.Errorf("keystore: open: data directory: %w", err)
	}
	m := o.Mode
	if m == "" {
		m = ModeKeyring
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	s := &Store{dir: dir, mode: m, timeout: o.Timeout}
	if s.timeout <= 0 {
		s.timeout = DefaultTimeout
	}
	if m == ModeKeyring {
		s.backend = o.Backend
		if s.backend == nil {
			s.backend = OSKeyring(s.timeout)
		}
	}
	return s, nil
}

// Mode returns where s keeps the identity.
func (s *Store) Mode() Mode { return s.mode }

// DataDir returns the absolute, cleaned data directory.
func (s *Store) DataDir() string { return s.dir }

// Location says, for people, where the identity is kept:
// "OS keyring (service awp, account /path/to/data)" or the key file's path.
func (s *Store) Location() string {
	if s.mode == ModeFile {
		return s.filePath()
	}
	return fmt.Sprintf("OS keyring (service %s, account %s)", Service, s.dir)
}

func (s *Store) filePath() string { return filepath.Join(s.dir, FileName) }

// Load returns the stored identity, or an error wrapping ErrNotFound when
// there is none. In keyring mode it makes one keyring call, so it may block
// up to the timeout: never call it on a UI goroutine.
func (s *Store) Load(ctx context.Context) (key.PrivateKey, error) {
	return s.load(ctx)
}

// LoadOrCreate returns the stored identity, creating and storing a new one
// when there is none (created is then true). The new identity is read back
// and compared before it is returned.
//
// It never replaces a stored identity: a corrupt one, a key file with open
// permissions, or a keyring that does not answer is an error, and nothing is
// written. In keyring mode, when the keyring has no identity but
// DATA/identity.key exists, it returns ErrOtherMode rather than create a
// second identity.
//
// It may block for up to three keyring calls, each bounded by the timeout,
// plus the wait for another process creating the identity: call it from a
// background goroutine, never from a UI callback.
func (s *Store) LoadOrCreate(ctx context.Context) (k key.PrivateKey, created bool, err error) {
	k, err = s.load(ctx)
	if !errors.Is(err, ErrNotFound) {
		return k, false, err
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return key.PrivateKey{}, false, err
	}
	defer unlock()
	// Another process may have created it while we waited for the lock.
	k, err = s.load(ctx)
	if !errors.Is(err, ErrNotFound) {
		return k, false, err
	}
	if s.mode == ModeKeyring {
		if _, err := os.Lstat(s.filePath()); err == nil {
			return key.PrivateKey{}, false, hint(ErrOtherMode, nil, fmt.Sprintf(
				"keystore: the OS keyring holds no identity for %s, but %s exists; "+
					"use --keyring file (or AWP_KEYRING=file) to keep using that identity",
				s.dir, s.filePath()))
		} else if !errors.Is(err, fs.ErrNotExist) {
			return key.PrivateKey{}, false, fmt.Errorf("keystore: stat key file: %w", err)
		}
	}
	k, err = key.NewPrivate()
	if err != nil {
		return key.PrivateKey{}, false, fmt.Errorf("keystore: create identity: %w", err)
	}
	if err := s.storeNew(ctx, k); err != nil {
		return key.PrivateKey{}, false, err
	}
	if err := s.verify(ctx, k); err != nil {
		return key.PrivateKey{}, false, err
	}
	return k, true, nil
}

// lock takes the data directory's identity lock. The wait is bounded by a
// few keyring timeouts: the holder makes at most three keyring calls.
func (s *Store) lock(ctx context.Context) (unlock func(), err error) {
	lctx, cancel := context.WithTimeout(ctx, 4*s.timeout)
	defer cancel()
	return lockDir(lctx, s.dir)
}

// load reads the identity from s's place.
func (s *Store) load(ctx context.Context) (key.PrivateKey, error) {
	if s.mode == ModeFile {
		return readKeyFile(s.filePath())
	}
	secret, err := guarded(ctx, s.timeout, "read the identity", func(ctx context.Context) (string, error) {
		return s.backend.Get(ctx, Service, s.dir)
	})
	if err != nil {
		return key.PrivateKey{}, err
	}
	k, why := parseSecret(secret)
	if why != "" {
		return key.PrivateKey{}, hint(ErrCorrupt, nil, fmt.Sprintf(
			"keystore: the OS keyring entry for service %s, account %s is not an AWP identity: it %s; "+
				"it was left untouched. Restore it, or delete it to create a new identity "+
				"(secret-tool clear service %s username %s)",
			Service, s.dir, why, Service, s.dir))
	}
	return k, nil
}

// storeNew writes k where no identity is stored. The caller holds the lock
// and has checked that none is.
func (s *Store) storeNew(ctx context.Context, k key.PrivateKey) error {
	if s.mode == ModeFile {
		return writeKeyFileNew(s.dir, k)
	}
	_, err := guarded(ctx, s.timeout, "store the identity", func(ctx context.Context) (struct{}, error) {
		return struct{}{}, s.backend.Set(ctx, Service, s.dir, FormatSecret(k))
	})
	return err
}

// verify reads the identity back and checks that it is k.
func (s *Store) verify(ctx context.Context, k key.PrivateKey) error {
	got, err := s.load(ctx)
	if err != nil {
		return wrap("read back the identity just stored in "+s.Location(), err)
	}
	if !sameKey(got, k) {
		return fmt.Errorf("keystore: the identity read back from %s is not the one just stored: %w",
			s.Location(), ErrCorrupt)
	}
	return nil
}

// remove deletes the stored identity.
func (s *Store) remove(ctx context.Context) error {
	if s.mode == ModeFile {
		return removeKeyFile(s.filePath())
	}
	_, err := guarded(ctx, s.timeout, "delete the identity", func(ctx context.Context) (struct{}, error) {
		return struct{}{}, s.backend.Delete(ctx, Service, s.dir)
	})
	return err
}

func sameKey(a, b key.PrivateKey) bool {
	if a.IsZero() || b.IsZero() {
		return false
	}
	return subtle.ConstantTimeCompare(a.Seed(), b.Seed()) == 1
}
