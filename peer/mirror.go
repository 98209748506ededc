package peer

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// mirrorState holds the hosts this node mirrors its threads to.
type mirrorState struct {
	mu    sync.Mutex // guards hosts
	hosts []key.PublicKey
}

const settingMirrorHosts = "mirror_hosts"

func (n *Node) loadMirrorHosts(tx *store.Tx) {
	var hs []string
	if b := tx.Setting(settingMirrorHosts); b != nil {
		_ = json.Unmarshal(b, &hs)
	}
	var ks []key.PublicKey
	for _, h := range hs {
		if k, err := key.ParsePublic(h); err == nil {
			ks = append(ks, k)
		}
	}
	n.mirror.mu.Lock()
	n.mirror.hosts = ks
	n.mirror.mu.Unlock()
}

// MirrorHosts returns the hosts this node mirrors its threads to.
func (n *Node) MirrorHosts() []key.PublicKey {
	n.mirror.mu.Lock()
	defer n.mirror.mu.Unlock()
	return append([]key.PublicKey{}, n.mirror.hosts...)
}

// SetMirrorHosts replaces the mirror hosts (docs/protocol/mirror.md): every
// content line of my threads is mirrored to each of them from now on.
func (n *Node) SetMirrorHosts(hosts []key.PublicKey) error {
	var ks []key.PublicKey
	for _, k := range hosts {
		if err := n.checkPeer(k); err != nil {
			return err
		}
		if !slices.Contains(ks, k) {
			ks = append(ks, k)
		}
	}
	b, err := json.Marshal(ks)
	if err != nil {
		return err
	}
	err = n.commit.run(func(tx *store.Tx) error {
		if err := tx.PutSetting(settingMirrorHosts, b); err != nil {
			return err
		}
		n.mirror.mu.Lock()
		n.mirror.hosts = ks
		n.mirror.mu.Unlock()
		return nil
	})
	if err == nil {
		n.publish(Event{Type: EventSettings})
	}
	return err
}

// mirrorLine queues a mirror of a content line of my thread tk to every
// host, unless the thread is private or not mirrored, or the host is the
// thread's other party.
func (n *Node) mirrorLine(tx *store.Tx, tk store.ThreadKey, dir string, raw []byte) error {
	if tk.NS != store.NSOwn {
		return nil
	}
	n.mirror.mu.Lock()
	hosts := n.mirror.hosts
	n.mirror.mu.Unlock()
	if len(hosts) == 0 {
		return nil
	}
	t, ok := tx.Thread(tk)
	if !ok || t.Private || t.NoMirror {
		return nil
	}
	now := n.now()
	for _, h := range hosts {
		if h == tk.Peer {
			continue
		}
		m := &wire.Mirror{Of: tk.Peer.String(), Dir: dir, Line: json.RawMessage(raw)}
		m.T, m.ID, m.TS, m.Th = wire.TypeMirror, n.ids.New(), wire.FormatTime(now), tk.Th
		b, err := wire.Encode(m)
		if err != nil {
			n.log.Warn("line too large to mirror", "th", tk.Th, "err", err)
			continue
		}
		if err := n.queueRaw(tx, h, store.Out{Th: tk.Th, ID: m.ID, Raw: b, Mirror: true}); err != nil {
			return err
		}
	}
	return nil
}

// withdrawMirrors queues a withdraw of thread th to every host.
func (n *Node) withdrawMirrors(tx *store.Tx, tk store.ThreadKey) error {
	n.mirror.mu.Lock()
	hosts := n.mirror.hosts
	n.mirror.mu.Unlock()
	for _, h := range hosts {
		if h == tk.Peer {
			continue
		}
		m := &wire.Mirror{Withdraw: true}
		m.T, m.ID, m.TS, m.Th = wire.TypeMirror, n.ids.New(), n.stamp(), tk.Th
		b, err := wire.Encode(m)
		if err != nil {
			return err
		}
		if err := n.queueRaw(tx, h, store.Out{Th: tk.Th, ID: m.ID, Raw: b, Mirror: true}); err != nil {
			return err
		}
	}
	return nil
}

