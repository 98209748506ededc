package keystore

import (
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// exitError runs sh to get an *exec.ExitError with the given status.
func exitError(t *testing.T, status string) error {
	t.Helper()
	err := exec.Command("sh", "-c", "exit "+status).Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("sh exit %s: %v", status, err)
	}
	return err
}

func TestKeychainError(t *testing.T) {
	locked := keychainError("read the OS keyring", exitError(t, "36"))
	if !errors.Is(locked, ErrLocked) || !strings.Contains(locked.Error(), "login Keychain is locked") || !strings.Contains(locked.Error(), fileHint) {
		t.Errorf("exit 36: %v", locked)
	}
	cause := exitError(t, "51")
	other := keychainError("write the OS keyring", cause)
	if !errors.Is(other, cause) || errors.Is(other, ErrLocked) || !strings.Contains(other.Error(), "/usr/bin/security") || !strings.Contains(other.Error(), fileHint) {
		t.Errorf("exit 51: %v", other)
	}
}

func TestCredManError(t *testing.T) {
	nologon := credManError("read the OS keyring", syscall.Errno(errNoSuchLogonSession))
	if !errors.Is(nologon, ErrNoKeyring) || !strings.Contains(nologon.Error(), "no store for this logon") {
		t.Errorf("1312: %v", nologon)
	}
	cause := syscall.Errno(5) // ERROR_ACCESS_DENIED
	other := credManError("write the OS keyring", cause)
	if !errors.Is(other, cause) || errors.Is(other, ErrNoKeyring) || !strings.Contains(other.Error(), "Credential Manager") {
		t.Errorf("5: %v", other)
	}
}
