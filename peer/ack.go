package peer

import (
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// Acks and errs: what a peer says of the lines this node sent it, and what this
// node says of the lines it received (docs/protocol/acks-and-resume.md,
// docs/protocol/framing.md). An ack is cumulative per thread: this node sends
// one per thread with the newest id committed (queueAck), and a received one
// takes every line of its thread up to its id out of the outbox (onAck). An err
// answers one line (re) or ends the session (a fatal code).

// onAck applies a received cumulative ack: the acked lines leave the
// outbox, and the thread records how far the peer has acked (lineHandlers;
// also the sender, for a resume that says the peer holds lines already).
func (s *session) onAck(a *wire.Ack) bool {
	s.flight.acked(a.Th, a.Of) // room in the chunk window (priority.go)
	n, peer := s.n, s.peer
	n.commit.async("ack", func(tx *store.Tx) error {
		lineSeq, ok, err := tx.AckOutbox(peer, a.Th, a.Of)
		if err != nil || !ok {
			return err
		}
		if lineSeq > 0 {
			tk := store.ThreadKey{NS: store.NSOwn, Peer: peer, Th: a.Th}
			if t, ok := tx.Thread(tk); ok && lineSeq > t.AckedSeq {
				t.AckedSeq = lineSeq
				tx.Touch(tk)
			}
		}
		n.commit.publishAfter(Event{Type: EventAck, Peer: peer, Th: a.Th, Of: a.Of})
		return nil
	})
	return true
}

// onErr acts on a received err line (lineHandlers): it is published, it
// answers a request of this node's (re), a refused line is sent again
// (onRefused), and a fatal code ends the session.
func (s *session) onErr(e *wire.Err) bool {
	n := s.n
	n.log.Info("peer sent err", "peer", s.peer.Short(), "code", e.Code, "msg", e.Msg, "re", e.Re)
	n.publish(Event{Type: "err", Peer: s.peer, Th: e.Th, Of: e.Re, Err: e.Code + ": " + e.Msg})
	n.onRemoteErr(s, e)
	s.onRefused(e)
	if wire.FatalCode(e.Code) {
		s.close(e)
		return false
	}
	return true
}

// queueAck records that th is stored up to id; the writer sends one ack
// per thread with the newest id (coalescing).
func (s *session) queueAck(th, id string) {
	s.ackMu.Lock()
	_, had := s.acks[th]
	full := !had && len(s.acks) >= maxPendingAcks
	if !full {
		s.acks[th] = id
	}
	s.ackMu.Unlock()
	if full {
		s.close(errAcksFull)
		return
	}
	s.wq.wake()
}

// takeAcks returns the acks waiting for the writer, and forgets them.
func (s *session) takeAcks() map[string]string {
	s.ackMu.Lock()
	defer s.ackMu.Unlock()
	if len(s.acks) == 0 {
		return nil
	}
	a := s.acks
	s.acks = map[string]string{}
	return a
}
