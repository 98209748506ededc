package peer

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// threadInfo describes a stored thread; names maps a stored key's text to
// its peer's key and name (peerNames).
func threadInfo(tk store.ThreadKey, t *store.Thread, names storedPeers) ThreadInfo {
	ti := ThreadInfo{
		Th: tk.Th, Peer: tk.Peer, Subject: t.Subject, Mine: t.Mine, Theirs: t.Theirs,
		Unread: t.Unread, Updated: wire.FormatTime(t.Updated), Lines: int(t.LastSeq), LastText: t.LastText,
		LastFrom: names.key(t.LastFrom),
		Mirror:   tk.NS == store.NSOwn && !t.NoMirror && !t.Private, Private: t.Private, Withdrawn: t.Withdrawn,
	}
	if tk.NS == store.NSMirrored {
		ti.MirroredFrom = tk.Peer
		ti.Peer = names.key(t.Of)
	}
	ti.PeerName = names.name(ti.Peer)
	return ti
}

// storedKey is a key the node stored as text (store records keep keys as
// their "ed25519:…" form): the node wrote it from a parsed key, so it parses;
// "" (none stored), or a record damaged on disk, is the zero key.
func storedKey(s string) key.PublicKey {
	if s == "" {
		return key.PublicKey{}
	}
	k, err := key.ParsePublic(s)
	if err != nil {
		return key.PublicKey{}
	}
	return k
}

// storedPeers holds the stored peers' names by key, and the keys parsed from
// stored text so far, so a listing parses each distinct key once.
type storedPeers struct {
	names  map[key.PublicKey]string
	parsed map[string]key.PublicKey
}

func (sp storedPeers) key(s string) key.PublicKey {
	if s == "" {
		return key.PublicKey{}
	}
	k, ok := sp.parsed[s]
	if !ok {
		k = storedKey(s)
		if sp.parsed != nil {
			sp.parsed[s] = k
		}
	}
	return k
}

func (sp storedPeers) name(k key.PublicKey) string { return sp.names[k] }

// Threads lists every thread, newest activity first.
func (n *Node) Threads() ([]ThreadInfo, error) {
	ths, err := n.db.RecentThreads()
	if err != nil {
		return []ThreadInfo{}, err
	}
	var names storedPeers
	_ = n.db.View(func(tx *store.Tx) error {
		names = peerNames(tx)
		return nil
	})
	out := make([]ThreadInfo, 0, len(ths))
	for _, e := range ths {
		out = append(out, threadInfo(e.Key, &e.Thread, names))
	}
	return out, nil
}

// warmThreads loads the store's thread cache in the background at Start,
// so the first thread list (a person opening the tray, `awp threads`) and
// the first presence document need not wait for it; Start itself reads
// nothing it does not need.
func (n *Node) warmThreads() {
	defer n.wg.Done()
	if _, err := n.db.RecentThreads(); err != nil && n.ctx.Err() == nil {
		n.log.Warn("loading the thread list", "err", err)
	}
}

func peerNames(tx *store.Tx) storedPeers {
	sp := storedPeers{names: map[key.PublicKey]string{}, parsed: map[string]key.PublicKey{}}
	tx.Peers(func(p *store.Peer) bool {
		if k := sp.key(p.Key); !k.IsZero() {
			sp.names[k] = p.Name
		}
		return true
	})
	return sp
}

// findThread resolves th (and, for mirrored threads, the sharer).
func (n *Node) findThread(tx *store.Tx, th string, from key.PublicKey) (store.ThreadKey, *store.Thread, error) {
	if k := from; !k.IsZero() {
		tk := store.ThreadKey{NS: store.NSMirrored, Peer: k, Th: th}
		if t, ok := tx.Thread(tk); ok {
			return tk, t, nil
		}
		return store.ThreadKey{}, nil, fmt.Errorf("%w: %s from %s", ErrNoThread, th, k.Short())
	}
	tk, ok := n.ownThread(tx, th)
	if !ok {
		return store.ThreadKey{}, nil, fmt.Errorf("%w: %s", ErrNoThread, th)
	}
	t, _ := tx.Thread(tk)
	return tk, t, nil
}

