package peer

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/transport"
	"github.com/awp-tray/awp-tray/peer/transport/wg"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// dialer keeps a connection to one address up, redialing with backoff.
type dialer struct {
	addr string
	kick chan struct{} // cuts a backoff wait short (a Connect is waiting)
	stop chan struct{} // closed when the dialer is retired (retireLocked): the loop ends

	mu      sync.Mutex // guards the fields below
	peer    key.PublicKey
	started uint64 // dial attempts begun so far
	waiters []dialWaiter
	stopped bool // stop is closed and the dialer left n.dialers
}

// dialWaiter is a Connect waiting for the first attempt that begins after
// it asked (one already under way may have started before the peer was
// reachable).
type dialWaiter struct {
	after uint64 // d.started when it asked
	ch    chan dialResult
}

type dialResult struct {
	peer key.PublicKey
	err  error
}

// Connect dials addr and keeps the connection up (redialing with backoff,
// also after a restart). It returns the peer's key once the first handshake
// completes, or the first dial or handshake error.
func (n *Node) Connect(ctx context.Context, addr string) (key.PublicKey, error) {
	if n.isClosed() {
		return key.PublicKey{}, ErrClosed
	}
	d, created, err := n.ensureDialer(addr)
	if err != nil {
		return key.PublicKey{}, fmt.Errorf("peer: connect: %w", err)
	}
	ch := make(chan dialResult, 1)
	d.mu.Lock()
	for d.stopped { // stopped after ensureDialer found it: a new one takes over
		d.mu.Unlock()
		d, created, _ = n.ensureDialer(addr) // the address parsed a moment ago
		d.mu.Lock()
	}
	if !d.peer.IsZero() && n.sessionFor(d.peer) != nil {
		p := d.peer
		d.mu.Unlock()
		return p, nil
	}
	after := d.started
	if created {
		after = 0 // its first attempt began because of this Connect
	}
	d.waiters = append(d.waiters, dialWaiter{after: after, ch: ch})
	d.mu.Unlock()
	select {
	case d.kick <- struct{}{}: // dial now, not after the backoff
	default:
	}
	select {
	case r := <-ch:
		return r.peer, r.err
	case <-ctx.Done():
		return key.PublicKey{}, fmt.Errorf("peer: connect %s: %w", addr, ctx.Err())
	case <-n.ctx.Done():
		return key.PublicKey{}, ErrClosed
	}
}

// ensureDialer returns the dialer of addr, and whether this call made it
// (and started its dial loop). An address no transport reads gets none
// (it would be dialed forever, failing): the error is ParseAddr's.
func (n *Node) ensureDialer(addr string) (*dialer, bool, error) {
	if _, err := transport.ParseAddr(addr); err != nil {
		return nil, false, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if d := n.dialers[addr]; d != nil {
		return d, false, nil
	}
	d := &dialer{addr: addr, kick: make(chan struct{}, 1), stop: make(chan struct{})}
	n.dialers[addr] = d
	if n.closed {
		return d, false, nil
	}
	n.wg.Add(1)
	go n.dialLoop(d)
	return d, true, nil
}

// begin counts a dial attempt about to start and returns its number.
func (d *dialer) begin() uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.started++
	return d.started
}

// report hands the result of attempt number attempt to the Connects
// waiting: a success, a closing node (ErrClosed) or an address that leads
// back to this node (ErrSelfAddress, after which the dialer stops) answers
// everyone, a failure only those that asked before the attempt began (the
// others wait for the next attempt, which their kick starts at once).
func (d *dialer) report(attempt uint64, r dialResult) {
	d.mu.Lock()
	var ready []dialWaiter
	keep := d.waiters[:0]
	for _, w := range d.waiters {
		if w.after < attempt || r.err == nil || errors.Is(r.err, ErrClosed) || errors.Is(r.err, ErrSelfAddress) {
			ready = append(ready, w)
		} else {
			keep = append(keep, w)
		}
	}
	d.waiters = keep
	if r.err == nil {
		d.peer = r.peer
	}
	d.mu.Unlock()
	for _, w := range ready {
		w.ch <- r
	}
}

