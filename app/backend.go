package app

import "github.com/awp-tray/awp-tray/peer/localapi"

// Backend is the node as the UI sees it: localapi.Backend, the one
// contract between the node and its front ends, whole (no optional parts).
// In the UI process it is a localapi.Remote over the node's control
// socket; in tests a real *peer.Node or the fake.
type Backend = localapi.Backend
