package peer

import (
	"sync"

	"github.com/awp-tray/awp-tray/peer/key"
)

// liveNames are the names the connected peers gave in their hellos, for
// the events that carry none of their own (a line sent, an ack, a blob):
// publish fills Event.PeerName from here. It holds an entry per session,
// so it is bounded as the sessions are.
//
// Its lock is a leaf: nothing is called while it is held. So publish may
// read it from under any other lock, and register and unregister may
// write it under n.mu.
type liveNames struct {
	mu sync.Mutex
	m  map[key.PublicKey]string
}

func (l *liveNames) set(k key.PublicKey, name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[key.PublicKey]string{}
	}
	l.m[k] = name
}

func (l *liveNames) drop(k key.PublicKey) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.m, k)
}

func (l *liveNames) get(k key.PublicKey) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m[k]
}
