package notifytest

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"

	"github.com/awp-tray/awp-tray/notify"
)

// ErrNoServer is what Backend returns while Down is set, like a bus with no
// notification server.
var ErrNoServer = errors.New("notifytest: no notification server")

// Sent is one Notify call the Backend answered.
type Sent struct {
	ID           uint32
	Notification notify.Notification
}

// Backend is a fake notification server. Like a real one it keeps the id
// of a replaced notification and gives new ids in order; unlike a real one
// it does not report the closes it was asked for (Withdraw).
//
// Signals go to Deliver when it is set (synchronously, for tests that want
// no goroutines), else to the Signals channel.
type Backend struct {
	// Deliver, when set, receives every signal instead of the channel.
	// Set it before use.
	Deliver func(notify.Signal)

	sig       chan notify.Signal
	closeOnce sync.Once

	mu sync.Mutex
	// mu guards:
	caps      []string
	down      bool
	next      uint32
	alive     map[uint32]notify.Notification
	sent      []Sent
	withdrawn []uint32
	maxAlive  int
}

// NewBackend returns a server with capabilities caps; none given means
// "actions" and "body".
func NewBackend(caps ...string) *Backend {
	if len(caps) == 0 {
		caps = []string{notify.CapActions, "body"}
	}
	return &Backend{
		caps:  caps,
		sig:   make(chan notify.Signal, 1024),
		alive: make(map[uint32]notify.Notification),
	}
}

// Notify implements notify.Backend.
func (b *Backend) Notify(_ context.Context, n notify.Notification) (uint32, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.down {
		return 0, ErrNoServer
	}
	id := n.ReplacesID
	if _, ok := b.alive[id]; !ok || id == 0 {
		b.next++
		id = b.next
	}
	b.alive[id] = n
	b.sent = append(b.sent, Sent{ID: id, Notification: n})
	b.maxAlive = max(b.maxAlive, len(b.alive))
	return id, nil
}

// Withdraw implements notify.Backend.
func (b *Backend) Withdraw(_ context.Context, id uint32) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.down {
		return ErrNoServer
	}
	b.withdrawn = append(b.withdrawn, id)
	delete(b.alive, id)
	return nil
}

// Capabilities implements notify.Backend.
func (b *Backend) Capabilities(context.Context) ([]string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.down {
		return nil, ErrNoServer
	}
	return slices.Clone(b.caps), nil
}

// Signals implements notify.Backend.
func (b *Backend) Signals() <-chan notify.Signal { return b.sig }

// Close implements notify.Backend; it closes the Signals channel.
func (b *Backend) Close() error {
	b.closeOnce.Do(func() { close(b.sig) })
	return nil
}

// Invoke is the person invoking action key on notification id: the server
// reports the action, then the close (reason dismissed), as dunst does.
func (b *Backend) Invoke(id uint32, key string) {
	b.take(id)
	b.emit(notify.Signal{Kind: notify.SignalAction, ID: id, Action: key})
	b.emit(notify.Signal{Kind: notify.SignalClosed, ID: id, Reason: notify.ClosedDismissed})
}

// Dismiss is the person closing notification id.
func (b *Backend) Dismiss(id uint32) {
	b.take(id)
	b.emit(notify.Signal{Kind: notify.SignalClosed, ID: id, Reason: notify.ClosedDismissed})
}

// Expire is notification id timing out.
func (b *Backend) Expire(id uint32) {
	b.take(id)
	b.emit(notify.Signal{Kind: notify.SignalClosed, ID: id, Reason: notify.ClosedExpired})
}

// Stop is the server going away: every notification is gone.
func (b *Backend) Stop() {
	b.mu.Lock()
	b.down = true
	clear(b.alive)
	b.mu.Unlock()
	b.emit(notify.Signal{Kind: notify.SignalServerLost})
}

// Start is a new server taking the name. Its ids start again from 1, as a
// restarted dunst's do.
func (b *Backend) Start() {
	b.mu.Lock()
	b.down = false
	b.next = 0
	b.mu.Unlock()
	b.emit(notify.Signal{Kind: notify.SignalServerReady})
}

// SetCapabilities changes what the server says it supports.
func (b *Backend) SetCapabilities(caps ...string) {
	b.mu.Lock()
	b.caps = caps
	b.mu.Unlock()
}

// Alive returns the notifications on screen, by id.
func (b *Backend) Alive() map[uint32]notify.Notification {
	b.mu.Lock()
	defer b.mu.Unlock()
	return maps.Clone(b.alive)
}

// MaxAlive is the most notifications that were on screen at once.
func (b *Backend) MaxAlive() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.maxAlive
}

// Sent returns every Notify call, in order.
func (b *Backend) Sent() []Sent {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.sent)
}

// Withdrawn returns the ids passed to Withdraw, in order.
func (b *Backend) Withdrawn() []uint32 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.withdrawn)
}

func (b *Backend) take(id uint32) {
	b.mu.Lock()
	delete(b.alive, id)
	b.mu.Unlock()
}

func (b *Backend) emit(s notify.Signal) {
	if b.Deliver != nil {
		b.Deliver(s)
		return
	}
	b.sig <- s
}
