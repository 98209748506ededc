package notifytest

import (
	"slices"
	"sync"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

// ReadCall is one Notifier.Read call.
type ReadCall struct {
	Th   string
	From key.PublicKey
}

// Notifier is a notify.Notifier that records what it is fed.
type Notifier struct {
	mu sync.Mutex
	// mu guards:
	events []peer.Event
	reads  []ReadCall
}

// HandleEvent implements notify.Notifier.
func (n *Notifier) HandleEvent(ev peer.Event) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.events = append(n.events, ev)
}

// Read implements notify.Notifier.
func (n *Notifier) Read(th string, from key.PublicKey) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.reads = append(n.reads, ReadCall{th, from})
}

// Events returns the events fed so far, in order.
func (n *Notifier) Events() []peer.Event {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.events)
}

// Reads returns the Read calls so far, in order.
func (n *Notifier) Reads() []ReadCall {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.reads)
}
