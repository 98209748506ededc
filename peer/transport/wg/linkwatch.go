package wg

import "time"

// On Linux wireguard-go remembers, per peer, the local address and
// interface its packets last arrived on, and sends from them ("sticky"
// sockets). Its own route listener, which forgets them when the routes
// change, runs only for its StdNetBind type, not for gsoBind (bind.go) that
// wraps it; without it a laptop that moved to another network sent from an
// address it no longer had until a handshake timer gave up (5 to 15 s). So
// the Device watches the host's addresses and routes itself and, once they
// settle, has wireguard-go reopen its sockets (Device.BindUpdate), which
// also clears every peer's remembered source.

// linkSettle is how long the addresses and routes must stay unchanged
// before the device reacts: a network change comes as a burst of events.
var linkSettle = time.Second

// linkWatch calls onChange after each burst of address or route changes.
type linkWatch struct {
	closeFn func()
	done    chan struct{}
}

// startLinkWatch starts watching; nil (and the reason) where the system
// offers no such events.
func startLinkWatch(onChange func()) (*linkWatch, error) {
	next, closeFn, err := linkEvents()
	if err != nil {
		return nil, err
	}
	w := &linkWatch{closeFn: closeFn, done: make(chan struct{})}
	events := make(chan struct{}, 1)
	go func() {
		defer close(events)
		for next() {
			select {
			case events <- struct{}{}:
			default:
			}
		}
	}()
	go func() {
		defer close(w.done)
		for range events {
			t := time.NewTimer(linkSettle)
		settle:
			for {
				select {
				case _, ok := <-events:
					if !ok {
						t.Stop()
						return
					}
					t.Reset(linkSettle)
				case <-t.C:
					break settle
				}
			}
			onChange()
		}
	}()
	return w, nil
}

// Close stops the watch and waits until onChange is no longer running.
func (w *linkWatch) Close() {
	if w == nil {
		return
	}
	w.closeFn()
	<-w.done
}
