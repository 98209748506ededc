package peer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// Session tiers: what a peer may take of the node's bounds, fixed when
// its session starts.
const (
	tierStranger = iota // any key
	tierKnown           // knownPeer (trusted, dialed, invited, …), or this session was dialed here
)

// quota returns the quota of a tier.
func quota(tier int) int64 {
	if tier == tierKnown {
		return QuotaKnown
	}
	return QuotaStranger
}

// reserve returns the free space a tier's bytes must leave on a file
// system of total bytes.
func reserve(tier int, total uint64) uint64 {
	if tier == tierKnown {
		return min(MinFree, total/MinFreeDiv)
	}
	return min(MinFreeStranger, total/MinFreeStrangerDiv)
}

// diskState tracks the free space of the data directory's file system,
// checked at most every diskRecheck (or after diskRecheckBytes were
// admitted since), so checking each line costs no system call.
type diskState struct {
	space func() (free, total uint64, err error)

	mu    sync.Mutex // guards the fields below
	at    time.Time
	free  uint64
	total uint64
	err   error
	spent int64 // bytes admitted since the last check
}

func (d *diskState) refreshLocked(now time.Time) {
	d.free, d.total, d.err = d.space()
	d.at, d.spent = now, 0
}

// room reports whether need more bytes of a tier's peer fit above its
// reserve, and counts them as spent if so. When the space cannot be read
// it says yes: the write then decides.
func (d *diskState) room(tier int, need int64) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if now := time.Now(); now.Sub(d.at) > diskRecheck || d.spent > diskRecheckBytes {
		d.refreshLocked(now)
	}
	if d.err != nil {
		return true
	}
	free := int64(d.free) - d.spent
	if free-need < int64(reserve(tier, d.total)) {
		return false
	}
	d.spent += need
	return true
}

// capacity is the most a tier's peer could ever store at once here: the
// file system's size less the tier's reserve.
func (d *diskState) capacity(tier int) int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.err != nil || d.total == 0 {
		return MaxBlobSize
	}
	return int64(d.total - reserve(tier, d.total))
}

// low reports whether the free space is below the known peers' reserve.
func (d *diskState) low() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.refreshLocked(time.Now())
	return d.err == nil && d.free < reserve(tierKnown, d.total)
}

// diskFailed notes a failed commit: after a full disk the next check
// reads the space again, and incomplete blobs are expired now (with
// IncompleteBlobAgeLowDisk) to make room.
func (n *Node) diskFailed(err error) {
	if !errors.Is(err, syscall.ENOSPC) && !errors.Is(err, syscall.EDQUOT) {
		return
	}
	n.disk.mu.Lock()
	n.disk.at = time.Time{}
	n.disk.mu.Unlock()
	select {
	case n.sweepNow <- struct{}{}:
	default:
	}
}

// refusal is an err that answers a line instead of its ack: the line was
// not stored.
type refusal struct {
	code  string
	msg   string
	retry time.Duration // rate_limited: retry_ms
}

var errDiskLow = &refusal{code: wire.CodeRateLimited, msg: "no room on this node's disk now", retry: RetryRefused}

// admit checks an inbound content line against its sender's quota and the
// disk's free space before anything of it is stored. It returns the
// refusal, if any, and for a msg the blob parts that cannot be taken
// (ref → reason): those are recorded refused and answered too_large, the
// msg itself is stored. Chunks are checked before their bytes are written
// (receive); their blob's size counted when the msg announced it.
func (n *Node) admit(tx *store.Tx, s *session, f wire.Frame) (*refusal, map[string]string) {
	raw := int64(len(f.Header().Raw()))
	u := tx.Usage(s.peer)
	q := quota(s.tier)
	if u.Total()+raw > q {
		return &refusal{code: wire.CodeTooLarge, msg: fmt.Sprintf("over this peer's quota here (%d of %d bytes stored)", u.Total(), q)}, nil
	}
	need := raw
	var refused map[string]string
	if m, ok := f.(*wire.Msg); ok {
		used := u.Total() + raw
		for _, p := range m.DecodeParts() {
			if p.K != wire.PartBlob || p.Ref == "" {
				continue
			}
			if _, ok := tx.Blob("in", s.peer, p.Ref); ok {
				continue
			}
			why := ""
			switch {
			case p.Size > MaxBlobSize:
				why = store.ReasonTooLarge
			case used+p.Size > q:
				why = store.ReasonQuota
			case p.Size > n.disk.capacity(s.tier):
				why = store.ReasonTooLarge
			}
			if why != "" {
				if refused == nil {
					refused = map[string]string{}
				}
				refused[p.Ref] = why
				continue
			}
			used += p.Size
			need += p.Size
		}
	}
	if !n.disk.room(s.tier, need) {
		return errDiskLow, nil
	}
	return nil, refused
}

