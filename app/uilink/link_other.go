//go:build !unix

package uilink

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
)

// On systems without unix socket pairs for a child (Windows), the line is
// the UI process's stdin (tray → UI) and stdout (UI → tray); the UI's Go
// code writes its own output to stderr.

// pipes joins a reader and a writer into a line.
type pipes struct {
	io.Reader
	io.WriteCloser
	rc io.Closer
}

func (p pipes) Close() error { return errors.Join(p.WriteCloser.Close(), p.rc.Close()) }

// attach gives cmd a stdin and stdout pipe and returns the tray's line.
func attach(cmd *exec.Cmd) (*Conn, func(), error) {
	w, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, fmt.Errorf("uilink: %w", err)
	}
	r, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, fmt.Errorf("uilink: %w", err)
	}
	return NewConn(pipes{Reader: r, WriteCloser: w, rc: r}), func() {}, nil
}

// ErrNoLine is returned by Open in a process the tray did not start.
var ErrNoLine = errors.New("uilink: no line to the tray process: the UI process is started by awp-tray itself")

// Open returns the UI process's end of the line (stdin and stdout), and
// points os.Stdout at stderr.
func Open() (*Conn, error) {
	in, out := os.Stdin, os.Stdout
	if in == nil || out == nil {
		return nil, ErrNoLine
	}
	os.Stdout = os.Stderr
	return NewConn(pipes{Reader: in, WriteCloser: out, rc: in}), nil
}
