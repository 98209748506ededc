//go:build !windows && !darwin

package keystore

// usesSecretService: go-keyring talks to the Secret Service over D-Bus
// here (classify maps its errors).
func usesSecretService() bool { return true }

// platformError maps what classify does not: nothing here.
func platformError(op string, err error) error { return nil }