// gated returns the refusal of a line whose thread has an earlier line
// that was refused or failed in this session: storing it would make the
// earlier one a duplicate when it comes again (the dedupe keeps the last
// id per thread), so it waits too. Called on the commit loop's goroutine.
func (s *session) gated(h *wire.Head) *refusal {
	g, ok := s.gates[h.Th]
	if !ok || store.CompareIDs(h.ID, g) <= 0 {
		return nil
	}
	return &refusal{code: wire.CodeRateLimited, msg: "line " + g + " of this thread was not stored: send it again first", retry: RetryRefused}
}

// gate notes that h's line was not stored (commit loop only).
func (s *session) gate(h *wire.Head) {
	if s.gates == nil {
		s.gates = map[string]string{}
	}
	if g, ok := s.gates[h.Th]; ok && store.CompareIDs(h.ID, g) >= 0 {
		return
	}
	s.gates[h.Th] = h.ID
	if len(s.gates) > maxGates {
		s.close(errors.New("too many threads waiting for refused lines"))
	}
}

// ungate notes that h's line was stored (or was a duplicate): the line
// its thread waited for, if it is that one.
func (s *session) ungate(h *wire.Head) {
	if g, ok := s.gates[h.Th]; ok && store.CompareIDs(h.ID, g) == 0 {
		delete(s.gates, h.Th)
	}
}

// sweepLoop closes idle blob files every sweepEvery, and every
// expireEvery (or at once when a commit found the disk full) expires
// incomplete blobs and removes files nothing uses.
func (n *Node) sweepLoop() {
	defer n.wg.Done()
	t := time.NewTicker(n.cfg.SweepEvery)
	defer t.Stop()
	last := time.Time{}
	for {
		full := time.Since(last) >= expireEvery
		select {
		case <-n.ctx.Done():
			return
		case <-t.C:
		case <-n.sweepNow:
			full = true
		}
		n.db.CloseIdleBlobs(BlobFileIdle)
		if full || n.cfg.SweepEvery < sweepEvery {
			last = time.Now()
			n.expireBlobs()
		}
	}
}

// expireBlobs drops received blobs that got no chunk for
// IncompleteBlobAge (IncompleteBlobAgeLowDisk while the disk is below its
// reserve) and removes the files of blobs that are not kept.
func (n *Node) expireBlobs() {
	age := n.cfg.IncompleteBlobAge
	if n.disk.low() {
		age = min(age, IncompleteBlobAgeLowDisk)
	}
	cut := n.now().Add(-age)
	type blobID struct {
		peer key.PublicKey
		ref  string
	}
	var expire []blobID
	kept := map[string]bool{}
	_ = n.db.View(func(tx *store.Tx) error {
		tx.Blobs(func(b *store.Blob) bool {
			if b.Dir != "in" || b.Corrupt {
				return true
			}
			kept[filepath.Base(b.File)] = true
			if !b.Complete && b.Updated.Before(cut) {
				if k, err := key.ParsePublic(b.Peer); err == nil {
					expire = append(expire, blobID{k, b.Ref})
				}
			}
			return true
		})
		return nil
	})
	if len(expire) > 0 {
		var files []string
		err := n.commit.run(func(tx *store.Tx) error {
			files = files[:0]
			for _, id := range expire {
				b, ok := tx.Blob("in", id.peer, id.ref)
				if !ok || b.Complete || b.Corrupt || !b.Updated.Before(cut) {
					continue
				}
				if err := tx.MarkCorrupt(b, store.ReasonExpired); err != nil {
					return err
				}
				if err := tx.PutBlob(b); err != nil {
					return err
				}
				files = append(files, b.File)
				n.commit.publishAfter(Event{Type: EventBlob, Peer: storedKey(b.Peer), Th: b.Th, Blob: blobInfo(b)})
			}
			return nil
		})
		if err != nil {
			n.log.Warn("expire incomplete blobs", "err", err)
			return
		}
		for _, f := range files {
			delete(kept, filepath.Base(f))
			if err := n.db.RemoveBlobFile(f); err != nil {
				n.log.Warn("remove blob file", "err", err)
			}
		}
		n.log.Info("incomplete blobs expired", "blobs", len(files), "age", age)
	}
	dir := n.db.Path(filepath.Join("blobs", "in"))
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if kept[e.Name()] || !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil && n.now().Sub(fi.ModTime()) >= orphanAge {
			if err := n.db.RemoveBlobFile(filepath.Join("blobs", "in", e.Name())); err != nil {
				n.log.Warn("remove blob file", "err", err)
			}
		}
	}
}
