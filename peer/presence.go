package peer

import (
	"os"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/presence"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// Version is this software's version, published in presence.
const Version = "0.1.0"

// presenceState is the node's presence: its table of others' documents and
// its own publishing.
type presenceState struct {
	table   presence.Table
	changed chan struct{} // a change worth publishing

	mu      sync.Mutex     // guards the fields below
	lastSeq int64          // seq of my newest document
	lastDoc []byte         // my newest document
	sent    map[string]int // lines sent per "origin seq" (bounded), for tests and benchmarks
	detail  string

	linesOut, bytesOut atomic.Int64 // presence lines sent and their bytes (PresenceTraffic)
}

// Presence lists the newest document per origin (other origins only).
func (n *Node) Presence() []PresenceInfo {
	out := []PresenceInfo{}
	for _, e := range n.pres.table.List(n.now()) {
		out = append(out, PresenceInfo{Doc: e.Raw, Hops: e.Hops, Received: wire.FormatTime(e.Received), From: e.From})
	}
	return out
}

// PresenceDetail returns what this node publishes: full, peers or none.
func (n *Node) PresenceDetail() string {
	n.pres.mu.Lock()
	defer n.pres.mu.Unlock()
	return n.pres.detail
}

// SetPresenceDetail changes what this node publishes, and stores the
// choice for the next start (a Config.Presence given then still wins for
// that run).
func (n *Node) SetPresenceDetail(d string) error {
	if !validDetail(d) {
		return errBadDetail(d)
	}
	if err := n.storeChoice(metaPresence, d); err != nil {
		return err
	}
	n.pres.mu.Lock()
	n.pres.detail = d
	n.pres.mu.Unlock()
	n.presenceChanged()
	return nil
}

type errBadDetail string

func (e errBadDetail) Error() string {
	return "peer: presence detail " + string(e) + ": want full, peers or none"
}

// PresenceSent reports how many presence lines this node sent carrying the
// document (origin, seq).
func (n *Node) PresenceSent(origin key.PublicKey, seq int64) int {
	n.pres.mu.Lock()
	defer n.pres.mu.Unlock()
	return n.pres.sent[presKey(origin.String(), seq)]
}

func presKey(origin string, seq int64) string {
	return origin + " " + strconv.FormatInt(seq, 10)
}

func (n *Node) presenceChanged() {
	select {
	case n.pres.changed <- struct{}{}:
	default:
	}
}

// presenceLoop publishes this node's document Debounce after a change and
// every Heartbeat (each wait drawn around it: presence.HeartbeatWait).
func (n *Node) presenceLoop() {
	defer n.wg.Done()
	debounce, heartbeat := n.cfg.PresenceDebounce, n.cfg.PresenceHeartbeat
	var timer <-chan time.Time
	tick := time.NewTimer(presence.HeartbeatWait(heartbeat))
	defer tick.Stop()
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-n.pres.changed:
			if timer == nil {
				timer = time.After(debounce)
			}
		case <-timer:
			timer = nil
			n.publishPresence()
		case <-tick.C:
			n.publishPresence()
			tick.Reset(presence.HeartbeatWait(heartbeat))
		}
	}
}

