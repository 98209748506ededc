package presence

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// Relaying without sending a neighbour what it has. A document floods the
// mesh: every node that takes it forwards it to its other neighbours.
// Forwarding at once sends it both ways over every edge between two nodes
// the document reaches at the same time (in a random mesh of degree 4,
// half the edges): 1.5 lines per edge per document. A relay instead waits
// RelayWait before forwarding, and skips the neighbours that sent it the
// same document meanwhile: then most edges carry it once.
//
// The wait is drawn from a narrow band above a floor: wide enough that of
// two neighbours that got the document at once, one usually forwards
// before the other, narrow enough that the first copy to reach a node
// still comes the shortest way (a copy counts its hops, and NOTES §1 stops
// it at 8: a first copy that came a long way round would stop short).
// A relay sends the fewest hops any copy brought before it fired; a node
// that took the document at the limit (not forwarding it) forwards it after
// all when a copy with fewer hops comes, and a node whose relay went out at
// the limit sends it again, under it, to the neighbours it left there.
const (
	RelayWaitMin = 50 * time.Millisecond
	RelayWaitMax = 100 * time.Millisecond
	// MaxHolders bounds the neighbours remembered as holding an entry's
	// document (a neighbour past it may get a copy it has: harmless).
	MaxHolders = 16
)

// Relay states of an entry.
const (
	relayNone    byte = iota // not scheduled (new, or taken at the hop limit)
	relayPending             // a relay is scheduled
	relayDone                // relayed
)

// RelayWait is how long a relay waits before forwarding a new document.
func RelayWait() time.Duration {
	return RelayWaitMin + rand.N(RelayWaitMax-RelayWaitMin)
}

// Peek reads a document's origin and seq without checking it (to find
// copies of a document already held, which need no second check).
func Peek(raw []byte) (origin key.PublicKey, seq int64, ok bool) {
	var d struct {
		Origin string `json:"origin"`
		Seq    int64  `json:"seq"`
	}
	if json.Unmarshal(raw, &d) != nil {
		return key.PublicKey{}, 0, false
	}
	k, err := key.ParsePublic(d.Origin)
	return k, d.Seq, err == nil
}

// current returns origin's entry if it holds document seq. Call with mu held.
func (t *Table) current(origin key.PublicKey, seq int64) *Entry {
	e := t.entries[origin]
	if e == nil || e.Doc.Seq != seq {
		return nil
	}
	return e
}

// Same reports whether raw is, byte for byte, origin's document seq as
// held: a copy of a document already verified.
func (t *Table) Same(origin key.PublicKey, seq int64, raw []byte) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.current(origin, seq)
	return e != nil && string(e.Raw) == string(raw)
}

// Saw records that neighbour k holds origin's document seq (this node
// sent it there, with hops). Nothing is recorded for a document other than
// the one held.
func (t *Table) Saw(origin key.PublicKey, seq int64, k key.PublicKey, hops int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.current(origin, seq); e != nil {
		e.saw(k, hops)
	}
}

// saw records k as holding the document at hops (the hop count of its own
// copy: it forwards it only under wire.MaxHops), keeping the lowest known.
func (e *Entry) saw(k key.PublicKey, hops int) {
	for i, h := range e.holders {
		if h.key == k {
			e.holders[i].hops = min(h.hops, hops)
			return
		}
	}
	if len(e.holders) < MaxHolders {
		e.holders = append(e.holders, holder{key: k, hops: hops})
	}
}

// holder is a neighbour known to hold an entry's document, and the fewest
// hops its copy is known to have.
type holder struct {
	key  key.PublicKey
	hops int
}

// Copy records a copy of origin's document seq that came from neighbour k
// with hops (k's own copy has one hop less), and makes the entry's hops the
// fewest seen. It reports whether the caller should schedule a relay now:
// the entry was taken at the hop limit and this copy is under it, or this
// node's relay went out at the limit (its neighbours stop there) and can
// now go out under it.
func (t *Table) Copy(origin key.PublicKey, seq int64, k key.PublicKey, hops int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.current(origin, seq)
	if e == nil {
		return false
	}
	e.saw(k, hops-1)
	e.Hops = min(e.Hops, hops)
	if e.relay == relayDone && e.sent >= wire.MaxHops && e.Hops+1 < wire.MaxHops {
		e.relay = relayNone // again, for the neighbours it left at the limit
	}
	return e.startRelay()
}

// StartRelay reports whether the caller should schedule a relay of
// origin's document seq (just taken by Offer): once per document, when its
// hops are under the limit.
func (t *Table) StartRelay(origin key.PublicKey, seq int64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.current(origin, seq)
	return e != nil && e.startRelay()
}

func (e *Entry) startRelay() bool {
	if e.relay != relayNone || e.Hops >= wire.MaxHops {
		return false
	}
	e.relay = relayPending
	return true
}

// Relay is the scheduled relay of origin's document seq firing: it returns
// the document, the hops to send (one more than the fewest any copy
// brought) and whether neighbour k needs it (it is not known to hold it
// with hops under the limit and at most these); ok is false when seq is no
// longer the document held (a newer one came, with its own relay) or it
// expired at now.
func (t *Table) Relay(origin key.PublicKey, seq int64, now time.Time) (raw []byte, hops int, needs func(key.PublicKey) bool, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.current(origin, seq)
	if e == nil || e.relay != relayPending || now.Sub(e.Received) >= Expiry {
		return nil, 0, nil, false
	}
	e.relay = relayDone
	hops = e.Hops + 1
	e.sent = hops
	holders := slices.Clone(e.holders)
	return e.Raw, hops, func(k key.PublicKey) bool {
		for _, h := range holders {
			if h.key == k {
				return h.hops >= wire.MaxHops && hops < wire.MaxHops
			}
		}
		return true
	}, true
}

// HeartbeatJitter is how far one heartbeat's wait may be from the
// heartbeat, either way, as a fraction of it. Nodes that start together (a
// fleet rebooted, a test) would otherwise publish together for as long as
// they run: each round a burst of every document at once, which makes each
// node slow to relay, so that neighbours forward copies to each other
// before either sees the other's (RelayWait). NOTES §1's 10-minute expiry
// leaves room for a heartbeat 25% late.
const HeartbeatJitter = 0.25

// HeartbeatWait is the wait before the next heartbeat: heartbeat, give or
// take HeartbeatJitter of it.
func HeartbeatWait(heartbeat time.Duration) time.Duration {
	j := time.Duration(float64(heartbeat) * HeartbeatJitter)
	if j <= 0 {
		return heartbeat
	}
	return heartbeat - j + rand.N(2*j)
}
