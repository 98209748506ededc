package peer

import (
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// Receiving a line, in one place. A session's reader (readLoop) reads and
// decodes each line and looks its type up in lineHandlers:
//
//   - a line that is not content (ack, err, presence, this node's listen
//     and keepalive) is acted on at once, on the reader's goroutine, by its
//     read function (ack.go, presence.go, listen.go, keepalive.go);
//   - a content line goes to the commit loop as an inJob (receive), which
//     stores it in the batch's transaction (storeLine: the dedupe, the
//     sender's quota, then its type's store function: msg.go, state.go,
//     chunk.go, introduce.go, mirror.go), then, after the commit, queues
//     its ack and publishes its event (inJob.finish);
//   - any other type is skipped (docs/protocol/framing.md: unknown types
//     are ignored).

// lineHandler is what the reader does with lines of one type: read or
// store is set, never both.
type lineHandler struct {
	// read acts on a line that is not content; false ends the session.
	read func(s *session, f wire.Frame) bool
	// store stores a content line from in.s's peer inside the commit
	// loop's transaction (see storeLine). It returns an error only for a
	// storage failure: a bad line is a result (in.res).
	store func(n *Node, tx *store.Tx, in *inLine) error
}

// lineHandlers is the dispatch table of received lines, by type.
var lineHandlers = map[string]lineHandler{
	wire.TypeHello:  {read: repeatedHandshake},
	wire.TypeAuth:   {read: repeatedHandshake},
	wire.TypeResume: {read: repeatedHandshake},
	wire.TypeAck:    {read: readAs((*session).onAck)},
	wire.TypeErr:    {read: readAs((*session).onErr)},
	wire.TypePresence: {read: readAs(func(s *session, p *wire.Presence) bool {
		s.n.onPresence(s, p)
		return true
	})},
	typeListen:    {read: func(s *session, f wire.Frame) bool { s.n.onListen(s, f.Header().Raw()); return true }},
	TypeKeepalive: {read: func(s *session, f wire.Frame) bool { s.n.onKeepalive(s, f.Header().Raw()); return true }},

	wire.TypeMsg:       {store: inThreadAs((*Node).msgThread)},
	wire.TypeState:     {store: inThreadAs((*Node).stateThread)},
	wire.TypeChunk:     {store: storeAs((*Node).storeChunk)},
	wire.TypeIntroduce: {store: storeAs((*Node).storeIntroduce)},
	wire.TypeMirror:    {store: storeAs((*Node).storeMirror)},
	wire.TypePrivate:   {store: storeAs((*Node).storePrivate)},
}

// readAs adapts a read function of one frame type to the table.
func readAs[F wire.Frame](read func(*session, F) bool) func(*session, wire.Frame) bool {
	return func(s *session, f wire.Frame) bool {
		if g, ok := f.(F); ok {
			return read(s, g)
		}
		return true
	}
}

// storeAs adapts a store function of one frame type to the table.
func storeAs[F wire.Frame](st func(*Node, *store.Tx, *inLine, F) error) func(*Node, *store.Tx, *inLine) error {
	return func(n *Node, tx *store.Tx, in *inLine) error {
		if g, ok := in.f.(F); ok {
			return st(n, tx, in, g)
		}
		return nil
	}
}

// inThreadAs adapts to the table a line type stored in its thread
// (storeInThread): update is what a line of that type changes in the
// thread's record, inside the same transaction.
func inThreadAs[F wire.Frame](update func(*Node, *store.Tx, *inLine, F, *store.Thread) error) func(*Node, *store.Tx, *inLine) error {
	return storeAs(func(n *Node, tx *store.Tx, in *inLine, f F) error {
		return n.storeInThread(tx, in, func(t *store.Thread) error { return update(n, tx, in, f, t) })
	})
}

// repeatedHandshake ignores a handshake line after the handshake.
func repeatedHandshake(s *session, f wire.Frame) bool {
	s.n.log.Debug("ignoring repeated handshake line", "peer", s.peer.Short(), "t", f.Header().T)
	return true
}

// dispatch acts on one received frame by its type (lineHandlers); false
// ends the read loop. hs writes and hashes chunks ahead of their commit
// (nil: chunks are written at once and the commit loop hashes them); rx is
// what the caller's loop knows of the blobs being received.
func (s *session) dispatch(f wire.Frame, hs *chunkWorker, rx *rxBlobs) bool {
	h, ok := lineHandlers[f.Header().T]
	switch {
	case !ok:
		return true // an unknown type: skipped
	case h.read != nil:
		return h.read(s, f)
	}
	return s.receive(f, h, hs, rx)
}
