package app

import (
	"context"
	"errors"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/localapi"
)

// Backend is the node as the UI sees it: localapi.Backend, the one
// contract between the node and its front ends, whole (no optional parts).
// In the UI process it is a localapi.Remote over the node's control
// socket; in tests a real *peer.Node or the fake.
type Backend = localapi.Backend

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
