package keystore

import (
	"fmt"
	"os"
)

// Mode says where a Store keeps the identity.
type Mode string

// The modes, as written in --keyring and AWP_KEYRING.
const (
	// ModeKeyring keeps the identity in the OS keyring (the default).
	ModeKeyring Mode = "keyring"
	// ModeFile keeps the identity in DATA/identity.key.
	ModeFile Mode = "file"
)

// EnvKeyring is the environment variable ModeFromEnv reads.
const EnvKeyring = "AWP_KEYRING"

// ModeFromEnv returns the mode to use: flag (the --keyring value) when it is
// not empty, else $AWP_KEYRING when set and not empty, else ModeKeyring. A
// value other than "keyring" or "file" is an error wrapping ErrBadMode.
func ModeFromEnv(flag string) (Mode, error) {
	src, v := "--keyring", flag
	if v == "" {
		src, v = EnvKeyring, os.Getenv(EnvKeyring)
	}
	if v == "" {
		return ModeKeyring, nil
	}
	m := Mode(v)
	if err := m.check(); err != nil {
		return "", hint(ErrBadMode, nil, fmt.Sprintf("keystore: %s %q: unknown mode; want \"keyring\" or \"file\"", src, v))
	}
	return m, nil
}

// check reports whether m is one of the modes.
func (m Mode) check() error {
	switch m {
	case ModeKeyring, ModeFile:
		return nil
	}
	return hint(ErrBadMode, nil, fmt.Sprintf("keystore: mode %q: unknown mode; want \"keyring\" or \"file\"", string(m)))
}
