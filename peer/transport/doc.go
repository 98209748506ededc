// Package transport holds the byte-stream bindings an AWP node runs over
// (docs/protocol/bindings.md, addresses.md): plaintext TCP, Unix sockets, the direct
// WireGuard binding (userspace wireguard-go with a gVisor netstack, in
// subpackage wg), and an in-memory network for tests.
//
// # Basics
//
// Addresses are text (ParseAddr): tcp://HOST:PORT, unix:///abs/path,
// wg://HOST:PORT#ed25519:KEY, mem://NAME, and tailcat: listen on "tailcat",
// dial a "tc…" token (tailcat.go, docs/tailcat.md). A Manager, made by New with the node's key and policy,
// listens on and dials them; every binding yields plain net.Conns, and the
// AWP handshake runs inside all of them. TunnelPeer tells which WireGuard
// peer a wg conn came through, so the node can check it against the key in
// the peer's hello.
//
// Every binding passes the same conformance table (package transporttest).
//
// # Caveats
//
// Plaintext TCP to or from a public address is refused (ErrPublicTCP) unless
// Options.AllowPublicTCP; see TrustedIP for the ranges counted private. A
// listener on 0.0.0.0 or [::] drops public remotes at Accept, logs them, and
// keeps accepting.
//
// One Manager has at most one WireGuard device: the first wg Listen creates
// it on the given UDP port, or the first wg Dial on an ephemeral port (a
// later Listen then rebinds it to its port). WireGuard only completes
// handshakes with configured keys, so a node that wants to be reached over
// wg must AllowKey the keys it accepts.
//
// Close closes the Manager's listeners and its WireGuard device (and with it
// every wg conn); tcp and unix conns already handed out stay open until their
// owner closes them.
//
// It owns the bindings, address parsing and the plaintext policy. It must
// not speak AWP (the node's handshake runs inside every connection) or let
// a binding accept a peer its policy refuses.
package transport
