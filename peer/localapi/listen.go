package localapi

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"time"
)

// probeTimeout bounds the "is anyone there" dial of Listen: a live server
// accepts at once, a stale socket refuses at once.
const probeTimeout = 2 * time.Second

// Listen opens the control socket at path. It returns ErrAlreadyRunning
// (wrapped) when another process answers on path, removes a stale socket
// file left by a process that died, refuses to replace a file that is not
// a socket, and makes the socket mode 0600 before returning. Closing the
// listener removes the socket file.
func Listen(path string) (net.Listener, error) {
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode().Type() != fs.ModeSocket {
			return nil, fmt.Errorf("localapi: listen %s: exists and is not a socket", path)
		}
		c, err := net.DialTimeout("unix", path, probeTimeout)
		if err == nil {
			c.Close()
			return nil, fmt.Errorf("%w (%s answers)", ErrAlreadyRunning, path)
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("localapi: remove stale socket: %w", err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("localapi: listen: %w", err)
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("localapi: listen: %w", err)
	}
	// The data directory is 0700 already; the chmod closes the remaining
	// window for a directory someone made wider.
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, fmt.Errorf("localapi: listen: %w", err)
	}
	return l, nil
}
