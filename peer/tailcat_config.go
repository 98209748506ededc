package peer

import "github.com/awp-tray/awp-tray/peer/transport"

// tailcatOptions completes the node's tailcat settings: the listener keeps
// its picked DERP region in the data directory unless told otherwise, so
// its token stays the same across restarts (docs/tailcat.md).
func tailcatOptions(o transport.TailcatOptions, dataDir string) transport.TailcatOptions {
	if o.StateDir == "" {
		o.StateDir = dataDir
	}
	return o
}
