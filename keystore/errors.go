package keystore

import (
	"errors"
	"strings"
)

// Errors a Store returns, tested with errors.Is. The messages of the errors
// actually returned say what happened and what to do; these sentinels only
// classify them.
var (
	// ErrNotFound is returned by Load (and by Backend implementations) when
	// no identity is stored in the place the Store looks.
	ErrNotFound = errors.New("keystore: no identity stored")

	// ErrCorrupt is returned when a key file or keyring entry exists but does
	// not hold an identity in the text form FormatSecret writes. The stored
	// data is left untouched.
	ErrCorrupt = errors.New("keystore: stored identity is corrupt")

	// ErrPermissions is returned when DATA/identity.key may be read or
	// written by group or others (Unix); fix it with chmod 600.
	ErrPermissions = errors.New("keystore: key file permissions are too open")

	// ErrExists is returned when an identity would be written where a
	// different one is already stored (MoveTo onto an occupied place).
	ErrExists = errors.New("keystore: a different identity is already stored there")

	// ErrOtherMode is returned by LoadOrCreate in keyring mode when the
	// keyring holds no identity for the data directory but DATA/identity.key
	// does: creating a new identity would silently change who this peer is.
	ErrOtherMode = errors.New("keystore: the identity is stored in the key file, not the keyring")

	// ErrBusy is returned when another process holds DATA/identity.lock for
	// longer than this process is willing to wait.
	ErrBusy = errors.New("keystore: another process is writing the identity")

	// ErrBadMode is returned by ModeFromEnv and Open for a mode other than
	// "keyring" or "file".
	ErrBadMode = errors.New("keystore: unknown keyring mode")
)

// Errors of the OS keyring, returned in keyring mode.
var (
	// ErrNoKeyring is returned when there is no OS keyring to talk to: no
	// D-Bus session bus (DBUS_SESSION_BUS_ADDRESS unset, or nothing listening
	// there), or no Secret Service on the bus.
	ErrNoKeyring = errors.New("keystore: no OS keyring available")

	// ErrLocked is returned when the keyring is locked and was not unlocked:
	// the unlock prompt was dismissed, or the service refused.
	ErrLocked = errors.New("keystore: the OS keyring is locked")

	// ErrKeyringTimeout is returned when a keyring call did not finish within
	// the Store's (or OSKeyring's) timeout.
	ErrKeyringTimeout = errors.New("keystore: the OS keyring did not answer in time")
)

// hintError is an error whose message is written for a person (what happened
// and what to do) while errors.Is still finds its sentinel and its cause.
type hintError struct {
	msg      string
	sentinel error
	cause    error
}

func (e *hintError) Error() string { return e.msg }

// Unwrap returns the sentinel and, when there is one, the underlying error.
func (e *hintError) Unwrap() []error {
	if e.cause == nil {
		return []error{e.sentinel}
	}
	return []error{e.sentinel, e.cause}
}

// hint builds a hintError: msg is the whole message.
func hint(sentinel, cause error, msg string) error {
	return &hintError{msg: msg, sentinel: sentinel, cause: cause}
}

// wrap prefixes err's message with "keystore: " and what, dropping err's own
// "keystore: " so the line does not stutter; errors.Is sees through it.
func wrap(what string, err error) error {
	return &hintError{msg: "keystore: " + what + ": " + strings.TrimPrefix(err.Error(), "keystore: "), sentinel: err}
}

// fileHint is how every keyring error tells the user to get by without one.
const fileHint = "use the key file instead (--keyring file, or AWP_KEYRING=file)"
