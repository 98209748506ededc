// Package fanout hands values to subscribers without ever blocking the
// sender: a subscriber whose buffer is full loses the value, and the
// Broker counts it. The node's events and the test fake's use it.
//
// It owns the subscriptions only: what is sent, and when, is its caller's.
// It must not block Publish on a subscriber, nor import anything of this
// module's.
package fanout

import (
	"sync"
	"sync/atomic"
)

// Broker fans values of T out to its subscribers. The zero Broker is ready
// to use; it must not be copied after first use.
type Broker[T any] struct {
	mu      sync.Mutex // guards subs, next, closed
	subs    map[int]chan T
	next    int
	closed  bool
	dropped atomic.Int64
	count   atomic.Int32 // len(subs), read without the lock on hot paths
}

// Subscribe returns a channel of the values published from now on (buffer
// buf, at least 1) and a function that ends the subscription, which may be
// called more than once. The channel is closed when the subscription ends
// or the Broker closes; after Close it is returned closed.
func (b *Broker[T]) Subscribe(buf int) (<-chan T, func()) {
	ch := make(chan T, max(buf, 1))
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		close(ch)
		return ch, func() {}
	}
	if b.subs == nil {
		b.subs = map[int]chan T{}
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

// Publish hands v to every subscriber that has room for it.
func (b *Broker[T]) Publish(v T) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, ch := range b.subs {
		select {
		case ch <- v:
		default:
			b.dropped.Add(1)
		}
	}
}

// Len is the number of subscriptions, read without taking the lock.
func (b *Broker[T]) Len() int { return int(b.count.Load()) }

// Dropped counts the values subscribers lost to a full buffer.
func (b *Broker[T]) Dropped() int64 { return b.dropped.Load() }

// Close ends every subscription (their channels are closed) and every
// later one.
func (b *Broker[T]) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for id, ch := range b.subs {
		close(ch)
		delete(b.subs, id)
	}
	b.count.Store(0)
}
