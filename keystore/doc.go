// Package keystore keeps a peer's Ed25519 identity: in the OS keyring by
// default, or in a file for machines without one.
//
// # Basics
//
// A Store is opened for one data directory and one Mode:
//
//   - ModeKeyring: one OS keyring entry per data directory, service "awp",
//     account (user) the absolute, cleaned data directory path. On Linux and
//     the BSDs that is the Secret Service (gnome-keyring, KeePassXC…) over the
//     D-Bus session bus; on macOS the login Keychain; on Windows the
//     Credential Manager. The keyring is reached through a Backend, so tests
//     use NewMemory instead of the real thing.
//   - ModeFile: DATA/identity.key, mode 0600, written atomically.
//
// Both places hold the same text: SecretPrefix followed by the 32-byte
// Ed25519 seed in unpadded base64url (see FormatSecret). The file adds a
// trailing newline.
//
//	st, err := keystore.Open(keystore.Options{DataDir: dir, Mode: mode})
//	k, created, err := st.LoadOrCreate(ctx) // never on the UI goroutine
//
// # Caveats
//
// Every keyring call is bounded by Options.Timeout (DefaultTimeout, 5 s): a
// Secret Service that never answers, or an unlock prompt nobody answers,
// gives ErrKeyringTimeout instead of a hang. LoadOrCreate makes up to three
// keyring calls, so it can block for up to three timeouts; call it from a
// background goroutine, never from a UI callback. A keyring call that timed
// out keeps running in the background until the keyring answers (go-keyring
// has no way to cancel it); the OS keyring backend runs at most one call at a
// time, so at most one such call is left behind and later calls time out
// while it is stuck.
//
// Nothing in this package overwrites a stored identity. A corrupt key file or
// keyring entry is reported as ErrCorrupt and left as it is; a key file that
// group or others may read is refused (ErrPermissions) rather than used. New
// identities are written only where none is stored, under a lock file
// (DATA/identity.lock, on Unix) so two processes starting together agree on
// one identity, and every write is read back and compared before it counts.
//
// It owns where the private key lives. It must never overwrite or delete a
// stored identity except in a checked move, never write key bytes to logs,
// and has no UI: callers keep its blocking calls off the UI goroutine.
package keystore
