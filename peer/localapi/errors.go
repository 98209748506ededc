package localapi

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// Errors returned when starting a server.
var (
	// ErrAlreadyRunning is returned by Listen when another process answers
	// on the control socket.
	ErrAlreadyRunning = errors.New("localapi: another peer is already running")
)

// Errors returned by the Client.
var (
	// ErrNotRunning is matched (errors.Is) by the error a Client returns
	// when nothing listens on the control socket.
	ErrNotRunning = errors.New("localapi: no peer is running")
)

// Error codes in failure bodies.
const (
	codeBadRequest = "bad_request"
	codeBackend    = "backend"
	codeCanceled   = "canceled"
	codeDeadline   = "deadline_exceeded"
	codeNotFound   = "not_found"
	// codePeerErr: the remote peer answered a profile request with an err
	// line, which the body's "err" holds (status 502).
	codePeerErr = "peer_err"
	// codeSelfAddress: Connect's address leads back to the node itself
	// (peer.ErrSelfAddress); nothing redials it.
	codeSelfAddress = "self_address"
)

// NotRunningError is returned by a Client when nothing listens on its
// socket. It matches ErrNotRunning.
type NotRunningError struct {
	// Socket is the control socket path that nothing listens on.
	Socket string
}

// Error says so in the words the command line prints.
func (e *NotRunningError) Error() string {
	return "no peer is running for " + filepath.Dir(e.Socket) + " (start one with `awp run`)"
}

// Is makes errors.Is(err, ErrNotRunning) true.
func (e *NotRunningError) Is(target error) bool { return target == ErrNotRunning }

// RemoteError is a failure reported by the running peer: the backend's
// error, or the server rejecting a request.
type RemoteError struct {
	// Status is the HTTP status of the response.
	Status int
	// Code classifies the failure: "bad_request", "backend", "not_found",
	// "canceled", "deadline_exceeded", "peer_err", "self_address", or a
	// code added later.
	Code string
	// Msg is the peer's error message.
	Msg string
	// Err is the err line that answered a profile request (Code
	// "peer_err"); errors.As(err, &werr) with werr a *wire.Err finds it.
	Err *wire.Err
	// Key is set when `add` failed after recording the invite's peer: the
	// running peer keeps dialing it.
	Key key.PublicKey
}

// Error returns the peer's message unchanged.
func (e *RemoteError) Error() string { return e.Msg }

// Unwrap maps the context codes back to the context errors, so
// errors.Is(err, context.Canceled) holds across the socket (and
// peer.ErrSelfAddress likewise), and returns the err line of a refused
// profile request.
func (e *RemoteError) Unwrap() error {
	switch e.Code {
	case codeCanceled:
		return context.Canceled
	case codeDeadline:
		return context.DeadlineExceeded
	case codeSelfAddress:
		return peer.ErrSelfAddress
	}
	if e.Err != nil {
		return e.Err
	}
	return nil
}

// errorCode classifies a backend error for the failure body.
func errorCode(err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return codeCanceled
	case errors.Is(err, context.DeadlineExceeded):
		return codeDeadline
	}
	var we *wire.Err
	if errors.As(err, &we) {
		return codePeerErr
	}
	if errors.Is(err, peer.ErrSelfAddress) {
		return codeSelfAddress
	}
	var br badRequest
	if errors.Is(err, peer.ErrBadKey) || errors.As(err, &br) {
		return codeBadRequest // no key, or the node's own, where a peer's is needed
	}
	return codeBackend
}
