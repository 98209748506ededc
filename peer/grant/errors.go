package grant

import "errors"

// Errors returned by Parse and Sign.
var (
	// ErrMalformed is returned by Parse when the input is not a grant object:
	// not canonicalizable JSON, a missing or mistyped field, a bad key or
	// time, or an input over MaxSize. Sign returns it for invalid arguments.
	ErrMalformed = errors.New("grant: malformed")
)

// Errors returned by Verify.
var (
	// ErrBadSignature is returned by Verify when "sig" is not iss's
	// signature over the canonical JSON of the object without "sig".
	ErrBadSignature = errors.New("grant: bad signature")
)
