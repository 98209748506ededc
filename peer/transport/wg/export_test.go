package wg

import "github.com/awp-tray/awp-tray/peer/key"

// NetworkChanged runs what the device does after the host's addresses or
// routes changed.
func (d *Device) NetworkChanged() { d.networkChanged() }

// Initiator decodes the initiator's static key of a handshake initiation
// sent to the device of k (sniff.go).
func Initiator(k key.PrivateKey, msg []byte) ([32]byte, bool) {
	pub, _ := PublicKey(k.Public())
	return initiator(PrivateKey(k), pub, msg)
}
