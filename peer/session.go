package peer

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
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
	closeErr  error // why close was first called (nil: a plain end); set once, read after ctx is done
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
	n.publish(Event{Type: EventPeerUp, Peer: s.peer, PeerName: s.hello.Name})
	n.sendListen(s) // queued ahead of any line the peer's lines cause (their acks go first)
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
	n.publish(Event{Type: EventPeerDown, Peer: s.peer, PeerName: s.hello.Name})
}

// close ends the session.
func (s *session) close(err error) {
	s.closeOnce.Do(func() {
		s.closeErr = err
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
