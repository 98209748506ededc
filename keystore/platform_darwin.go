//go:build darwin

package keystore

// usesSecretService: go-keyring uses the login Keychain here.
func usesSecretService() bool { return false }

// platformError maps the Keychain's errors.
func platformError(op string, err error) error { return keychainError(op, err) }
