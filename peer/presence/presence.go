// Package presence holds AWP presence documents (docs/protocol/presence.md): building and
// signing this node's document, verifying received ones, and the table of
// the newest document per origin that relays consult.
//
// It owns documents, their signatures and the table's bounds; it must not
// send, relay or dial (the node does).
package presence

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// Timing of presence (docs/protocol/presence.md).
const (
	Debounce  = 2 * time.Second  // publish this long after a change
	Heartbeat = 60 * time.Second // publish at least this often
	MaxSkew   = 10 * time.Minute // drop documents whose ts is further from now
	Expiry    = 10 * time.Minute // drop entries this long after their newest document
)

// Bounds on the table. Anyone can make keys and sign documents, and a line
// may hold 1 MiB, so without them one neighbour could fill memory with
// documents of made-up origins (and have every other neighbour relay
// them). The protocol sets no bounds; these (docs/protocol/presence.md,
// "Bounds") leave room for far larger meshes than a developer's (a
// document lists at most 50 threads).
const (
	MaxDocBytes = 256 << 10 // a larger document is dropped
	MaxOrigins  = 4096      // origins held in all
	MaxPerRelay = 256       // origins held whose newest document came from one neighbour
	// The same in bytes of memory (an entry costs EntryCost: its raw and
	// parsed document). Counts alone allowed 4,096 × 256 KiB × 2 = 2 GiB,
	// and a neighbour's key is free, so many neighbours could each bring
	// their 256; these bound the table's memory whatever the documents'
	// sizes and however many neighbours there are.
	MaxTableBytes    = 64 << 20
	MaxBytesPerRelay = 8 << 20
)

// EntryCost is what an entry of a document of n bytes counts against
// MaxTableBytes: the bytes as received, the parsed document (about as
// large again) and the entry itself.
func EntryCost(n int) int { return 2*n + 512 }

// Detail levels a node publishes.
const (
	DetailFull  = "full"  // peers and threads
	DetailPeers = "peers" // peers only
	DetailNone  = "none"  // publish nothing (relaying continues)
)

// PeerEntry is one of the origin's peers.
type PeerEntry struct {
	Key  string `json:"key"`
	Name string `json:"name,omitempty"`
	Up   bool   `json:"up"`
	RTT  int64  `json:"rtt,omitempty"`
}

// ThreadEntry is one of the origin's threads.
type ThreadEntry struct {
	Th      string `json:"th"`
	Peer    string `json:"peer"`
	Subject string `json:"subject,omitempty"`
	Mine    string `json:"mine,omitempty"`
	Theirs  string `json:"theirs,omitempty"`
	Updated string `json:"updated,omitempty"`
}

// Doc is a presence document.
type Doc struct {
	Origin  string        `json:"origin"`
	Name    string        `json:"name,omitempty"`
	Seq     int64         `json:"seq"`
	TS      string        `json:"ts"`
	Peers   []PeerEntry   `json:"peers"`
	Threads []ThreadEntry `json:"threads,omitempty"`
	Version string        `json:"version,omitempty"`
	Harness string        `json:"harness,omitempty"`
	Model   string        `json:"model,omitempty"`
	Host    string        `json:"host,omitempty"`
	Unread  int           `json:"unread"`
	Sig     string        `json:"sig,omitempty"`
}

// Errors from Verify and Table.Offer.
var (
	// ErrBadDoc is returned for a document that does not parse or whose origin is not a key.
	ErrBadDoc = errors.New("presence: malformed document")
	// ErrBadSig is returned for a document whose signature does not verify.
	ErrBadSig = errors.New("presence: bad signature")
	// ErrOwn is returned for a document whose origin is the receiver.
	ErrOwn = errors.New("presence: my own document")
	// ErrStale is returned for a document whose ts is more than MaxSkew from now.
	ErrStale = errors.New("presence: stale or future document")
	// ErrOld is returned for a document whose seq is not newer than the one held.
	ErrOld = errors.New("presence: not newer than the document held")
	// ErrTooBig is returned for a document over MaxDocBytes.
	ErrTooBig = errors.New("presence: document too large")
	// ErrFull is returned for a new origin when the table holds MaxOrigins,
	// or MaxPerRelay from the neighbour it came from.
	ErrFull = errors.New("presence: table full")
	// ErrHops is returned for a line with hops outside 1..8.
	ErrHops = errors.New("presence: hops out of range")
)

// Sign fills d.Sig with k's signature over the canonical JSON of d without
// sig and returns the document's bytes.
func Sign(k key.PrivateKey, d Doc) ([]byte, error) {
	d.Sig = ""
	d.Origin = k.Public().String()
	b, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("presence: sign: %w", err)
	}
	c, err := wire.CanonicalWithout(b, "sig")
	if err != nil {
		return nil, fmt.Errorf("presence: sign: %w", err)
	}
	d.Sig = k.SignText(c)
	return json.Marshal(d)
}

// Verify parses raw and checks its signature with its origin key.
func Verify(raw []byte) (*Doc, key.PublicKey, error) {
	var d Doc
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, key.PublicKey{}, fmt.Errorf("%w: %v", ErrBadDoc, err)
	}
	k, err := key.ParsePublic(d.Origin)
	if err != nil {
		return nil, key.PublicKey{}, fmt.Errorf("%w: origin: %v", ErrBadDoc, err)
	}
	c, err := wire.CanonicalWithout(raw, "sig")
	if err != nil {
		return nil, key.PublicKey{}, fmt.Errorf("%w: %v", ErrBadDoc, err)
	}
	if !k.VerifyText(c, d.Sig) {
		return nil, key.PublicKey{}, ErrBadSig
	}
	return &d, k, nil
}