// storeMirror stores a mirrored line (or a withdraw) from its sharer,
// in.s's peer (lineHandlers).
func (n *Node) storeMirror(tx *store.Tx, in *inLine, m *wire.Mirror) error {
	s, res, now := in.s, &in.res, in.now
	tk := store.ThreadKey{NS: store.NSMirrored, Peer: s.peer, Th: m.Th}
	if m.Withdraw {
		if err := tx.DeleteThread(tk); err != nil {
			return err
		}
		t, _ := tx.EnsureThread(tk, now)
		t.Withdrawn = true
		tx.Touch(tk)
		n.commit.publishAfter(Event{Type: EventThread, Peer: s.peer, Th: m.Th})
		return nil
	}
	of, err := key.ParsePublic(m.Of)
	if err != nil {
		res.bad(wire.CodeBadRequest, "mirror needs of")
		return nil
	}
	orig, err := wire.Decode(m.Line)
	if err != nil {
		res.bad(wire.CodeBadRequest, "mirror line does not decode: "+err.Error())
		return nil
	}
	t, _ := tx.EnsureThread(tk, now)
	t.Withdrawn = false
	t.Of = m.Of
	from, dir, flags := s.peer, store.DirOut, byte(0)
	if m.Dir == "in" {
		from, dir, flags = of, store.DirIn, store.FlagMirroredIn
	}
	seq, err := tx.AppendLine(tk, store.Line{Dir: dir, From: from, Stored: now, Flags: flags, Raw: m.Line})
	if err != nil {
		return err
	}
	t.Updated = now
	if countsUnread(orig) {
		t.Unread++
	}
	switch o := orig.(type) {
	case *wire.Msg:
		if t.Subject == "" && o.Subject != "" {
			t.Subject = o.Subject
		}
		if txt := previewText(o); txt != "" {
			t.LastText, t.LastFrom = txt, from.String()
		}
	case *wire.State:
		if m.Dir == "out" {
			t.Mine = o.State
		} else {
			t.Theirs = o.State
		}
	}
	tx.Touch(tk)
	res.line = &LineInfo{Dir: m.Dir, From: from, Line: m.Line, Seq: seq, MirroredFrom: s.peer, Stored: wire.FormatTime(now)}
	return nil
}

// storePrivate stores the other party's request to stop mirroring its
// thread with this node for good (lineHandlers).
func (n *Node) storePrivate(tx *store.Tx, in *inLine, p *wire.Private) error {
	s, now := in.s, in.now
	tk := store.ThreadKey{NS: store.NSOwn, Peer: s.peer, Th: p.Th}
	t, _ := tx.EnsureThread(tk, now)
	seq, err := tx.AppendLine(tk, store.Line{Dir: store.DirIn, From: s.peer, Stored: now, Raw: p.Raw()})
	if err != nil {
		return err
	}
	wasPrivate := t.Private
	t.Private = true
	t.Updated = now
	tx.Touch(tk)
	if !wasPrivate {
		if err := n.withdrawMirrors(tx, tk); err != nil {
			return err
		}
	}
	in.res.line = &LineInfo{Dir: "in", From: s.peer, Line: json.RawMessage(p.Raw()), Seq: seq, Stored: wire.FormatTime(now)}
	return nil
}

// SetMirror switches mirroring of one of my threads on or off. Switching
// off withdraws it from the hosts; a private thread cannot be switched on.
func (n *Node) SetMirror(th string, on bool) error {
	return n.commit.run(func(tx *store.Tx) error {
		tk, ok := n.ownThread(tx, th)
		if !ok {
			return fmt.Errorf("%w: %s", ErrNoThread, th)
		}
		t, _ := tx.Thread(tk)
		if on && t.Private {
			return fmt.Errorf("peer: thread %s is private: mirroring stays off", th)
		}
		if t.NoMirror == !on {
			return nil
		}
		t.NoMirror = !on
		tx.Touch(tk)
		if !on {
			if err := n.withdrawMirrors(tx, tk); err != nil {
				return err
			}
		}
		n.commit.publishAfter(Event{Type: EventThread, Peer: tk.Peer, Th: th})
		return nil
	})
}

// SetPrivate asks the other party of my thread th to stop mirroring it
// (docs/protocol/mirror.md): a private line goes to that party. It also stops
// this node's own mirroring of th (withdrawn from my hosts). from must be
// the zero key: a thread mirrored to me has no party of mine to ask.
func (n *Node) SetPrivate(th string, from key.PublicKey) (SendResult, error) {
	if !from.IsZero() {
		return SendResult{}, fmt.Errorf("peer: private: %s is mirrored to me by %s; private goes to the other party of one of my own threads", th, from)
	}
	var res SendResult
	err := n.commit.run(func(tx *store.Tx) error {
		tk, ok := n.ownThread(tx, th)
		if !ok {
			return fmt.Errorf("%w: %s", ErrNoThread, th)
		}
		t, _ := tx.Thread(tk)
		wasMirrored := !t.Private && !t.NoMirror
		now := n.now()
		p := &wire.Private{}
		p.T, p.ID, p.TS, p.Th = wire.TypePrivate, n.ids.New(), wire.FormatTime(now), th
		raw, err := wire.Encode(p)
		if err != nil {
			return err
		}
		if _, err := n.appendOut(tx, tk.Peer, th, p.ID, raw, now, func(t *store.Thread) { t.Private = true; t.NoMirror = true }); err != nil {
			return err
		}
		if wasMirrored {
			if err := n.withdrawMirrors(tx, tk); err != nil {
				return err
			}
		}
		n.commit.publishAfter(Event{Type: EventThread, Peer: tk.Peer, Th: th})
		res = SendResult{ID: p.ID, Th: th}
		return nil
	})
	return res, err
}
