package peer

import (
	"context"
	"errors"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// session is one authenticated connection to a peer. Its writer goroutine
// alone writes to the connection; its reader hands content to the commit
// loop; its sender walks the outbox.
type session struct {
	n        *Node
	c        net.Conn
	r        *wire.Reader
	peer     key.PublicKey
	peerS    string // peer.String()
	hello    *wire.Hello
	resume   *wire.Resume
	dialAddr string // set when this node dialed
	early    []wire.Frame
	hsDur    time.Duration
	started  time.Time

	ctx    context.Context
	cancel context.CancelFunc
	wq     writeQueue

	lastRecv atomic.Int64 // unix ns of the last line read
	lastSent atomic.Int64 // unix ns of the last flush

	listenLines atomic.Int32 // listen lines received (listen.go)

	probeMu sync.Mutex    // one probe at a time (keepalive.go)
	pingMu  sync.Mutex    // guards pingID, pongCh
	pingID  string        // the ping awaiting its pong
	pongCh  chan struct{} // closed by the pong
	pongs   tokens        // bounds the pongs sent

	ackMu sync.Mutex        // guards acks
	acks  map[string]string // th → newest committed id to ack

	flight chunkFlight // chunk bytes sent and not acked (priority.go)

	rewindMu  sync.Mutex // guards the fields below
	rewindSeq uint64     // send again from this outbox seq (0: nothing refused)
	rewindDue bool       // and the time to do so has come
	rewindSet bool       // a timer will set rewindDue

	tier    int               // tierKnown or tierStranger: what of the node's bounds it may take
	bigLine bool              // the reader holds a long-line slot (reader goroutine only)
	gates   map[string]string // th → the first line refused in it (commit loop only; see gated)

	closeOnce sync.Once
}

// boundHello applies those bounds to a verified hello.
func boundHello(h *wire.Hello) {
	h.Name, h.About = wire.Clip(h.Name, MaxPeerName), wire.Clip(h.About, MaxPeerAbout)
	listen := h.Listen[:0:0]
	for _, a := range h.Listen {
		if len(listen) == MaxPeerListen {
			break
		}
		if len(a) <= MaxAddrLen {
			listen = append(listen, a)
		}
	}
	h.Listen = listen
}

func newSession(n *Node, c net.Conn, r *wire.Reader, pk key.PublicKey, h *wire.Hello, res *wire.Resume, dialAddr string, early []wire.Frame) *session {
	boundHello(h) // verified already
	s := &session{n: n, c: c, r: r, peer: pk, peerS: pk.String(), hello: h, resume: res, dialAddr: dialAddr, early: early,
		acks: map[string]string{}, started: time.Now()}
	s.ctx, s.cancel = context.WithCancel(n.ctx)
	r.SetGrow(s.growLine) // returned when the read loop ends, or when idle (readLoop)
	s.wq.init(writeLimit, &n.queued)
	s.lastRecv.Store(time.Now().UnixNano())
	s.lastSent.Store(time.Now().UnixNano())
	return s
}

// run registers the session, runs its goroutines and returns when it ends.
func (s *session) run() {
	n := s.n
	s.tier = tierStranger
	if s.dialAddr != "" || n.knownPeer(s.peer) {
		s.tier = tierKnown
	}
	if err := n.register(s); err != nil {
		if errors.Is(err, errTooMany) {
			// Not running yet: the refusal is written here, then closed.
			_ = s.c.SetWriteDeadline(time.Now().Add(goodbyeTimeout))
			w := wire.NewWriter(s.c)
			if w.WriteFrame(wire.NewErr(n.ids.New(), n.stamp(), wire.CodeNotAllowed, "too many peers connected here; try again later", "", "")) == nil {
				_ = w.Flush()
			}
			n.log.Warn("session refused", "peer", s.peer.Short(), "err", err)
		}
		s.close(nil)
		return
	}
	n.log.Info("peer up", "peer", s.peer.Short(), "name", s.hello.Name, "dialed", s.dialAddr != "", "handshake", s.hsDur)
	n.notePeer(s)
	n.publish(Event{Type: EventPeerUp, Peer: s.peerS, PeerName: s.hello.Name})
	n.sendListen(s) // queued ahead of anything the peer's lines cause
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); s.writeLoop() }()
	go func() { defer wg.Done(); s.readLoop() }()
	go func() { defer wg.Done(); s.sendLoop() }()
	n.greetPresence(s)
	<-s.ctx.Done()
	s.c.Close()
	s.wq.close()
	wg.Wait()
	n.unregister(s)
	n.noteDown(s)
	n.log.Info("peer down", "peer", s.peer.Short())
	n.publish(Event{Type: EventPeerDown, Peer: s.peerS, PeerName: s.hello.Name})
}

