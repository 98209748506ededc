package app

import (
	"context"
	"errors"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

// Backend is the part of *peer.Node the UI uses (docs/NODE-API.md). It
// is an interface so the UI builds and is tested without a node.
type Backend interface {
	peer.Frontend
}

// Mirrorer is implemented by nodes with the per-thread mirror and
// private toggles (docs/protocol/mirror.md).
type Mirrorer interface {
	// SetMirror turns mirroring of my thread th to my hosts on or off.
	SetMirror(th string, on bool) error
	// SetPrivate asks the other party of th (the sharer, for a thread
	// mirrored from from) to stop mirroring it for good.
	SetPrivate(th, from string) (peer.SendResult, error)
}

// MirrorHoster is implemented by nodes whose mirror hosts can change
// while they run.
type MirrorHoster interface {
	// MirrorHosts returns the keys this node mirrors its threads to.
	MirrorHosts() []string
	// SetMirrorHosts replaces them.
	SetMirrorHosts(hosts []string) error
}

// LinesAfterer is implemented by nodes that read part of a thread: the
// thread view then loads only new lines when one arrives.
type LinesAfterer interface {
	// LinesAfter returns up to limit lines after seq (limit 0: all).
	LinesAfter(th, from string, after uint64, limit int) ([]peer.LineInfo, error)
}

// Inviter is implemented by nodes that make and take invites themselves.
// Without it the app builds invites from Key, Name and ListenAddrs, and
// adds a peer by connecting to the invite's addresses.
type Inviter interface {
	// Invite is this peer's invite text ("awp:…").
	Invite() string
	// AddInvite records the peer an invite describes and dials it.
	AddInvite(ctx context.Context, invite string) (key.PublicKey, error)
}

// Presencer is implemented by nodes that keep a presence table: the
// newest signed document of every other origin (docs/protocol/presence.md).
type Presencer interface {
	// Presence lists the newest document per origin.
	Presence() []peer.PresenceInfo
}

// PresenceDetailer is implemented by nodes whose presence detail can
// change while they run.
type PresenceDetailer interface {
	// PresenceDetail is what the node publishes: full, peers or none.
	PresenceDetail() string
	// SetPresenceDetail changes it.
	SetPresenceDetail(d string) error
}

// Granter is implemented by nodes that keep the grants they issued and
// can stop honoring one.
type Granter interface {
	// Grants lists stored grants, issued and received.
	Grants() ([]peer.GrantInfo, error)
	// RevokeGrant stops honoring grant id on this node.
	RevokeGrant(id string) error
}

// The node implements every optional interface the app looks for.
var _ interface {
	Backend
	Mirrorer
	MirrorHoster
	LinesAfterer
	Inviter
	Presencer
	PresenceDetailer
	Granter
} = (*peer.Node)(nil)

// NodeSettings are the node's settings the Settings window edits.
type NodeSettings struct {
	Name        string
	About       string
	Listen      []string
	Presence    string   // "full", "peers" or "none"
	MirrorHosts []string // keys this node mirrors its threads to
}

// SettingsBackend is implemented by nodes whose settings can change while
// they run. Without it the Settings window shows them read-only.
type SettingsBackend interface {
	// NodeSettings returns the current settings.
	NodeSettings() NodeSettings
	// SetNodeSettings stores and applies new settings.
	SetNodeSettings(ctx context.Context, s NodeSettings) error
}

// Notifier is the desktop notifications manager (notify.Notifier): the
// app feeds it the node's events and says when a thread was read.
type Notifier interface {
	// HandleEvent takes one event of the node's subscription.
	HandleEvent(ev peer.Event)
	// Read says the person read thread th (from: the sharer of a mirrored
	// thread, "" for mine).
	Read(th, from string)
}

// BootFunc loads the identity and starts the node, off the UI goroutine.
// fileKey asks for the identity in DATA/identity.key instead of the OS
// keyring. It returns an error wrapping ErrKeyring when the keyring is
// locked, missing or does not answer, so the app can offer the file.
type BootFunc func(ctx context.Context, fileKey bool) (Backend, error)

// ErrKeyring is wrapped by BootFunc errors that the OS keyring caused.
var ErrKeyring = errors.New("the OS keyring is unavailable")
