package peer

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
)

// Error messages name each layer once. The node's own errors say
// "peer: what happened" (the sentinels of node.go and the like, with
// details after them); an operation wraps an error from below it (the
// store, the wire, the OS) with its name, "peer: OP: cause", and returns
// its own errors as they are: `peer: state: peer: no such thread` said the
// same thing twice.

// wrapOp names op on an error from below this package; errors this package
// made (they begin "peer: ") come back unchanged.
func wrapOp(op string, err error) error {
	if err == nil || strings.HasPrefix(err.Error(), "peer: ") {
		return err
	}
	return fmt.Errorf("peer: %s: %w", op, err)
}

// connectError is the error of a failed dial or handshake to addr: the
// address once, then what went wrong, without the layers that name the
// address again (transport's "dial ADDR", the net package's "dial tcp
// HOST:PORT") and without a second "peer: ". The cause stays in the chain
// (errors.Is with syscall.ECONNREFUSED, transport.ErrPublicTCP…).
func connectError(addr string, err error) error {
	cause := err
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		cause = op.Err
		var sys *os.SyscallError
		if errors.As(cause, &sys) {
			cause = sys.Err
		}
	}
	return &opError{what: "connect " + addr, err: cause}
}

// opError is "peer: WHAT: cause", with a cause's own "peer: " left out.
type opError struct {
	what string
	err  error
}

func (e *opError) Error() string {
	return "peer: " + e.what + ": " + strings.TrimPrefix(e.err.Error(), "peer: ")
}

func (e *opError) Unwrap() error { return e.err }
