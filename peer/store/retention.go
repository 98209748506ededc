package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
)

// Retention is how long the store keeps what people no longer look at.
// Zero keeps forever (the default).
type Retention struct {
	// KeepThreads: a thread with no line for this long is deleted, with
	// its lines and the blobs it holds.
	KeepThreads time.Duration `json:"keep_threads,omitempty"`
	// KeepBlobs: the blob files of a closed thread (either side's last
	// state done, failed or closed) with no line for this long are
	// deleted; the thread and its lines stay.
	KeepBlobs time.Duration `json:"keep_blobs,omitempty"`
}

// retentionSetting is the settings key of the stored Retention.
const retentionSetting = "retention"

// Retention returns the stored retention (zero when never set).
func (tx *Tx) Retention() Retention {
	var r Retention
	if v := tx.btx.Bucket(bSettings).Get([]byte(retentionSetting)); v != nil {
		_ = json.Unmarshal(v, &r) // an unreadable setting keeps everything
	}
	return r
}

// PutRetention stores r.
func (tx *Tx) PutRetention(r Retention) error {
	if r.KeepThreads < 0 || r.KeepBlobs < 0 {
		return errors.New("store: retention: negative duration")
	}
	v, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return tx.btx.Bucket(bSettings).Put([]byte(retentionSetting), v)
}

// Bounds on one sweep pass, so retention never holds the write lock (and
// every line waiting to commit) for long, however much has expired: a
// thread of 100,000 lines goes over several passes.
const (
	// SweepLines is the most lines one pass deletes (~10 MB of pages:
	// tens of milliseconds of commit on this kind of disk).
	SweepLines = 20_000
	// SweepThreads is the most threads one pass deletes.
	SweepThreads = 500
	// SweepBlobs is the most blob records one pass looks at (and so the
	// most blob files it deletes).
	SweepBlobs = 512
)

// SweepResult says what one pass did. More is set when it stopped at one
// of its bounds: another pass soon has more to do.
type SweepResult struct {
	Threads    int   // threads deleted whole
	Lines      int   // lines deleted (also of threads not yet gone)
	Blobs      int   // blob records dropped
	BlobBytes  int64 // bytes of their files
	Files      int   // blob files removed from disk
	More       bool
	Considered int // threads and blobs looked at
}

// Changed reports whether the pass deleted anything.
func (r SweepResult) Changed() bool { return r.Threads+r.Lines+r.Blobs > 0 }

// bUnlink holds blob files whose records a committed sweep dropped and
// that are still to be removed from disk: file (relative) → nothing. The
// record goes first, in a transaction; the file after it has committed,
// so a crash in between leaves a file to remove, never a record without
// its file.
var bUnlink = []byte("unlink")

// Sweep runs one retention pass at time now: it deletes threads idle
// longer than r.KeepThreads (oldest first; never one with lines still
// queued in the outbox, which would lose them) and drops blobs as
// Retention says, within the bounds above. It must not be called inside
// Update.
func (db *DB) Sweep(now time.Time, r Retention) (SweepResult, error) {
	var res SweepResult
	// Files a previous pass left to remove (it crashed after its commit).
	if err := db.unlinkPending(&res); err != nil {
		return res, err
	}
	if r.KeepThreads > 0 {
		if err := db.sweepThreads(now.Add(-r.KeepThreads), &res); err != nil {
			return res, err
		}
	}
	if r.KeepThreads > 0 || r.KeepBlobs > 0 {
		if err := db.sweepBlobs(now, r, &res); err != nil {
			return res, err
		}
	}
	if err := db.unlinkPending(&res); err != nil {
		return res, err
	}
	return res, nil
}

// queued reports whether the outbox holds lines of my thread th with
// peer. Call it with wmu held (inside Update).
func (db *DB) queued(peer key.PublicKey, th string) bool {
	return len(db.out.list(outKey{peer, th})) > 0
}

// sweepThreads deletes threads whose newest line is before cutoff.
func (db *DB) sweepThreads(cutoff time.Time, res *SweepResult) error {
	all, err := db.RecentThreads()
	if err != nil {
		return err
	}
	// Oldest first (the list is newest first), leaving out threads with
	// lines still queued: their lines are not acked yet.
	var old []ThreadKey
	db.wmu.Lock()
	for i := len(all) - 1; i >= 0 && len(old) < SweepThreads; i-- {
		e := all[i]
		if !e.Thread.Updated.Before(cutoff) {
			break
		}
		if e.Key.NS == NSOwn && db.queued(e.Key.Peer, e.Key.Th) {
			continue
		}
		old = append(old, e.Key)
	}
	db.wmu.Unlock()
	if len(old) == 0 {
		return nil
	}
	return db.Update(func(tx *Tx) error {
		budget := SweepLines
		for _, k := range old {
			res.Considered++
			t, ok := tx.Thread(k)
			if !ok || !t.Updated.Before(cutoff) {
				continue // gone, or a line came since the listing
			}
			if k.NS == NSOwn && db.queued(k.Peer, k.Th) {
				continue // queued since the listing
			}
			if budget == 0 {
				res.More = true
				return nil
			}
			n, whole, err := tx.dropThreadLines(k, budget)
			if err != nil {
				return err
			}
			budget -= n
			res.Lines += n
			if !whole {
				res.More = true // the rest of this thread next pass
				return nil
			}
			if err := tx.DeleteThread(k); err != nil {
				return err
			}
			if k.NS == NSOwn {
				// Its last id received goes too, or every resume would
				// list a thread that is no more.
				if b := tx.btx.Bucket(bSeen).Bucket(peerBytes(k.Peer)); b != nil {
					if err := b.Delete([]byte(k.Th)); err != nil {
						return err
					}
				}
			}
			res.Threads++
		}
		res.More = res.More || len(old) == SweepThreads
		return nil
	})
}

