package app

import "github.com/awp-tray/awp-tray/app/icon"

// iconState is what the tray icon reflects of a snapshot.
func iconState(s snapshot) icon.State {
	return icon.State{PeersUp: s.PeersUp, Unread: s.Unread, Approvals: s.Approvals}
}
