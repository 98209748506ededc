package profile

import "errors"

// Errors returned by Runner.Handle before a request runs. A request that
// runs and fails is not an error: it returns a Result whose data carries
// "error".
var (
	// ErrBadRequest is returned when the request data is malformed: not a
	// JSON object, a field of the wrong type, a missing cmd or path, an
	// unknown encoding, a bad env name, a negative or too long timeout. The
	// node answers `err bad_request`.
	ErrBadRequest = errors.New("profile: bad request")

	// ErrBusy is returned when the peer already has MaxPerPeer requests
	// running, or the runner MaxTotal. The node answers with a result whose
	// "error" is the message.
	ErrBusy = errors.New("profile: busy")

	// ErrUnknownMime is returned when the mime is not one of the request
	// mimes (MimeExec, MimeRead, MimeWrite).
	ErrUnknownMime = errors.New("profile: unknown request mime")

	// ErrNoRoot is returned when Runner.Root is empty or cannot be opened
	// as a directory. The node answers with a result whose "error" is the
	// message, and logs it.
	ErrNoRoot = errors.New("profile: workspace root unavailable")
)

// Error strings put in a result's "error" field.
const (
	// ErrOutside is the result error for a path or cwd that resolves
	// outside the workspace (docs/protocol/profile.md).
	ErrOutside = "path outside workspace"
	// ErrLoop is the result error for a path with too many symbolic links
	// (a loop).
	ErrLoop = "too many levels of symbolic links"
	// ErrNUL is the result error for a path containing a NUL byte.
	ErrNUL = "invalid path: contains NUL"
	// ErrTimeout is the exec result error when the timeout killed the command.
	ErrTimeout = "timeout"
	// ErrCanceled is the exec result error when the caller's context ended
	// (node shutdown) and the command was killed.
	ErrCanceled = "canceled"
)
