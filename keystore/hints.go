package keystore

import (
	"errors"
	"fmt"
	"os/exec"
	"syscall"
)

// The OS keyrings other than the Secret Service, and what their errors
// mean for a person. Each platform's file picks its own (platformError);
// both live here so that tests on any platform check them.

// securityInteractionNotAllowed is /usr/bin/security's exit status for
// errSecInteractionNotAllowed: the login Keychain is locked and no unlock
// prompt can be shown (an SSH session, a LaunchDaemon).
const securityInteractionNotAllowed = 36

// keychainError maps an error of macOS's login Keychain (go-keyring runs
// /usr/bin/security) to one of ours.
func keychainError(op string, err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == securityInteractionNotAllowed {
		return hint(ErrLocked, err, fmt.Sprintf(
			"keystore: %s: the login Keychain is locked and cannot ask to be unlocked here (an SSH session?); "+
				"unlock it (security unlock-keychain, or log in at the Mac), or %s", op, fileHint))
	}
	return hint(err, err, fmt.Sprintf("keystore: %s: the login Keychain (/usr/bin/security) failed: %v; %s", op, err, fileHint))
}

// errNoSuchLogonSession is Windows' ERROR_NO_SUCH_LOGON_SESSION: the
// Credential Manager has no store for this logon (a service, a network or
// batch logon, a scheduled task without "run only when logged on").
const errNoSuchLogonSession = 1312

// credManError maps an error of the Windows Credential Manager to one of
// ours.
func credManError(op string, err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) && uintptr(errno) == errNoSuchLogonSession {
		return hint(ErrNoKeyring, err, fmt.Sprintf(
			"keystore: %s: the Windows Credential Manager has no store for this logon (a service or a scheduled task?); %s",
			op, fileHint))
	}
	return hint(err, err, fmt.Sprintf("keystore: %s: the Windows Credential Manager failed: %v; %s", op, err, fileHint))
}