// Thread returns one thread's summary.
func (n *Node) Thread(th string, from key.PublicKey) (ThreadInfo, error) {
	var ti ThreadInfo
	err := n.db.View(func(tx *store.Tx) error {
		tk, t, err := n.findThread(tx, th, from)
		if err != nil {
			return err
		}
		ti = threadInfo(tk, t, peerNames(tx))
		return nil
	})
	return ti, err
}

// Lines returns a thread's lines in order. from names the sharer of a
// mirrored thread; the zero key means my own thread th.
func (n *Node) Lines(th string, from key.PublicKey) ([]LineInfo, error) {
	return n.LinesAfter(th, from, 0, 0)
}

// LinesAfter returns up to limit lines after seq (limit 0: all).
func (n *Node) LinesAfter(th string, from key.PublicKey, after uint64, limit int) ([]LineInfo, error) {
	return n.threadLines(th, from, limit, func(tx *store.Tx, tk store.ThreadKey, each func(store.Line) bool) {
		tx.Lines(tk, after, each)
	})
}

// LinesLast returns the last count lines of a thread (all when it holds
// fewer), in order: what a thread view shows first. It reads from the
// thread's end, so a long thread costs no more than a short one.
func (n *Node) LinesLast(th string, from key.PublicKey, count int) ([]LineInfo, error) {
	return n.threadLines(th, from, 0, func(tx *store.Tx, tk store.ThreadKey, each func(store.Line) bool) {
		tx.LinesLast(tk, count, each)
	})
}

// threadLines finds the thread (findThread) and returns, in the order
// walk gives them, up to limit (0: all) of the lines walk passes to each;
// walk stops when each returns false.
func (n *Node) threadLines(th string, from key.PublicKey, limit int, walk func(tx *store.Tx, tk store.ThreadKey, each func(store.Line) bool)) ([]LineInfo, error) {
	out := []LineInfo{}
	err := n.db.View(func(tx *store.Tx) error {
		tk, t, err := n.findThread(tx, th, from)
		if err != nil {
			return err
		}
		walk(tx, tk, func(l store.Line) bool {
			out = append(out, lineInfo(tk, t, l))
			return limit == 0 || len(out) < limit
		})
		return nil
	})
	return out, err
}

func lineInfo(tk store.ThreadKey, t *store.Thread, l store.Line) LineInfo {
	li := LineInfo{From: l.From, Line: json.RawMessage(l.Raw), Seq: l.Seq, Stored: wire.FormatTime(l.Stored)}
	li.Dir = "in"
	if l.Dir == store.DirOut {
		li.Dir = "out"
	}
	if tk.NS == store.NSMirrored {
		li.MirroredFrom = tk.Peer
	} else {
		li.Acked = l.Dir == store.DirOut && l.Seq <= t.AckedSeq
	}
	return li
}

// MarkRead marks every line of a thread read.
func (n *Node) MarkRead(th string, from key.PublicKey) error {
	return n.commit.run(func(tx *store.Tx) error {
		tk, t, err := n.findThread(tx, th, from)
		if err != nil {
			return err
		}
		if t.Unread == 0 && t.ReadSeq == t.LastSeq {
			return nil
		}
		t.ReadSeq, t.Unread = t.LastSeq, 0
		tx.Touch(tk)
		n.commit.publishAfter(Event{Type: EventThread, Peer: tk.Peer, Th: th})
		return nil
	})
}

