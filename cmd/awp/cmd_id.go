package main

import (
	"fmt"
	"os"

	"github.com/awp-tray/awp-tray/keystore"
	"github.com/awp-tray/awp-tray/peer/key"
)

func runID(e *env, args []string) error {
	fs := newFlags("id")
	keyring := fs.String("keyring", "", "where the identity lives: keyring (default, or $AWP_KEYRING) or file")
	asJSON := fs.jsonFlag(false)
	if err := fs.parseNoArgs(args); err != nil {
		return err
	}
	dir, err := e.dataDir(fs.data)
	if err != nil {
		return err
	}
	k, created, err := e.loadIdentity(dir, *keyring)
	if err != nil {
		return err
	}
	if created {
		fmt.Fprintf(e.stderr, "awp id: created a new identity for %s\n", dir)
	}
	return e.printKey(k.Public(), *asJSON)
}

// keyringMode resolves --keyring and $AWP_KEYRING; a bad value is bad usage.
func (e *env) keyringMode(flagValue string) (keystore.Mode, error) {
	v := flagValue
	if v == "" {
		v = e.getenv(keystore.EnvKeyring)
	}
	if v == "" {
		return keystore.ModeKeyring, nil
	}
	m, err := keystore.ModeFromEnv(v)
	if err != nil {
		return "", usagef("--keyring %q: want keyring or file", v)
	}
	return m, nil
}

// loadIdentity loads (or creates) the identity of the data directory dir,
// creating dir (0700) first.
func (e *env) loadIdentity(dir, keyringFlag string) (key.PrivateKey, bool, error) {
	mode, err := e.keyringMode(keyringFlag)
	if err != nil {
		return key.PrivateKey{}, false, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return key.PrivateKey{}, false, fmt.Errorf("data directory: %w", err)
	}
	st, err := keystore.Open(keystore.Options{DataDir: dir, Mode: mode})
	if err != nil {
		return key.PrivateKey{}, false, fmt.Errorf("identity: %w", err)
	}
	k, created, err := st.LoadOrCreate(e.ctx)
	if err != nil {
		return key.PrivateKey{}, false, fmt.Errorf("identity: %w", err)
	}
	return k, created, nil
}
