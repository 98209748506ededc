package peer

import (
	"sync"
	"sync/atomic"
)

// broker fans events out to subscribers without ever blocking the node: a
// subscriber whose buffer is full loses the event (and Dropped counts it).
type broker struct {
	mu      sync.Mutex // guards subs, next, closed
	subs    map[int]chan Event
	next    int
	closed  bool
	dropped atomic.Int64
	count   atomic.Int32 // len(subs), read without the lock on hot paths
}

// Subscribe returns a channel of events (buffer buf, default 256) and a
// function that ends the subscription. The channel is closed when the
// subscription ends or the node closes.
func (n *Node) Subscribe(buf int) (<-chan Event, func()) {
	if buf <= 0 {
		buf = defaultEventBuffer
	}
	b := &n.events
	ch := make(chan Event, buf)
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		close(ch)
		return ch, func() {}
	}
	if b.subs == nil {
		b.subs = map[int]chan Event{}
	}
	id := b.next
	b.next++
	b.subs[id] = ch
	b.count.Store(int32(len(b.subs)))
	b.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			b.mu.Lock()
			if c, ok := b.subs[id]; ok {
				delete(b.subs, id)
				close(c)
			}
			b.count.Store(int32(len(b.subs)))
			b.mu.Unlock()
		})
	}
}

// DroppedEvents counts events lost to full subscriber buffers.
func (n *Node) DroppedEvents() int64 { return n.events.dropped.Load() }

func (n *Node) hasSubscribers() bool { return n.events.count.Load() > 0 }

func (n *Node) publish(e Event) {
	switch e.Type {
	case EventLine, EventPeerUp, EventPeerDown, EventThread:
		n.presenceChanged()
	}
	b := &n.events
	if b.count.Load() == 0 {
		return
	}
	if e.Time == "" {
		e.Time = n.stamp()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, ch := range b.subs {
		select {
		case ch <- e:
		default:
			b.dropped.Add(1)
		}
	}
}

func (b *broker) closeAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for id, ch := range b.subs {
		close(ch)
		delete(b.subs, id)
	}
	b.count.Store(0)
}