// stopIdleDialer ends the dial loop of addr when it never reached a peer
// and no Connect waits on it: AddInvite's other addresses once one of them
// connected, which would otherwise be redialed (and reported as failing)
// for as long as the node runs. A dialer that reached a peer stays.
func (n *Node) stopIdleDialer(addr string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	d := n.dialers[addr]
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.peer.IsZero() || len(d.waiters) > 0 {
		return
	}
	n.retireLocked(d)
}

// dropDialer takes d out of n.dialers for good, whatever it reached or
// who waits: its loop is about to end. Marked stopped under d.mu first, so
// no Connect adds itself to d's waiters after the final report.
func (n *Node) dropDialer(d *dialer) {
	n.mu.Lock()
	defer n.mu.Unlock()
	d.mu.Lock()
	defer d.mu.Unlock()
	n.retireLocked(d)
}

// retireLocked marks d stopped, closes its stop and takes it out of
// n.dialers (when it is still the dialer of its address), once. The
// caller holds n.mu and d.mu.
func (n *Node) retireLocked(d *dialer) {
	if d.stopped {
		return
	}
	d.stopped = true
	close(d.stop)
	if n.dialers[d.addr] == d {
		delete(n.dialers, d.addr)
	}
}

func (n *Node) dialLoop(d *dialer) {
	defer n.wg.Done()
	backoff := minBackoff
	for n.ctx.Err() == nil {
		select {
		case <-d.stop:
			return
		default:
		}
		attempt := d.begin()
		ctx, cancel := context.WithTimeout(n.ctx, dialTimeout)
		c, err := n.tm.Dial(ctx, d.addr)
		cancel()
		var s *session
		if err == nil {
			s, err = n.handshake(c, d.addr)
		}
		if err != nil {
			if n.ctx.Err() != nil {
				d.report(attempt, dialResult{err: ErrClosed})
				return
			}
			var he *HandshakeError
			if errors.As(err, &he) && he.Code == wire.CodeSelf {
				// The address is this node's own (or forwards to it):
				// redialing it could only fail the same way, for good.
				n.log.Warn("not dialing an address that leads back to this node", "addr", d.addr)
				n.dropDialer(d)
				d.report(attempt, dialResult{err: &opError{what: "connect " + d.addr, err: ErrSelfAddress}})
				n.publish(Event{Type: EventDialError, Err: ErrSelfAddress.Error(), Of: d.addr})
				return
			}
			var nh *wg.NoHandshakeError
			if errors.As(err, &nh) {
				err = nh // "KEY has not added your invite", without the layers
			}
			n.log.Info("dial failed", "addr", d.addr, "err", err, "retry", backoff)
			d.report(attempt, dialResult{err: connectError(d.addr, err)})
			n.publish(Event{Type: EventDialError, Err: err.Error(), Of: d.addr})
		} else {
			d.report(attempt, dialResult{peer: s.peer})
			n.rememberDial(s.peer, d.addr)
			started := time.Now()
			s.run()
			if time.Since(started) > stableSession {
				backoff = minBackoff
			}
		}
		// Jittered exponential backoff.
		wait := backoff/2 + time.Duration(rand.Int64N(int64(backoff)))
		select {
		case <-time.After(wait):
			backoff = min(backoff*2, maxBackoff)
		case <-d.kick:
			// A Connect asked: try now, and back off from the start again.
			backoff = minBackoff
		case <-d.stop:
			return
		case <-n.ctx.Done():
			return
		}
	}
}

// rememberDial records that this node keeps dialing addr for peer, so it
// redials after a restart.
func (n *Node) rememberDial(k key.PublicKey, addr string) {
	now := n.now()
	n.commit.async("dialed address", func(tx *store.Tx) error {
		p, ok := tx.Peer(k)
		if !ok {
			p = &store.Peer{Key: k.String(), FirstSeen: now, LastSeen: now}
		}
		if p.Dialed == addr {
			return nil
		}
		p.Dialed = addr
		return tx.PutPeer(p)
	})
}
