package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Errors returned when opening.
var (
	// ErrAlreadyRunning is returned by Open when another process holds the
	// data directory's database.
	ErrAlreadyRunning = errors.New("store: already running: another awp process holds this data directory")
)

// Errors returned by Tx methods.
var (
	// ErrNotFound is returned when a thread, blob or peer does not exist.
	ErrNotFound = errors.New("store: not found")
)

var (
	bThreads   = []byte("threads")
	bLines     = []byte("lines")
	bDedupe    = []byte("dedupe") // no longer used: dropped on open
	bSeen      = []byte("seen")
	bOutbox    = []byte("outbox")
	bOutTh     = []byte("outth") // no longer used (the index is in memory): dropped on open
	bBlobs     = []byte("blobs")
	bRanges    = []byte("ranges")
	bUsage     = []byte("usage")
	bPeers     = []byte("peers")
	bSettings  = []byte("settings")
	bGrants    = []byte("grants")
	bMeta      = []byte("meta")
	allBuckets = [][]byte{bThreads, bLines, bSeen, bOutbox, bBlobs, bRanges, bUsage, bPeers, bSettings, bGrants, bMeta}
)

// DB is an open data directory.
type DB struct {
	dir   string
	db    *bolt.DB
	files blobFiles
	wmu   sync.Mutex // held through each Update (and the index changes after it)
	// vis is held (write) from a commit's meta page write until the
	// caches (out, thr) show it, and (read) while a reader begins its
	// transaction: a reader that sees a commit in the file also sees it
	// in the thread list, so `awp show` never holds a line that
	// `awp threads` does not count yet.
	vis    sync.RWMutex
	out    *outIndex // per-thread index of the outboxes; guarded by wmu
	noSync bool
	thr    threadCache
	// sweepPos is where the next retention pass resumes in the blobs
	// bucket (retention.go); guarded by wmu.
	sweepPos []byte
}

// Options tune Open.
type Options struct {
	// Timeout is how long Open waits for another process to release the
	// database before returning ErrAlreadyRunning (default 300ms).
	Timeout time.Duration
	// NoSync skips fsync (benchmarks of the non-durable path only).
	NoSync bool
}

// Open opens (creating if needed) DIR/awp.db and DIR/blobs.
func Open(dir string, o Options) (*DB, error) {
	if o.Timeout == 0 {
		o.Timeout = 300 * time.Millisecond
	}
	if err := os.MkdirAll(filepath.Join(dir, "blobs"), 0o700); err != nil {
		return nil, fmt.Errorf("store: open: %w", err)
	}
	bdb, err := bolt.Open(filepath.Join(dir, "awp.db"), 0o600, &bolt.Options{
		Timeout:        o.Timeout,
		NoFreelistSync: true,
		FreelistType:   bolt.FreelistMapType,
		NoSync:         o.NoSync,
		// Map ahead of the file so a growing store is rarely remapped
		// (a remap blocks every reader; address space only, not memory).
		InitialMmapSize: 256 << 20,
	})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("%w (%s)", ErrAlreadyRunning, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", dir, err)
	}
	removeCompactLeftover(dir) // a compaction killed before its swap (compact.go)
	err = bdb.Update(func(tx *bolt.Tx) error {
		newUsage := tx.Bucket(bUsage) == nil
		for _, b := range allBuckets {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		// Earlier versions kept every received id; the last id per thread
		// (the seen bucket) is the dedupe now.
		for _, old := range [][]byte{bDedupe, bOutTh} {
			if tx.Bucket(old) != nil {
				if err := tx.DeleteBucket(old); err != nil {
					return err
				}
			}
		}
		if newUsage {
			return usageInit(tx)
		}
		return nil
	})
	db := &DB{dir: dir, db: bdb, files: blobFiles{files: map[string]*blobFile{}}, noSync: o.NoSync}
	if err == nil {
		err = bdb.View(func(tx *bolt.Tx) error {
			var err error
			db.out, err = loadOutIndex(tx)
			db.checkSnapshot(tx)
			return err
		})
	}
	if err != nil {
		bdb.Close()
		return nil, fmt.Errorf("store: init %s: %w", dir, err)
	}
	return db, nil
}

// Dir returns the data directory.
func (db *DB) Dir() string { return db.dir }

// Close closes the database.
func (db *DB) Close() error {
	db.closeBlobs()
	err := db.saveFreelist() // so the next Open need not walk the file (freelist.go)
	if cerr := db.db.Close(); err == nil {
		err = cerr
	}
	return err
}

// Update runs fn in one read-write transaction, committed (fsync'ed) when fn
// returns nil.
func (db *DB) Update(fn func(*Tx) error) error {
	db.wmu.Lock()
	defer db.wmu.Unlock()
	btx, err := db.db.Begin(true)
	if err != nil {
		return err
	}
	// Rolls back on an error or a panic in fn; after a Commit it is a
	// no-op (bbolt's usual defer).
	defer func() { _ = btx.Rollback() }()
	tx := newTx(db, btx)
	snapGone, err := db.prepare(tx, fn)
	if err != nil {
		return err
	}
	// The commit becomes visible to new readers when bbolt writes its meta
	// page, before Commit returns: no reader begins until the caches agree.
	db.vis.Lock()
	defer db.vis.Unlock()
	if err := btx.Commit(); err != nil { // a failed Commit rolls back
		return err
	}
	if snapGone {
		db.thr.snap = false
	}
	if tx.outP != nil {
		db.out.apply(tx.outP)
	}
	db.thr.apply(tx.thrP)
	return nil
}

// prepare runs fn and the writes every transaction ends with; it reports
// whether the thread snapshot was deleted.
func (db *DB) prepare(tx *Tx, fn func(*Tx) error) (snapGone bool, err error) {
	if err := fn(tx); err != nil {
		return false, err
	}
	if err := tx.flush(); err != nil {
		return false, err
	}
	return tx.dropSnapshot() // threadcache.go
}

// View runs fn in a read-only transaction. fn must not begin another
// transaction (View or Update): a commit waiting on vis, or bbolt remapping
// the file, would wait for this one while it waits for them.
func (db *DB) View(fn func(*Tx) error) error {
	db.vis.RLock()
	btx, err := db.db.Begin(false)
	db.vis.RUnlock()
	if err != nil {
		return err
	}
	defer func() { _ = btx.Rollback() }()
	return fn(newTx(db, btx))
}

// Check runs bbolt's consistency check and returns the first error found.
func (db *DB) Check() error {
	return db.db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			return err
		}
		return nil
	})
}
