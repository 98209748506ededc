//go:build !linux

package wg

import "errors"

// linkEvents is Linux only: elsewhere wireguard-go's bind keeps no source
// address per peer that a network change could leave stale.
func linkEvents() (next func() bool, closeFn func(), err error) {
	return nil, nil, errors.New("no link-change events on this system")
}
