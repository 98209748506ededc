package notify

import "errors"

// Errors of the Manager's lifecycle.
var (
	// ErrStarted is returned by Start when it was already called.
	ErrStarted = errors.New("notify: already started")
	// ErrClosed is returned by Start after Close.
	ErrClosed = errors.New("notify: closed")
)
