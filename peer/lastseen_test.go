package peer

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// A peer's last_seen is when its session ended, not when it began: a peer
// that was here for an hour was last seen an hour after it connected.
func TestLastSeenAtSessionEnd(t *testing.T) {
	var skew atomic.Int64
	a := newTestNode(t, "a", func(c *Config) { c.Now = func() time.Time { return time.Now().Add(time.Duration(skew.Load())) } })
	b := newTestNode(t, "b")
	connect(t, a, b)
	lastSeen := func() (time.Time, bool) {
		ps, err := a.Peers()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if p.Key == b.Key() && p.LastSeen != "" {
				ls, err := wire.ParseTime(p.LastSeen)
				return ls, err == nil
			}
		}
		return time.Time{}, false
	}
	testsync.Eventually(t, "b's record on a", func() bool { _, ok := lastSeen(); return ok })
	began, _ := lastSeen()

	skew.Store(int64(time.Hour)) // the session lasts an hour on a's clock
	b.Close()
	testsync.Eventually(t, "b's last_seen at the session's end", func() bool {
		ls, ok := lastSeen()
		return ok && ls.Sub(began) >= time.Hour
	})
}