// close ends the session.
func (s *session) close(err error) {
	s.closeOnce.Do(func() {
		if err != nil && s.ctx.Err() == nil {
			s.n.log.Info("session closed", "peer", s.peer.Short(), "err", err)
		}
		s.cancel()
		s.c.Close()
		s.wq.close()
	})
}

// fatal sends one err line and closes after it is written.
func (s *session) fatal(code, msg, re string) {
	e := wire.NewErr(s.n.ids.New(), s.n.stamp(), code, msg, re, "")
	if b, err := wire.Encode(e); err == nil {
		s.wq.pushFinal(b)
		return
	}
	s.close(nil)
}

// sendErr queues a non-fatal err line ahead of content.
func (s *session) sendErr(code, msg, re, th string) {
	s.sendErrRetry(code, msg, re, th, 0)
}

// sendErrRetry is sendErr with retry_ms (rate_limited).
func (s *session) sendErrRetry(code, msg, re, th string, retry time.Duration) {
	e := wire.NewErr(s.n.ids.New(), s.n.stamp(), code, msg, re, th)
	if code == wire.CodeRateLimited && retry > 0 {
		e.RetryMS = retry.Milliseconds()
	}
	if b, err := wire.Encode(e); err == nil {
		if !s.wq.pushPrio(b) {
			s.close(errErrQueueFull)
		}
	}
}

func (s *session) writeLoop() {
	defer s.wq.drop()
	w := wire.NewWriter(s.c)
	for {
		prio, items, final, closed := s.wq.take()
		acks := s.takeAcks()
		if closed && !final && len(prio) == 0 {
			putLines(items)
			return
		}
		_ = s.c.SetWriteDeadline(time.Now().Add(writeTimeout))
		var err error
		for _, b := range prio {
			if err == nil {
				err = w.WriteLine(b)
			}
		}
		for th, of := range acks {
			if err == nil {
				b, _ := wire.Encode(wire.NewAck(th, of))
				err = w.WriteLine(b)
			}
		}
		for _, it := range items {
			if err == nil {
				err = w.WriteLine(it.b)
			}
		}
		putLines(items) // written (or copied into w's buffer), or dropped
		if err == nil {
			err = w.Flush()
		}
		if err != nil {
			s.close(err)
			return
		}
		s.lastSent.Store(time.Now().UnixNano())
		if final || closed {
			s.close(nil)
			return
		}
	}
}

// writeQueue is the bounded queue in front of a session's writer. Content
// waits while more than limit bytes are queued, or more than writeFloor
// while the node's shared budget (writeShared) is used up; err lines
// (at most maxErrQueue bytes) and the final line jump ahead.
type writeQueue struct {
	mu        sync.Mutex // guards the fields below
	cond      sync.Cond
	items     []qline
	prio      [][]byte
	prioBytes int
	bytes     int
	limit     int
	shared    *sharedQueue
	woken     bool
	final     bool
	closed    bool
}

func (q *writeQueue) init(limit int, shared *sharedQueue) {
	q.limit = limit
	q.shared = shared
	if q.shared == nil {
		q.shared = &sharedQueue{}
	}
	q.cond.L = &q.mu
}

// roomLocked reports whether n more content bytes may be queued now, and
// counts them in the shared budget if so.
func (q *writeQueue) roomLocked(n int) bool {
	if q.bytes >= q.limit {
		return false
	}
	if q.bytes+n <= writeFloor {
		q.shared.add(n)
		return true
	}
	return q.shared.tryAdd(n)
}

var errQueueClosed = errors.New("peer: session closed")

// qline is a queued content line; a pooled one goes back to lineBufs once
// written.
type qline struct {
	b      []byte
	pooled bool
}

// push queues a content line, waiting while the queue is full.
func (q *writeQueue) push(b []byte) error {
	return q.pushLine(qline{b: b})
}

// pushLine is push for a line that may be pooled.
func (q *writeQueue) pushLine(l qline) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for !q.closed && !q.roomLocked(len(l.b)) {
		if q.bytes >= q.limit {
			q.cond.Wait() // the writer takes this queue's lines
			continue
		}
		// The node's shared budget is used up: wait for any writer.
		freed := q.shared.freed()
		q.mu.Unlock()
		select {
		case <-freed:
		case <-time.After(sharedRecheck): // and look at closed again
		}
		q.mu.Lock()
	}
	if q.closed {
		if l.pooled {
			putLineBuf(l.b)
		}
		return errQueueClosed
	}
	q.items = append(q.items, l)
	q.bytes += len(l.b)
	q.cond.Broadcast()
	return nil
}

