package transport

import (
	"context"
	"fmt"
	"net"
	"sync"
)

// MemNetwork is an in-process network of named listeners whose connections
// are net.Pipe pairs: synchronous, unbuffered, with deadlines. It serves
// mem://NAME addresses (Options.Mem) and Pipe. The zero value is not usable;
// make one with NewMemNetwork.
type MemNetwork struct {
	mu sync.Mutex
	// mu guards:
	listeners map[string]*memListener
}

// NewMemNetwork returns an empty in-memory network.
func NewMemNetwork() *MemNetwork {
	return &MemNetwork{listeners: make(map[string]*memListener)}
}

// Pipe returns a listener on a fresh in-memory network and a function that
// dials it: the smallest transport for unit tests.
func Pipe() (Listener, func(ctx context.Context) (net.Conn, error)) {
	n := NewMemNetwork()
	l, _ := n.Listen("pipe") // cannot fail on an empty network
	return l, func(ctx context.Context) (net.Conn, error) { return n.Dial(ctx, "pipe") }
}

// Listen listens on name; a name can have one listener at a time.
func (n *MemNetwork) Listen(name string) (Listener, error) {
	if !isToken(name) {
		return nil, fmt.Errorf("transport: listen mem://%s: %w", name, ErrBadAddr)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, ok := n.listeners[name]; ok {
		return nil, fmt.Errorf("transport: listen mem://%s: %w", name, ErrInUse)
	}
	l := &memListener{n: n, name: name, conns: make(chan net.Conn), done: make(chan struct{})}
	n.listeners[name] = l
	return l, nil
}

// Dial connects to the listener on name, waiting for it to Accept.
func (n *MemNetwork) Dial(ctx context.Context, name string) (net.Conn, error) {
	n.mu.Lock()
	l := n.listeners[name]
	n.mu.Unlock()
	if l == nil {
		return nil, fmt.Errorf("transport: dial mem://%s: %w", name, ErrRefused)
	}
	mine, theirs := net.Pipe()
	select {
	case l.conns <- theirs:
		return mine, nil
	case <-l.done:
		mine.Close()
		theirs.Close()
		return nil, fmt.Errorf("transport: dial mem://%s: %w", name, ErrRefused)
	case <-ctx.Done():
		mine.Close()
		theirs.Close()
		return nil, fmt.Errorf("transport: dial mem://%s: %w", name, ctx.Err())
	}
}

// memListener is one name on a MemNetwork.
type memListener struct {
	n     *MemNetwork
	name  string
	conns chan net.Conn // unbuffered: Dial hands its pipe end to Accept
	done  chan struct{} // closed by Close
	once  sync.Once
}

// Accept returns the next dialed connection.
func (l *memListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, fmt.Errorf("transport: accept %s: %w", l.Addr(), ErrClosed)
	}
}

// Close stops listening and frees the name.
func (l *memListener) Close() error {
	l.once.Do(func() {
		close(l.done)
		l.n.mu.Lock()
		if l.n.listeners[l.name] == l {
			delete(l.n.listeners, l.name)
		}
		l.n.mu.Unlock()
	})
	return nil
}

// Addr returns mem://NAME.
func (l *memListener) Addr() string { return "mem://" + l.name }
