package peer

import (
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/awp-tray/awp-tray/peer/transport"
)

// Handshake admission. Every accepted connection gets a goroutine and a
// file descriptor until its handshake ends, and opening one costs the other
// side nothing (no key, no signature): the handshake may take
// defaultHandshakeTimeout. Bounding the connections in their handshake by
// blocking the accept loop (as this node once did) let 300 idle
// connections shut everyone else out. So the accept loop never waits: when
// the slots are full (MaxHandshakes), or one source already holds its
// share (MaxHandshakesPerSource), a connection gives its slot to the new
// one (it is closed): one that has not sent its hello before one that has,
// one that has not authenticated before one that has, and of those the one
// that has waited longest. A legitimate peer sends its hello at once
// (docs/protocol/handshake.md) and completes its handshake in a few round
// trips, so it is never first in line for long, and a flood evicts its own
// idle connections.

// hsSlot is one accepted connection in its handshake.
type hsSlot struct {
	c       net.Conn
	src     string
	start   time.Time
	stage   atomic.Int32 // hsNoHello, hsHello or hsAuthed
	evicted bool         // closed to make room (guarded by hsAdmit.mu)
}

// Stages of an accepted connection's handshake, in eviction order.
const (
	hsNoHello = iota // nothing received yet
	hsHello          // the peer's hello received
	hsAuthed         // the peer's auth verified
)

// hsAdmit holds the slots.
type hsAdmit struct {
	mu        sync.Mutex // guards the fields below
	slots     map[*hsSlot]struct{}
	perSource map[string]int
	evictions uint64    // connections closed to make room, in all
	lastWarn  time.Time // of the "slots full" warning (one a minute)
}

// admit takes a slot for c, closing the connection that has waited longest
// (of c's source when that source is at its share) when none is free. It
// returns the slot and whether it evicted one to make room.
func (a *hsAdmit) admit(c net.Conn, now time.Time) (*hsSlot, bool) {
	s := &hsSlot{c: c, src: sourceOf(c), start: now}
	a.mu.Lock()
	if a.slots == nil {
		a.slots, a.perSource = map[*hsSlot]struct{}{}, map[string]int{}
	}
	var victim *hsSlot
	switch {
	case a.perSource[s.src] >= MaxHandshakesPerSource:
		victim = a.oldest(s.src, true)
	case len(a.slots) >= MaxHandshakes:
		victim = a.oldest("", false)
	}
	if victim != nil {
		a.remove(victim)
		victim.evicted = true
		a.evictions++
	}
	a.slots[s] = struct{}{}
	a.perSource[s.src]++
	a.mu.Unlock()
	if victim != nil {
		victim.c.Close() // its handshake fails at once and its goroutine ends
	}
	return s, victim != nil
}

// oldest returns the slot to evict (of source src when only is set): the
// earliest stage, then the longest wait. Callers hold a.mu; the slots are
// at most MaxHandshakes, so a scan is cheap next to an accept.
func (a *hsAdmit) oldest(src string, only bool) *hsSlot {
	var best *hsSlot
	for s := range a.slots {
		if only && s.src != src {
			continue
		}
		if best == nil || better(s, best) {
			best = s
		}
	}
	return best
}

// better reports whether s should be evicted before t.
func better(s, t *hsSlot) bool {
	if ss, ts := s.stage.Load(), t.stage.Load(); ss != ts {
		return ss < ts
	}
	return s.start.Before(t.start)
}

func (a *hsAdmit) remove(s *hsSlot) {
	delete(a.slots, s)
	if a.perSource[s.src]--; a.perSource[s.src] <= 0 {
		delete(a.perSource, s.src)
	}
}

// release frees s's slot (unless it was evicted, which freed it already)
// and reports whether it was evicted.
func (a *hsAdmit) release(s *hsSlot) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !s.evicted {
		a.remove(s)
	}
	return s.evicted
}

// closeAll closes every connection in its handshake (the node is closing:
// none of them need wait for its deadline).
func (a *hsAdmit) closeAll() {
	a.mu.Lock()
	cs := make([]net.Conn, 0, len(a.slots))
	for s := range a.slots {
		cs = append(cs, s.c)
	}
	a.mu.Unlock()
	for _, c := range cs {
		c.Close()
	}
}

// warnDue reports whether the eviction warning may be logged now, and how
// many connections were evicted in all.
func (a *hsAdmit) warnDue(now time.Time) (bool, uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if now.Sub(a.lastWarn) < hsWarnEvery {
		return false, a.evictions
	}
	a.lastWarn = now
	return true, a.evictions
}

// inUse returns the slots taken (tests).
func (a *hsAdmit) inUse() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.slots)
}

// sourceOf names the source a connection counts against: its WireGuard
// peer, its IPv4 address, its IPv6 /64, or the whole address for anything
// else (a unix socket's peers all share one).
func sourceOf(c net.Conn) string {
	if k, ok := transport.TunnelPeer(c); ok {
		return "wg:" + k.String()
	}
	addr := c.RemoteAddr()
	if addr == nil {
		return ""
	}
	var ip netip.Addr
	switch a := addr.(type) {
	case *net.TCPAddr:
		ip, _ = netip.AddrFromSlice(a.IP)
	default:
		if ap, err := netip.ParseAddrPort(addr.String()); err == nil {
			ip = ap.Addr()
		} else {
			return addr.Network() + ":" + addr.String()
		}
	}
	ip = ip.Unmap()
	if ip.Is4() || !ip.IsValid() {
		return ip.String()
	}
	p, _ := ip.Prefix(64)
	return p.String()
}
