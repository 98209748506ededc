package peer

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/transport"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// Keepalive: the protocol has no ping, and a peer that vanishes without closing
// its connection (a crash behind NAT, a dropped tunnel) would otherwise keep
// its session, and the dialer would never redial. This node sends an
// unknown-type line {"t":"keepalive"} after KeepaliveInterval without
// sending anything (peers ignore unknown types, docs/protocol/framing.md),
// announces the "keepalive" cap, and drops a session whose peer also
// announces it but has sent nothing for KeepaliveTimeout
// (defaultKeepaliveInterval and defaultKeepaliveTimeout, constants.go).

// TypeKeepalive is the keepalive line's type, and the cap that announces it.
const TypeKeepalive = "keepalive"

func (n *Node) keepaliveLoop() {
	defer n.wg.Done()
	every := n.cfg.KeepaliveInterval / 3
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-t.C:
		}
		now := time.Now().UnixNano()
		n.mu.Lock()
		ss := slices.Collect(maps.Values(n.sessions))
		n.mu.Unlock()
		for _, s := range ss {
			if s.hello.HasCap(TypeKeepalive) && now-s.lastRecv.Load() > int64(n.cfg.KeepaliveTimeout) {
				s.close(errSilent)
				continue
			}
			if now-s.lastSent.Load() > int64(n.cfg.KeepaliveInterval) {
				line := []byte(`{"t":"keepalive","id":"` + n.ids.New() + `","ts":"` + wire.FormatTime(n.now()) + `"}`)
				s.wq.tryPush(line)
			}
		}
	}
}

type silentError struct{}

func (silentError) Error() string { return "peer: the peer sent nothing for too long" }

var errSilent error = silentError{}

// Probing: a session can look alive long after its peer lost it. Over the
// wg binding above all: when the peer's process restarts, its netstack and
// WireGuard state go with it and nothing tells this side, whose tunnel
// conn then waits for a retransmission timeout or the keepalive timeout.
// The node probes a session when it has reason to doubt it: when the same
// peer connects again while the session is up (it would not if it still
// had the session), and when the peer's WireGuard starts a handshake with
// this node (sniff.go in peer/transport/wg). A probe sends
// {"t":"keepalive","ping":ID} to a peer that announces capPing, which
// answers {"t":"keepalive","pong":ID} at once; any line received after the
// ping also proves the session alive (a busy one's pong may wait behind
// data). No sign of life within probeTimeout: the session is dead (the
// timings, and pongBurst and pongEvery, are in constants.go).

// capPing announces that this node answers pings.
const capPing = "ping"

// errStale closes a session that failed a probe.
var errStale = errors.New("peer: the connection is dead (no answer to a probe): the peer lost it")

// probe checks that s's peer still has the session: true when it showed a
// sign of life within timeout. A peer that does not answer pings is only
// poked (a keepalive line, which a netstack that forgot the connection
// answers with a reset), and judged dead only if that closes the session.
func (s *session) probe(timeout time.Duration) bool {
	if s.ctx.Err() != nil {
		return false
	}
	s.probeMu.Lock()
	defer s.probeMu.Unlock() // one probe at a time; a second waits for its own answer
	start := time.Now().UnixNano()
	pings := s.hello.HasCap(capPing)
	var pong chan struct{}
	id := s.n.ids.New()
	line := []byte(`{"t":"keepalive","id":"` + id + `","ts":"` + wire.FormatTime(s.n.now()) + `"}`)
	if pings {
		pong = make(chan struct{})
		s.pingMu.Lock()
		s.pingID, s.pongCh = id, pong
		s.pingMu.Unlock()
		line = []byte(`{"t":"keepalive","id":"` + id + `","ts":"` + wire.FormatTime(s.n.now()) + `","ping":"` + id + `"}`)
	}
	s.wq.pushPrio(line)
	t := time.NewTimer(timeout)
	defer t.Stop()
	tick := time.NewTicker(timeout / 20)
	defer tick.Stop()
	for {
		select {
		case <-pong:
			return true
		case <-s.ctx.Done():
			return false
		case <-tick.C:
			if pings && s.lastRecv.Load() > start {
				return true
			}
		case <-t.C:
			return !pings || s.lastRecv.Load() > start
		}
	}
}

// onKeepalive answers a ping and takes a pong.
func (n *Node) onKeepalive(s *session, raw []byte) {
	if !bytes.Contains(raw, []byte(`"ping"`)) && !bytes.Contains(raw, []byte(`"pong"`)) {
		return
	}
	var k struct {
		Ping string `json:"ping"`
		Pong string `json:"pong"`
	}
	if json.Unmarshal(raw, &k) != nil {
		return
	}
	if k.Pong != "" {
		s.pingMu.Lock()
		if k.Pong == s.pingID && s.pongCh != nil {
			close(s.pongCh)
			s.pongCh = nil
		}
		s.pingMu.Unlock()
	}
	if k.Ping != "" && len(k.Ping) <= maxPingID {
		if !s.pongs.take(time.Now()) {
			return
		}
		b, err := json.Marshal(struct {
			T    string `json:"t"`
			ID   string `json:"id"`
			TS   string `json:"ts"`
			Pong string `json:"pong"`
		}{TypeKeepalive, n.ids.New(), n.stamp(), k.Ping})
		if err == nil {
			s.wq.pushPrio(b)
		}
	}
}

// probeTunnel probes the sessions with k that run through the wg binding
// (its WireGuard started a handshake: it may have restarted) and closes
// those found dead, so their dialers redial at once. Peers that do not
// answer pings are only poked.
func (n *Node) probeTunnel(k key.PublicKey) {
	s := n.sessionFor(k)
	if s == nil {
		return
	}
	if _, ok := transport.TunnelPeer(s.c); !ok {
		return
	}
	n.goTracked(func() {
		if !s.probe(probeTimeout) && s.ctx.Err() == nil && s.hello.HasCap(capPing) {
			s.close(errStale)
		}
	})
}

// tokens is a token bucket of pongBurst tokens refilled one per pongEvery.
type tokens struct {
	mu   sync.Mutex
	n    float64
	last time.Time
}

func (b *tokens) take(now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.last.IsZero() {
		b.n = pongBurst
	} else {
		b.n = min(pongBurst, b.n+float64(now.Sub(b.last))/float64(pongEvery))
	}
	b.last = now
	if b.n < 1 {
		return false
	}
	b.n--
	return true
}
