package peer

import (
	"context"
	"errors"
	"fmt"

	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// A state line declares where its sender stands in a thread ("working",
// "done"…: docs/protocol/messages.md). The thread's record keeps each
// side's last one: Theirs from received lines, Mine from this node's.

// stateThread is what a received state line changes in its thread's
// record (lineHandlers: inThreadAs stores the line).
func (n *Node) stateThread(_ *store.Tx, _ *inLine, st *wire.State, t *store.Thread) error {
	t.Theirs = st.State
	return nil
}

// SetState queues a state line in an existing thread of mine.
func (n *Node) SetState(ctx context.Context, th, state, note string) (SendResult, error) {
	if state == "" {
		return SendResult{}, errors.New("peer: state: empty state")
	}
	var res SendResult
	err := n.runCtx(ctx, func(tx *store.Tx) error {
		tk, ok := n.ownThread(tx, th)
		if !ok {
			return fmt.Errorf("%w: %s", ErrNoThread, th)
		}
		now := n.now()
		st := &wire.State{State: state, Note: note}
		st.T, st.ID, st.TS, st.Th = wire.TypeState, n.ids.New(), wire.FormatTime(now), th
		raw, err := wire.Encode(st)
		if err != nil {
			return err
		}
		if _, err := n.appendOut(tx, tk.Peer, th, st.ID, raw, now, func(t *store.Thread) { t.Mine = state }); err != nil {
			return err
		}
		res = SendResult{ID: st.ID, Th: th}
		return nil
	})
	if err != nil {
		return SendResult{}, wrapOp("state", err)
	}
	return res, nil
}

// countsUnread reports whether a stored line counts as unread: what a
// person reads (a msg, an introduction), not a state line, which the
// thread list shows as the sender's state.
func countsUnread(f wire.Frame) bool {
	_, state := f.(*wire.State)
	return !state
}