// Entry is the newest document held for an origin.
type Entry struct {
	Origin   key.PublicKey
	Doc      *Doc
	Raw      json.RawMessage // the document as received, byte for byte
	Hops     int
	From     key.PublicKey // the peer it came from
	Received time.Time

	holders []holder // neighbours known to hold this document (relay.go)
	relay   byte     // relayNone, relayPending, relayDone (relay.go)
	sent    int      // the hops this node's relay sent
}

// Table keeps the newest document per origin. The zero value is ready.
type Table struct {
	mu        sync.Mutex // guards the fields below
	entries   map[key.PublicKey]*Entry
	byFrom    map[key.PublicKey]int // entries per Entry.From
	bytes     int                   // EntryCost of all entries
	bytesFrom map[key.PublicKey]int // EntryCost of the entries per Entry.From
}

// Bytes reports the memory the table counts (EntryCost of its entries).
func (t *Table) Bytes() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.bytes
}

// Offer checks a received document (signature already verified by the
// caller via Verify) and keeps it when it is newer than the one held. self
// is the receiver's key.
func (t *Table) Offer(self key.PublicKey, origin key.PublicKey, d *Doc, raw []byte, hops int, from key.PublicKey, now time.Time) error {
	if hops < 1 || hops > wire.MaxHops {
		return ErrHops
	}
	if len(raw) > MaxDocBytes {
		return ErrTooBig
	}
	if origin == self {
		return ErrOwn
	}
	ts, err := wire.ParseTime(d.TS)
	if err != nil {
		return fmt.Errorf("%w: ts: %v", ErrBadDoc, err)
	}
	if skew := now.Sub(ts); skew > MaxSkew || skew < -MaxSkew {
		return ErrStale
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.entries == nil {
		t.entries = map[key.PublicKey]*Entry{}
		t.byFrom = map[key.PublicKey]int{}
		t.bytesFrom = map[key.PublicKey]int{}
	}
	old := t.entries[origin]
	if old != nil && now.Sub(old.Received) < Expiry && d.Seq <= old.Doc.Seq {
		return ErrOld
	}
	if !t.roomLocked(origin, from, EntryCost(len(raw)), now) {
		return ErrFull
	}
	if cur := t.entries[origin]; cur != nil { // roomLocked may have dropped it as expired
		t.forgetLocked(cur)
	}
	e := &Entry{Origin: origin, Doc: d, Raw: append(json.RawMessage(nil), raw...), Hops: hops, From: from, Received: now,
		holders: []holder{{key: from, hops: hops - 1}}}
	t.entries[origin] = e
	t.byFrom[from]++
	t.bytes += EntryCost(len(e.Raw))
	t.bytesFrom[from] += EntryCost(len(e.Raw))
	return nil
}

// roomLocked reports whether origin's document, costing cost, may come
// from neighbour from, replacing the entry held for origin if any:
// within MaxPerRelay and MaxBytesPerRelay of the neighbour, and MaxOrigins
// and MaxTableBytes in all. It drops expired entries first when a bound
// is reached.
func (t *Table) roomLocked(origin, from key.PublicKey, cost int, now time.Time) bool {
	fits := func() bool {
		old := t.entries[origin]
		count, total, mine := 1, cost, cost
		if old != nil {
			count, total = 0, cost-EntryCost(len(old.Raw))
			if old.From == from {
				mine -= EntryCost(len(old.Raw))
			}
		}
		sameRelay := old != nil && old.From == from
		return (sameRelay || t.byFrom[from] < MaxPerRelay) && len(t.entries)+count <= MaxOrigins &&
			t.bytesFrom[from]+mine <= MaxBytesPerRelay && t.bytes+total <= MaxTableBytes
	}
	if fits() {
		return true
	}
	for _, e := range t.entries {
		if now.Sub(e.Received) >= Expiry {
			t.forgetLocked(e)
		}
	}
	return fits()
}

// forgetLocked removes e from the table.
func (t *Table) forgetLocked(e *Entry) {
	delete(t.entries, e.Origin)
	if t.byFrom[e.From]--; t.byFrom[e.From] <= 0 {
		delete(t.byFrom, e.From)
	}
	c := EntryCost(len(e.Raw))
	t.bytes -= c
	if t.bytesFrom[e.From] -= c; t.bytesFrom[e.From] <= 0 {
		delete(t.bytesFrom, e.From)
	}
}

// List returns the live entries, newest first, dropping expired ones.
func (t *Table) List(now time.Time) []Entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Entry, 0, len(t.entries))
	for _, e := range t.entries {
		if now.Sub(e.Received) >= Expiry {
			t.forgetLocked(e)
			continue
		}
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Received.After(out[j].Received) })
	return out
}

// Get returns the entry for an origin.
func (t *Table) Get(origin key.PublicKey, now time.Time) (Entry, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.entries[origin]
	if e == nil || now.Sub(e.Received) >= Expiry {
		return Entry{}, false
	}
	return *e, true
}

// Line builds a presence line carrying doc byte for byte.
func Line(id, ts string, hops int, doc []byte) []byte {
	b := make([]byte, 0, len(doc)+96)
	b = append(b, `{"t":"presence","id":"`...)
	b = append(b, id...)
	b = append(b, `","ts":"`...)
	b = append(b, ts...)
	b = append(b, `","hops":`...)
	b = fmt.Appendf(b, "%d", hops)
	b = append(b, `,"doc":`...)
	b = append(b, doc...)
	return append(b, '}')
}