// buildDoc assembles this node's document from its state.
func (n *Node) buildDoc(detail string) presence.Doc {
	now := n.now()
	host, _ := os.Hostname()
	d := presence.Doc{Name: n.cfg.Name, TS: wire.FormatTime(now), Peers: []presence.PeerEntry{},
		Version: Version, Harness: n.cfg.Harness, Model: n.cfg.Model, Host: host}
	n.mu.Lock()
	up := map[key.PublicKey]*session{}
	for k, s := range n.sessions {
		up[k] = s
	}
	n.mu.Unlock()
	_ = n.db.View(func(tx *store.Tx) error {
		tx.Peers(func(p *store.Peer) bool {
			e := presence.PeerEntry{Key: p.Key, Name: wire.Clip(p.Name, docNameBytes)}
			if k, err := key.ParsePublic(p.Key); err == nil {
				if s := up[k]; s != nil {
					e.Up, e.RTT = true, s.hsDur.Milliseconds()
				}
			}
			d.Peers = append(d.Peers, e)
			return true
		})
		if len(d.Peers) > maxDocPeers {
			// Up peers first, so the document stays well under
			// presence.MaxDocBytes however many peers this node knows.
			sort.SliceStable(d.Peers, func(i, j int) bool { return d.Peers[i].Up && !d.Peers[j].Up })
			d.Peers = d.Peers[:maxDocPeers]
		}
		return nil
	})
	// The threads from the store's cache, newest first: no record is
	// read from the file, however many threads there are.
	all, _ := n.db.RecentThreads()
	var ths []presence.ThreadEntry
	for _, e := range all {
		tk, t := e.Key, &e.Thread
		if tk.NS != store.NSOwn {
			continue
		}
		d.Unread += t.Unread
		if detail == presence.DetailFull && !t.Private && len(ths) < maxDocThreads {
			ths = append(ths, presence.ThreadEntry{Th: tk.Th, Peer: tk.Peer.String(), Subject: wire.Clip(t.Subject, docSubjectBytes),
				Mine: wire.Clip(t.Mine, docNameBytes), Theirs: wire.Clip(t.Theirs, docNameBytes), Updated: wire.FormatTime(t.Updated)})
		}
	}
	d.Threads = ths
	return d
}

// publishPresence signs a new document and sends it to every peer that
// lists presence.
func (n *Node) publishPresence() {
	n.pres.mu.Lock()
	detail := n.pres.detail
	n.pres.mu.Unlock()
	if detail == presence.DetailNone {
		return
	}
	d := n.buildDoc(detail)
	n.pres.mu.Lock()
	seq := n.now().UnixMilli()
	if seq <= n.pres.lastSeq {
		seq = n.pres.lastSeq + 1
	}
	n.pres.lastSeq = seq
	n.pres.mu.Unlock()
	d.Seq = seq
	raw, err := presence.Sign(n.priv, d)
	if err != nil {
		n.log.Error("presence sign", "err", err)
		return
	}
	n.pres.mu.Lock()
	n.pres.lastDoc = raw
	n.pres.mu.Unlock()
	n.fanPresence(n.presenceSessions(), n.pub.String(), seq, 1, raw)
}

func (n *Node) presenceSessions() []*session {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make([]*session, 0, len(n.sessions))
	for _, s := range n.sessions {
		if s.hello.HasCap("presence") {
			out = append(out, s)
		}
	}
	return out
}

func (n *Node) sendPresence(s *session, origin string, seq int64, hops int, doc []byte) {
	n.fanPresence([]*session{s}, origin, seq, hops, doc)
}

// fanPresence sends one presence line to each session. The line (and its
// envelope id) is the same for all of them: an id need only be unique per
// sender on each connection. It returns the sessions that took it (a busy
// one skips it), in to's own array.
func (n *Node) fanPresence(to []*session, origin string, seq int64, hops int, doc []byte) (took []*session) {
	if len(to) == 0 {
		return nil
	}
	line := presence.Line(n.ids.New(), n.stamp(), hops, doc)
	sent := 0
	for _, s := range to {
		if s.wq.tryPush(line) { // a busy link skips presence; the next heartbeat catches up
			to[sent] = s
			sent++
		}
	}
	n.pres.linesOut.Add(int64(sent))
	n.pres.bytesOut.Add(int64(sent) * int64(len(line)+1)) // and its newline
	k := presKey(origin, seq)
	n.pres.mu.Lock()
	if n.pres.sent == nil || len(n.pres.sent) > maxSentCounts {
		n.pres.sent = map[string]int{}
	}
	n.pres.sent[k] += sent
	n.pres.mu.Unlock()
	return to[:sent]
}

