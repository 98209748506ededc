package peer

import (
	"time"

	"github.com/awp-tray/awp-tray/peer/wire"
)

// Keepalive: the protocol has no ping, and a peer that vanishes without closing
// its connection (a crash behind NAT, a dropped tunnel) would otherwise keep
// its session, and the dialer would never redial. This node sends an
// unknown-type line {"t":"keepalive"} after KeepaliveInterval without
// sending anything (peers ignore unknown types, SPEC §2), announces the
// "keepalive" cap, and drops a session whose peer also announces it but has
// sent nothing for KeepaliveTimeout.
const (
	TypeKeepalive            = "keepalive"
	defaultKeepaliveInterval = 30 * time.Second
	defaultKeepaliveTimeout  = 100 * time.Second
)

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
		ss := make([]*session, 0, len(n.sessions))
		for _, s := range n.sessions {
			ss = append(ss, s)
		}
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
