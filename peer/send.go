package peer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// Send queues one msg durably: when it returns, the msg is in the peer's
// outbox and will be delivered (and replayed) until acknowledged.
func (n *Node) Send(ctx context.Context, r SendRequest) (SendResult, error) {
	to := r.To
	if err := n.checkPeer(to); err != nil {
		return SendResult{}, err
	}
	th := r.Th
	if th == "" {
		th = wire.NewThread()
	} else if !wire.ValidThread(th) {
		return SendResult{}, fmt.Errorf("peer: send: bad thread id %q (want thr_ and 1 to 32 of [0-9a-z])", th)
	}
	if r.Re != "" && !wire.ValidID(r.Re) {
		return SendResult{}, fmt.Errorf("peer: send: bad re %q", r.Re)
	}
	parts := make([]json.RawMessage, 0, len(r.Parts)+len(r.Blobs))
	parts = append(parts, r.Parts...)
	// Parts are decoded once: checked here, and the preview reads them.
	m := &wire.Msg{Subject: r.Subject, Re: r.Re, Parts: parts}
	if i := m.BadPart(); i >= 0 {
		return SendResult{}, fmt.Errorf("peer: send: part %d is not an object with a string k (or a known field has the wrong type)", i)
	}
	var staged []*stagedBlob
	for _, bf := range r.Blobs {
		sb, err := n.stageBlob(bf)
		if err != nil {
			return SendResult{}, err
		}
		staged = append(staged, sb)
		parts = append(parts, wire.BlobPart(sb.ref, sb.name, sb.mime, sb.size, sb.sha))
	}
	if len(parts) == 0 {
		return SendResult{}, errors.New("peer: send: a msg needs at least one part")
	}
	m.Parts = parts
	m.T, m.Th = wire.TypeMsg, th
	// Encoded here, in parallel with other callers; the commit loop only
	// stamps the id and time (ids must be made there: outbox order is id
	// order). The placeholders have the final lengths, so a msg too long
	// for one line is refused here, before it has an id.
	tmpl, err := wire.EncodeMsgTemplate(m)
	if errors.Is(err, wire.ErrTooLong) {
		return SendResult{}, fmt.Errorf("peer: send: %w (send large content as a blob)", err)
	}
	if err != nil {
		return SendResult{}, fmt.Errorf("peer: send: %w", err)
	}
	j := &sendJob{n: n, to: to, m: m, tmpl: tmpl, preview: previewText(m), staged: staged, waiter: r.waiter, done: make(chan error, 1)}
	j.job = j
	if err := n.commit.submit(&j.op); err != nil {
		return SendResult{}, wrapOp("send", err)
	}
	select {
	case err = <-j.done:
	case <-ctx.Done():
		err = ctx.Err() // gives up waiting, not the write
	}
	if err != nil {
		return SendResult{}, wrapOp("send", err)
	}
	return SendResult{ID: m.ID, Th: th}, nil
}

// sendJob stores one msg (and its staged blobs) in the commit loop.
type sendJob struct {
	op
	n       *Node
	to      key.PublicKey
	m       *wire.Msg
	tmpl    []byte // m encoded with placeholders for id and ts
	preview string
	staged  []*stagedBlob
	waiter  *waiter
	done    chan error
}

func (j *sendJob) run(tx *store.Tx) error {
	n, m := j.n, j.m
	now := n.now()
	m.ID, m.TS = n.ids.New(), wire.FormatTime(now)
	raw := j.tmpl
	if err := wire.StampMsg(raw, m.ID, m.TS); err != nil {
		return err
	}
	if _, err := n.appendOut(tx, j.to, m.Th, m.ID, raw, now, func(t *store.Thread) {
		if t.Subject == "" && m.Subject != "" {
			t.Subject = m.Subject
		}
		if j.preview != "" {
			t.LastText, t.LastFrom = j.preview, n.pubS
		}
	}); err != nil {
		return err
	}
	for _, sb := range j.staged {
		if err := n.queueBlob(tx, j.to, m.Th, sb, now); err != nil {
			return err
		}
	}
	if j.waiter != nil {
		n.mu.Lock()
		n.waiters[m.ID] = j.waiter
		n.mu.Unlock()
	}
	return nil
}

func (j *sendJob) finish(err error) { j.done <- err }

// ownThread finds my thread with id th (with whichever peer it is).
func (n *Node) ownThread(tx *store.Tx, th string) (store.ThreadKey, bool) {
	for _, tk := range tx.FindThreads(th) {
		if tk.NS == store.NSOwn {
			return tk, true
		}
	}
	return store.ThreadKey{}, false
}

// appendOut stores an outbound content line in its thread and the peer's
// outbox, mirrors it, and arranges for the sender to wake after the commit.
func (n *Node) appendOut(tx *store.Tx, to key.PublicKey, th, id string, raw []byte, now time.Time, update func(*store.Thread)) (uint64, error) {
	tk := store.ThreadKey{NS: store.NSOwn, Peer: to, Th: th}
	t, _ := tx.EnsureThread(tk, now)
	seq, err := tx.AppendLine(tk, store.Line{Dir: store.DirOut, From: n.pub, Stored: now, Raw: raw})
	if err != nil {
		return 0, err
	}
	t.Updated = now
	if t.ReadSeq == seq-1 {
		t.ReadSeq = seq // my own line does not make the thread unread
	}
	if update != nil {
		update(t)
	}
	tx.Touch(tk)
	if _, err := tx.AppendOutbox(to, store.Out{Th: th, ID: id, LineSeq: seq, Raw: raw}); err != nil {
		return 0, err
	}
	n.commit.noteID(id)
	if err := n.mirrorLine(tx, tk, "out", raw); err != nil {
		return 0, err
	}
	n.commit.wakeAfter(to)
	n.commit.lineAfter(to, th, seq, raw, now)
	return seq, nil
}

// queueRaw appends a line to a peer's outbox that is not kept in a thread
// (mirror lines to hosts).
func (n *Node) queueRaw(tx *store.Tx, to key.PublicKey, o store.Out) error {
	if _, err := tx.AppendOutbox(to, o); err != nil {
		return err
	}
	n.commit.noteID(o.ID)
	n.commit.wakeAfter(to)
	return nil
}

// runCtx runs fn in the commit loop and waits, giving up waiting (not the
// write) when ctx ends.
func (n *Node) runCtx(ctx context.Context, fn func(tx *store.Tx) error) error {
	ch := make(chan error, 1)
	if err := n.commit.submit(&op{fn: fn, done: func(err error) { ch <- err }}); err != nil {
		return err
	}
	select {
	case err := <-ch:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// checkPeer refuses a key the node cannot address: the zero key (none
// given) and its own.
func (n *Node) checkPeer(k key.PublicKey) error {
	if k.IsZero() {
		return fmt.Errorf("%w: no key", ErrBadKey)
	}
	if k == n.pub {
		return fmt.Errorf("%w: that is this node's own key", ErrBadKey)
	}
	return nil
}