// onPresence verifies, keeps and relays a received presence document.
func (n *Node) onPresence(s *session, p *wire.Presence) {
	if p.Hops < 1 || p.Hops > wire.MaxHops || len(p.Doc) > presence.MaxDocBytes {
		return
	}
	// A copy of the document held (another neighbour's relay of it): the
	// sender holds it, so the relay skips it; no second check.
	if origin, seq, ok := presence.Peek(p.Doc); ok && n.pres.table.Same(origin, seq, p.Doc) {
		if n.pres.table.Copy(origin, seq, s.peer, p.Hops) {
			n.scheduleRelay(origin, seq)
		}
		return
	}
	d, origin, err := presence.Verify(p.Doc)
	if err != nil {
		n.log.Debug("presence dropped", "from", s.peer.Short(), "err", err)
		return
	}
	if err := n.pres.table.Offer(n.pub, origin, d, p.Doc, p.Hops, s.peer, n.now()); err != nil {
		n.log.Debug("presence dropped", "from", s.peer.Short(), "origin", origin.Short(), "err", err)
		return
	}
	n.publish(Event{Type: EventPresence, Peer: origin, PeerName: d.Name})
	if n.pres.table.StartRelay(origin, d.Seq) {
		n.scheduleRelay(origin, d.Seq)
	}
}

// scheduleRelay relays origin's document seq after presence.RelayWait.
func (n *Node) scheduleRelay(origin key.PublicKey, seq int64) {
	time.AfterFunc(presence.RelayWait(), func() { n.relayPresence(origin, seq) })
}

// relayPresence forwards origin's document seq (if it is still the one
// held) to the neighbours not known to hold it, and not to the origin.
func (n *Node) relayPresence(origin key.PublicKey, seq int64) {
	if n.ctx.Err() != nil {
		return
	}
	raw, hops, needs, ok := n.pres.table.Relay(origin, seq, n.now())
	if !ok {
		return
	}
	all := n.presenceSessions()
	to := all[:0]
	for _, o := range all {
		if o.peer != origin && needs(o.peer) {
			to = append(to, o)
		}
	}
	// Only the sessions that took it hold it now: a busy one that skipped
	// it gets it from a later copy (another neighbour's, or this relay's
	// again when a shorter copy comes).
	for _, o := range n.fanPresence(to, origin.String(), seq, hops, raw) {
		n.pres.table.Saw(origin, seq, o.peer, hops)
	}
}

// PresenceTraffic reports the presence lines this node has sent and their
// bytes (its own documents and relays), for benchmarks.
func (n *Node) PresenceTraffic() (lines, bytes int64) {
	return n.pres.linesOut.Load(), n.pres.bytesOut.Load()
}

// PresenceSeq returns the seq of the newest document this node holds from
// origin (its own newest when origin is this node).
func (n *Node) PresenceSeq(origin key.PublicKey) (int64, bool) {
	if origin == n.pub {
		n.pres.mu.Lock()
		defer n.pres.mu.Unlock()
		return n.pres.lastSeq, n.pres.lastSeq > 0
	}
	e, ok := n.pres.table.Get(origin, n.now())
	if !ok {
		return 0, false
	}
	return e.Doc.Seq, true
}

// greetPresence sends a new session my document and the documents I hold,
// so it need not wait for the next heartbeat.
func (n *Node) greetPresence(s *session) {
	if !s.hello.HasCap("presence") {
		return
	}
	n.pres.mu.Lock()
	mine, seq, detail := n.pres.lastDoc, n.pres.lastSeq, n.pres.detail
	n.pres.mu.Unlock()
	if mine != nil && detail != presence.DetailNone {
		n.sendPresence(s, n.pub.String(), seq, 1, mine)
	}
	for _, e := range n.pres.table.List(n.now()) {
		if e.Origin == s.peer || e.From == s.peer || e.Hops >= wire.MaxHops {
			continue
		}
		n.sendPresence(s, e.Doc.Origin, e.Doc.Seq, e.Hops+1, e.Raw)
	}
}
