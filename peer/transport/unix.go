package transport

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"syscall"
)

// listenUnix listens on a.Path with mode 0600. A socket file left by a dead
// process is removed; one something still answers on is ErrInUse; any other
// kind of file is left alone and is an error.
func (m *Manager) listenUnix(ctx context.Context, a Addr) (Listener, error) {
	if err := removeStale(ctx, a.Path); err != nil {
		return nil, fmt.Errorf("transport: listen %s: %w", a, err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: a.Path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("transport: listen %s: %w", a, opCause(err))
	}
	// The socket is created under the umask (usually without group/other
	// write, which connect needs); tighten it to the owner alone.
	if err := os.Chmod(a.Path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("transport: listen %s: chmod: %w", a, err)
	}
	return &unixListener{ln: ln, addr: a.String()}, nil
}

// removeStale removes a socket file at path that nothing listens on.
func removeStale(ctx context.Context, path string) error {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if st.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("%s exists and is not a socket", path)
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err == nil {
		c.Close()
		return fmt.Errorf("%s: %w (a process is listening on it)", path, ErrInUse)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("probe %s: %w", path, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove stale socket: %w", err)
	}
	return nil
}

// unixListener is a Unix stream socket listener; Close removes the file.
type unixListener struct {
	ln   *net.UnixListener
	addr string
}

// Accept returns the next connection.
func (l *unixListener) Accept() (net.Conn, error) {
	c, err := l.ln.AcceptUnix()
	if err != nil {
		return nil, acceptErr(l.addr, err)
	}
	return c, nil
}

// Close stops listening and removes the socket file.
func (l *unixListener) Close() error { return closeListener(l.ln, l.addr) }

// Addr returns unix:///abs/path.
func (l *unixListener) Addr() string { return l.addr }
