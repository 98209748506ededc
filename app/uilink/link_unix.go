//go:build unix

package uilink

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"syscall"
)

// uiFD is the UI process's end of the line: the first of exec.Cmd's
// ExtraFiles.
const uiFD = 3

// attach makes a socket pair, gives one end to cmd as fd 3 and returns
// the other; done closes the tray's copy of the UI's end once cmd started.
func attach(cmd *exec.Cmd) (c *Conn, done func(), err error) {
	// Hold ForkLock so no other goroutine's fork inherits the pair before
	// it is close-on-exec (os/exec does the same for its pipes).
	syscall.ForkLock.RLock()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fds[0])
		syscall.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, fmt.Errorf("uilink: socketpair: %w", err)
	}
	mine, theirs := os.NewFile(uintptr(fds[0]), "uilink"), os.NewFile(uintptr(fds[1]), "uilink-ui")
	nc, err := net.FileConn(mine)
	mine.Close()
	if err != nil {
		theirs.Close()
		return nil, nil, fmt.Errorf("uilink: %w", err)
	}
	cmd.ExtraFiles = []*os.File{theirs}
	return NewConn(nc), func() { theirs.Close() }, nil
}

// ErrNoLine is returned by Open in a process the tray did not start.
var ErrNoLine = errors.New("uilink: no line to the tray process (fd 3): the UI process is started by awp-tray itself")

// Open returns the UI process's end of the line.
func Open() (*Conn, error) {
	f := os.NewFile(uiFD, "uilink")
	if f == nil {
		return nil, ErrNoLine
	}
	nc, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoLine, err)
	}
	return NewConn(nc), nil
}