// Peers lists known peers, with whether a session is up. A peer whose
// session is up is listed even before its record commits (a first session
// publishes EventPeerUp while its record is still on its way to the store),
// after the stored ones.
func (n *Node) Peers() ([]PeerInfo, error) {
	out := []PeerInfo{}
	listed := map[key.PublicKey]bool{}
	err := n.db.View(func(tx *store.Tx) error {
		tx.Peers(func(p *store.Peer) bool {
			k := storedKey(p.Key)
			if k.IsZero() {
				return true // a record damaged on disk names no peer to show
			}
			pi := PeerInfo{Key: k, Name: p.Name, About: p.About, Trusted: p.Trusted, IntroducedBy: storedKey(p.IntroducedBy),
				Listen: p.Listen, Caps: p.Caps, Dialed: p.Dialed, Invited: p.Invited}
			for _, a := range p.PrivateListen {
				if !slices.Contains(pi.Listen, a) {
					pi.Listen = append(slices.Clip(pi.Listen), a)
				}
			}
			if pi.Listen == nil {
				pi.Listen = []string{}
			}
			if !p.LastSeen.IsZero() {
				pi.LastSeen = wire.FormatTime(p.LastSeen)
			}
			if s := n.sessionFor(k); s != nil {
				pi.Up = true
				pi.Name = s.hello.Name
			}
			out = append(out, pi)
			listed[pi.Key] = true
			return true
		})
		return nil
	})
	if err != nil {
		return out, err
	}
	return append(out, n.unlistedSessions(listed)...), nil
}

// unlistedSessions describes the sessions up with peers not in listed, in
// key order.
func (n *Node) unlistedSessions(listed map[key.PublicKey]bool) []PeerInfo {
	n.mu.Lock()
	var live []*session
	for _, s := range n.sessions {
		if !listed[s.peer] {
			live = append(live, s)
		}
	}
	n.mu.Unlock()
	sort.Slice(live, func(i, j int) bool { return live[i].peerS < live[j].peerS })
	out := make([]PeerInfo, 0, len(live))
	for _, s := range live {
		h := s.hello
		out = append(out, PeerInfo{Key: s.peer, Name: h.Name, About: h.About, Up: true,
			Listen: append([]string{}, h.Listen...), Caps: h.Caps, Dialed: s.dialAddr})
	}
	return out
}

// Trust adds a key to the trust list (or removes it).
func (n *Node) Trust(pk key.PublicKey, trusted bool) error {
	if err := n.checkPeer(pk); err != nil {
		return err
	}
	now := n.now()
	var chosen bool
	err := n.commit.run(func(tx *store.Tx) error {
		p, ok := tx.Peer(pk)
		if !ok {
			p = &store.Peer{Key: pk.String(), FirstSeen: now}
		}
		p.Trusted = trusted
		chosen = known(p)
		return tx.PutPeer(p)
	})
	if err == nil {
		n.trust.set(pk, trusted)
		n.configureWG(pk, chosen)
		if s := n.sessionFor(pk); s != nil && trusted {
			n.sendListen(s) // its token, now that the person trusts it
		}
		n.publish(Event{Type: EventPresence, Peer: pk})
	}
	return err
}

// RequestsSubject is the subject of the thread where this node sends its
// requests and grants to a peer when they belong to no conversation: one
// thread per peer, so a person's thread list shows one "Requests and
// grants" row per peer, not a thread named "exec request" or
// "grant: exec" for each.
const RequestsSubject = "Requests and grants"

// requestThread returns the thread for a request or grant to k that names
// none: my newest thread with k under RequestsSubject, or a new one (its
// subject then to be sent, "" otherwise).
func (n *Node) requestThread(k key.PublicKey) (th, subject string) {
	var newest time.Time
	_ = n.db.View(func(tx *store.Tx) error {
		return tx.Threads(func(tk store.ThreadKey, t *store.Thread) bool {
			if tk.NS == store.NSOwn && tk.Peer == k && t.Subject == RequestsSubject && !t.Updated.Before(newest) {
				th, newest = tk.Th, t.Updated
			}
			return true
		})
	})
	if th != "" {
		return th, ""
	}
	return wire.NewThread(), RequestsSubject
}
