package main

import (
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/localapi"
)

// node is what `awp run` needs of *peer.Node: the local API's Backend plus
// the lifecycle.
type node interface {
	localapi.Backend
	Start() error
	Close() error
	Done() <-chan struct{}
}

var _ node = (*peer.Node)(nil)

// newNode builds the node; it opens the store, so a second peer on the
// same data directory fails here ("already running").
func newNode(cfg peer.Config) (node, error) {
	n, err := peer.New(cfg)
	if err != nil {
		return nil, err
	}
	return n, nil
}
