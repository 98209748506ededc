//go:build windows

package keystore

// usesSecretService: go-keyring uses the Credential Manager here.
func usesSecretService() bool { return false }

// platformError maps the Credential Manager's errors.
func platformError(op string, err error) error { return credManError(op, err) }
