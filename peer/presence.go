package peer

import "github.com/awp-tray/awp-tray/peer/wire"

// onPresence handles a presence line.
func (n *Node) onPresence(s *session, p *wire.Presence) {}