// dropThreadLines deletes up to max of thread k's oldest lines. whole
// reports that none are left.
func (tx *Tx) dropThreadLines(k ThreadKey, max int) (n int, whole bool, err error) {
	b := tx.btx.Bucket(bLines).Bucket(k.bytes())
	if b == nil {
		return 0, true, nil
	}
	var keys [][]byte
	var charged int64 // bytes of the peer's lines, which leave its usage (usage.go)
	c := b.Cursor()
	kk, v := c.First()
	for ; kk != nil && len(keys) < max; kk, v = c.Next() {
		keys = append(keys, clone(kk))
		if len(v) >= lineHdr && chargedLine(k.NS, v[0]) {
			charged += int64(len(v) - lineHdr)
		}
	}
	left := kk != nil
	for _, kk := range keys {
		if err := b.Delete(kk); err != nil {
			return n, false, fmt.Errorf("store: sweep: %w", err)
		}
		n++
	}
	tx.AddUsage(k.Peer, -charged, 0)
	// A cached line of this thread (AppendLine's memo) may be gone now.
	tx.linesB, tx.lastLineSeq, tx.lastLineRaw = nil, 0, nil
	return n, !left, nil
}

// closedStates are the thread states after which a thread has ended
// (SPEC §5).
var closedStates = map[string]bool{"done": true, "failed": true, "closed": true}

// Closed reports whether either side declared the thread ended.
func (t *Thread) Closed() bool { return closedStates[t.Mine] || closedStates[t.Theirs] }

// sweepBlobs looks at up to SweepBlobs blob records, from where the last
// pass stopped, and drops those retention no longer keeps: blobs of
// closed threads idle longer than KeepBlobs, and blobs whose thread
// retention deleted (KeepThreads). A blob still arriving is left alone
// (it expires by its own rule), and so is any blob of a thread with lines
// in the outbox (its chunks may be among them).
func (db *DB) sweepBlobs(now time.Time, r Retention, res *SweepResult) error {
	return db.Update(func(tx *Tx) error {
		bb := tx.btx.Bucket(bBlobs)
		c := bb.Cursor()
		k, v := c.Seek(db.sweepPos)
		if k == nil { // past the end: start over
			k, v = c.First()
		}
		ul, err := tx.btx.CreateBucketIfNotExists(bUnlink)
		if err != nil {
			return err
		}
		var drop [][]byte
		n := 0
		for ; k != nil && n < SweepBlobs; k, v = c.Next() {
			n++
			res.Considered++
			b := &Blob{}
			if json.Unmarshal(v, b) != nil || !(b.Complete || b.Corrupt) {
				continue
			}
			peer, err := key.ParsePublic(b.Peer)
			if err != nil {
				continue
			}
			if db.queued(peer, b.Th) {
				continue
			}
			t, exists := tx.Thread(ThreadKey{NS: NSOwn, Peer: peer, Th: b.Th})
			switch {
			case !exists && r.KeepThreads > 0 && b.Updated.Before(now.Add(-r.KeepThreads)):
			case exists && r.KeepBlobs > 0 && t.Closed() && t.Updated.Before(now.Add(-r.KeepBlobs)) && b.Updated.Before(now.Add(-r.KeepBlobs)):
			default:
				continue
			}
			drop = append(drop, clone(k))
			if b.Counted { // its size leaves the sender's usage (usage.go)
				tx.AddUsage(peer, 0, -b.Size)
			}
			if b.File != "" {
				if err := ul.Put([]byte(b.File), nil); err != nil {
					return err
				}
			}
			res.Blobs++
			res.BlobBytes += b.Size
		}
		if k != nil {
			db.sweepPos = clone(k)
			res.More = true // the rest of the records next pass
		} else {
			db.sweepPos = nil
		}
		for _, k := range drop {
			if err := bb.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
}

// unlinkPending removes the files of dropped blobs (up to SweepBlobs) and
// then their entries.
func (db *DB) unlinkPending(res *SweepResult) error {
	var files []string
	err := db.View(func(tx *Tx) error {
		ul := tx.btx.Bucket(bUnlink)
		if ul == nil {
			return nil
		}
		c := ul.Cursor()
		for k, _ := c.First(); k != nil && len(files) < SweepBlobs; k, _ = c.Next() {
			files = append(files, string(k))
		}
		return nil
	})
	if err != nil || len(files) == 0 {
		return err
	}
	for _, f := range files {
		db.CloseBlob(f)
		if !localPath(f) {
			continue // not a path under the data dir: only forget it
		}
		if err := os.Remove(db.Path(f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("store: sweep: %w", err)
		}
		res.Files++
	}
	return db.Update(func(tx *Tx) error {
		ul := tx.btx.Bucket(bUnlink)
		for _, f := range files {
			if err := ul.Delete([]byte(f)); err != nil {
				return err
			}
		}
		return nil
	})
}

// localPath reports whether a blob record's file names a file under the
// data directory's blobs/ (records are the store's own, but a file is
// removed only where blob files live).
func localPath(rel string) bool {
	return filepath.IsLocal(rel) && strings.HasPrefix(filepath.ToSlash(filepath.Clean(rel)), "blobs/")
}