// tryPush queues a line unless the queue is full (presence: best effort).
func (q *writeQueue) tryPush(b []byte) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed || !q.roomLocked(len(b)) {
		return false
	}
	q.items = append(q.items, qline{b: b})
	q.bytes += len(b)
	q.cond.Broadcast()
	return true
}

// pushPrio queues an err line ahead of content; false when maxErrQueue
// bytes of them wait already (the peer does not read: close it).
func (q *writeQueue) pushPrio(b []byte) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return true
	}
	if q.prioBytes+len(b) > maxErrQueue {
		return false
	}
	q.prio = append(q.prio, b)
	q.prioBytes += len(b)
	q.cond.Broadcast()
	return true
}

// pushFinal queues b ahead of everything and closes the queue after it.
func (q *writeQueue) pushFinal(b []byte) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.prio = append(q.prio, b)
	putLines(q.items)
	q.shared.sub(q.bytes)
	q.items, q.bytes = nil, 0
	q.final = true
	q.closed = true
	q.cond.Broadcast()
}

func (q *writeQueue) wake() {
	q.mu.Lock()
	q.woken = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

func (q *writeQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

// drop closes the queue and gives the pooled buffers of the lines still in
// it back (the writer's last act: nothing will write them).
func (q *writeQueue) drop() {
	q.mu.Lock()
	q.closed = true
	items := q.items
	q.shared.sub(q.bytes)
	q.items, q.bytes = nil, 0
	q.cond.Broadcast()
	q.mu.Unlock()
	putLines(items)
}

// putLines gives back the pooled buffers of lines written or dropped.
func putLines(items []qline) {
	for _, it := range items {
		if it.pooled {
			putLineBuf(it.b)
		}
	}
}

// take waits for work and returns all of it.
func (q *writeQueue) take() (prio [][]byte, items []qline, final, closed bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && len(q.prio) == 0 && !q.woken && !q.closed {
		q.cond.Wait()
	}
	prio, items, final, closed = q.prio, q.items, q.final, q.closed
	q.shared.sub(q.bytes)
	q.prio, q.items, q.bytes, q.woken, q.prioBytes = nil, nil, 0, false, 0
	q.final = false
	q.cond.Broadcast()
	return
}

// register makes s the session for its peer. When a session for the peer
// exists: a reconnect from the same side replaces it; crossed connections
// (each side dialed) keep the one dialed by the smaller key, so both sides
// choose the same. But a peer that connects while its old session is up
// may have lost that session (it restarted: over wg nothing told this
// side), so before the old one is kept over the new it is probed
// (keepalive.go); if it is dead, the new one takes its place. A new peer
// past MaxSessions (MaxStrangerSessions for a stranger) is refused with
// errTooMany.
func (n *Node) register(s *session) error {
	probed := false
	for {
		n.mu.Lock()
		if n.closed {
			n.mu.Unlock()
			return ErrClosed
		}
		old := n.sessions[s.peer]
		if old == nil && n.fullLocked(s.tier) {
			n.mu.Unlock()
			return errTooMany
		}
		if old != nil && old.ctx.Err() == nil {
			oldMine, newMine := old.dialAddr != "", s.dialAddr != ""
			// Crossed: keep the connection the smaller key dialed.
			if oldMine != newMine && newMine != lessKey(n.pub, s.peer) {
				n.mu.Unlock()
				if probed || old.probe(probeTimeout) || n.ctx.Err() != nil {
					return errCrossed // the old one is alive: a real crossing
				}
				n.log.Info("an old connection is dead; the peer's new one replaces it", "peer", s.peer.Short())
				old.close(errStale)
				probed = true
				continue
			}
		}
		n.sessions[s.peer] = s
		n.mu.Unlock()
		if old != nil {
			old.close(errors.New("replaced by a newer connection"))
		}
		if s.dialAddr != "" {
			// A key this node dialed may reach it over wg
			// (docs/protocol/bindings.md); one that merely connected here may
			// not.
			n.tm.AllowKey(s.peer)
		}
		return nil
	}
}

// fullLocked reports whether the sessions leave no room for one more of
// tier (MaxSessions, MaxStrangerSessions). n.mu is held.
func (n *Node) fullLocked(tier int) bool {
	all, strangers := len(n.sessions), 0
	for _, o := range n.sessions {
		if o.tier != tierKnown {
			strangers++
		}
	}
	return all >= MaxSessions || tier != tierKnown && strangers >= MaxStrangerSessions
}

var errCrossed = errors.New("peer: crossed connection; the other one is kept")

// growLine lends the session's reader a long-line buffer (see MaxLineBufs),
// waiting for a slot; nil when the session ends first.
func (s *session) growLine() []byte {
	if !s.n.lineBufs.get(s.ctx, s.tier) {
		return nil
	}
	s.bigLine = true
	_ = s.c.SetReadDeadline(time.Now().Add(LongLineTimeout))
	return readBufs.Get()
}

// putLine gives the long-line buffer b back.
func (s *session) putLine(b []byte) {
	readBufs.Put(b)
	if s.bigLine {
		s.bigLine = false
		s.n.lineBufs.put(s.tier)
	}
}

func lessKey(a, b key.PublicKey) bool {
	ra, rb := a.Raw(), b.Raw()
	return string(ra[:]) < string(rb[:])
}

func (n *Node) unregister(s *session) {
	n.mu.Lock()
	if n.sessions[s.peer] == s {
		delete(n.sessions, s.peer)
	}
	n.mu.Unlock()
}

func (n *Node) sessionFor(k key.PublicKey) *session {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.sessions[k]
}

// notePeer records what the hello said about the peer (asynchronously).
func (n *Node) notePeer(s *session) {
	now := n.now()
	h := s.hello
	ep := n.wgEndpoint(s) // where to announce a restart to (wgkeys.go)
	// Checked in a read first: a commit costs fsyncs even when its ops
	// end up writing nothing.
	unchanged := func(p *store.Peer, ok bool) bool {
		return ok && p.Name == h.Name && p.About == h.About && slices.Equal(p.Listen, h.Listen) &&
			slices.Equal(p.Caps, h.Caps) && (s.dialAddr == "" || p.Dialed != "") &&
			(ep == "" || p.WGEndpoint == ep) &&
			now.Sub(p.LastSeen) < lastSeenEvery && !now.Before(p.LastSeen)
	}
	skip := false
	_ = n.db.View(func(tx *store.Tx) error {
		skip = unchanged(tx.Peer(s.peer))
		return nil
	})
	if skip {
		return // a reconnect within the minute: nothing worth a write
	}
	n.commit.async("peer record", func(tx *store.Tx) error {
		p, ok := tx.Peer(s.peer)
		if unchanged(p, ok) {
			return nil
		}
		if !ok {
			p = &store.Peer{Key: s.peerS, FirstSeen: now}
		}
		if !ok || p.Name != h.Name {
			// A new peer, or a new name: this node's presence document
			// lists its peers by name, so it is rebuilt after the commit
			// (the session's own up event may have come before this).
			n.commit.presenceAfter()
		}
		p.Name, p.About, p.Listen, p.Caps, p.LastSeen = h.Name, h.About, h.Listen, h.Caps, now
		if s.dialAddr != "" && p.Dialed == "" {
			p.Dialed = s.dialAddr
		}
		if ep != "" {
			p.WGEndpoint = ep
		}
		return tx.PutPeer(p)
	})
}

// noteDown records when a session with a known peer ended, so its
// last_seen is the last time it was here rather than when the session
// began (the Presence window's "last seen 5 min ago"). Like notePeer it
// writes at most once per lastSeenEvery: a session shorter than that left
// last_seen recent enough, so a peer that reconnects in a loop costs no
// writes here.
func (n *Node) noteDown(s *session) {
	if n.ctx.Err() != nil {
		return // closing: the commit loop is stopping
	}
	now := n.now()
	stale := func(p *store.Peer, ok bool) bool { return ok && now.Sub(p.LastSeen) >= lastSeenEvery }
	var write bool
	_ = n.db.View(func(tx *store.Tx) error {
		write = stale(tx.Peer(s.peer))
		return nil
	})
	if !write {
		return
	}
	n.commit.async("peer last seen", func(tx *store.Tx) error {
		p, ok := tx.Peer(s.peer)
		if !stale(p, ok) {
			return nil
		}
		p.LastSeen = now
		return tx.PutPeer(p)
	})
}

// outSignal returns the channel that wakes the sender for peer k.
func (n *Node) outSignal(k key.PublicKey) chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	ch := n.outSig[k]
	if ch == nil {
		ch = make(chan struct{}, 1)
		n.outSig[k] = ch
	}
	return ch
}

func (n *Node) wakeSender(k key.PublicKey) {
	select {
	case n.outSignal(k) <- struct{}{}:
	default:
	}
}
