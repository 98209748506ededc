// Package wg is AWP's direct WireGuard binding (docs/protocol/bindings.md): a userspace
// WireGuard device (wireguard-go) whose tunnel side is a gVisor netstack, so
// it needs neither root nor a TUN interface.
//
// # Basics
//
// A Device holds one WireGuard identity, derived from the node's Ed25519 key
// (PrivateKey, PublicKey), one UDP socket, and one netstack with the node's
// tunnel address (TunnelAddr) and MTU 1420. AWP runs over TCP port 1 inside
// the tunnel: Listen accepts there, Dial connects to a peer's tunnel address
// on port 1.
//
// Peers are configured through the device's UAPI (IpcSet): public key,
// allowed IP = the peer's /128 tunnel address, endpoint when known, and a
// persistent keepalive. WireGuard drops handshakes from keys it has not been
// configured with, so only keys passed to AllowPeer or Dial can reach the
// device. Because each peer is routed only its own /128, the source address
// of a tunnel connection identifies the WireGuard peer it came through; every
// Conn carries that key (Conn.Peer).
//
// # Caveats
//
// wireguard-go's standard bind listens on the port on all interfaces (IPv4
// and IPv6). Endpoints roam: an authenticated packet from a new UDP address
// updates the peer's endpoint, which keeps NAT rebinding and restarts on a
// new port working. Close tears down the device and the netstack; the
// netstack's own workers finish shortly after Close returns.
//
// It owns the WireGuard device; it must never accept a tunnel handshake
// from a key that was not configured, and does not speak AWP.
package wg
