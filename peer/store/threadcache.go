package store

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// The thread cache holds every thread's record in memory, newest activity
// first, for the paths that want all of them or the newest few: the thread
// list (`awp threads`, the tray), this node's presence document and the
// retention sweep. Reading 10,000 JSON records from the file for each of
// those cost ~90 ms of CPU; the cache costs about 400 bytes a thread.
//
// It is loaded on first use (not at Open: a start reads nothing it does
// not need), under the write lock so no commit slips between the load and
// the changes applied after it. A transaction notes the records it writes
// (flush) and the threads it deletes; DB.Update applies them when the
// transaction has committed, so the cache only ever shows committed state.
// Entries are never changed in place: a change replaces the entry, and a
// listing is a slice of entries nobody writes to.

// ThreadEntry is one thread in a listing.
type ThreadEntry struct {
	Key    ThreadKey
	Thread Thread
}

type threadCache struct {
	mu     sync.Mutex
	loaded bool
	byKey  map[string]*ThreadEntry
	order  []*ThreadEntry // newest Updated first; nil after a change

	// snap says meta holds a snapshot of every thread record, valid for
	// the file as it is (threadSnapshot); guarded by wmu.
	snap bool
}

// The snapshot: Close writes every thread record, from the cache, in one
// value (bbolt keeps a large value in consecutive pages), so the next run
// loads the cache with one sequential read instead of visiting every page
// of the threads bucket, which is scattered over the file after months of
// commits (~2,750 page reads and 0.4-0.8 s on this machine's disk for
// 10,000 threads, after the pages left the page cache). The first commit
// that changes a thread record deletes it in the same transaction, so a
// snapshot present is always the file's state, a crash or not.
var snapKey = []byte("thread_snapshot")

// snapEntry is one thread in the snapshot (gob: every exported field of
// Thread goes with it, also fields added later).
type snapEntry struct {
	Key []byte
	T   Thread
}

// noteThread records that this transaction wrote thread kb's record (t),
// or deleted the thread (t nil), for the cache.
func (tx *Tx) noteThread(kb string, t *Thread) {
	if tx.thrP == nil {
		tx.thrP = map[string]*Thread{}
	}
	if t == nil {
		tx.thrP[kb] = nil
		return
	}
	c := *t
	tx.thrP[kb] = &c
}

// apply makes a committed transaction's thread changes part of the cache.
func (c *threadCache) apply(p map[string]*Thread) {
	if len(p) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.loaded {
		return
	}
	for kb, t := range p {
		if t == nil {
			delete(c.byKey, kb)
		} else if tk, ok := parseThreadKey([]byte(kb)); ok {
			c.byKey[kb] = &ThreadEntry{Key: tk, Thread: *t}
		}
	}
	c.order = nil
}

// committed returns thread kb's record as the last commit left it, a copy:
// found says whether the thread exists, known whether the cache could
// tell (false when it is not loaded). Only a write transaction may ask: it
// holds the write lock, so no commit comes between the cache and its own
// view of the file (a read transaction may be older than the cache).
func (c *threadCache) committed(kb string) (t Thread, found, known bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.loaded {
		return Thread{}, false, false
	}
	e, ok := c.byKey[kb]
	if !ok {
		return Thread{}, false, true
	}
	return e.Thread, true, true
}

// RecentThreads returns every thread, newest activity first (ties in key
// order). The entries are shared: callers must not change them. It must
// not be called inside Update.
func (db *DB) RecentThreads() ([]*ThreadEntry, error) {
	c := &db.thr
	c.mu.Lock()
	loaded := c.loaded
	c.mu.Unlock()
	if !loaded {
		if err := db.loadThreads(); err != nil {
			return nil, err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.order == nil {
		order := make([]*ThreadEntry, 0, len(c.byKey))
		for _, e := range c.byKey {
			order = append(order, e)
		}
		slices.SortFunc(order, func(a, b *ThreadEntry) int {
			if c := b.Thread.Updated.Compare(a.Thread.Updated); c != 0 {
				return c
			}
			return bytes.Compare(a.Key.bytes(), b.Key.bytes())
		})
		c.order = order
	}
	return c.order, nil
}

// loadThreads fills the cache from the file, holding the write lock so no
// commit happens between the scan and the cache being marked loaded.
func (db *DB) loadThreads() error {
	db.wmu.Lock()
	defer db.wmu.Unlock()
	c := &db.thr
	c.mu.Lock()
	loaded := c.loaded
	c.mu.Unlock()
	if loaded {
		return nil
	}
	m := map[string]*ThreadEntry{}
	err := db.db.View(func(btx *bolt.Tx) error {
		if c.snap {
			if v := btx.Bucket(bMeta).Get(snapKey); v != nil {
				willNeed(v)
				if sm, err := decodeSnapshot(v); err == nil {
					m = sm
					return nil
				}
			}
			// Unreadable: the records themselves are the truth.
		}
		cur := btx.Bucket(bThreads).Cursor()
		for k, v := cur.First(); k != nil; k, v = cur.Next() {
			if v == nil {
				continue // the th index
			}
			tk, ok := parseThreadKey(k)
			if !ok {
				continue
			}
			e := &ThreadEntry{Key: tk}
			if err := json.Unmarshal(v, &e.Thread); err != nil {
				return fmt.Errorf("store: thread record: %w", err)
			}
			m[string(k)] = e
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.byKey, c.order, c.loaded = m, nil, true
	c.mu.Unlock()
	return nil
}

// checkSnapshot notes at Open whether a snapshot is stored.
func (db *DB) checkSnapshot(btx *bolt.Tx) {
	db.thr.snap = btx.Bucket(bMeta).Get(snapKey) != nil
}

// dropSnapshot deletes the snapshot in a transaction that changes thread
// records (called in Update, before the commit). It reports whether it did.
func (tx *Tx) dropSnapshot() (bool, error) {
	if !tx.db.thr.snap || len(tx.thrP) == 0 {
		return false, nil
	}
	return true, tx.btx.Bucket(bMeta).Delete(snapKey)
}

// putSnapshot stores the snapshot of the cache, if it is loaded (Close,
// with wmu held: the cache is the file's state).
func (db *DB) putSnapshot(btx *bolt.Tx) error {
	c := &db.thr
	c.mu.Lock()
	var es []snapEntry
	if c.loaded {
		es = make([]snapEntry, 0, len(c.byKey))
		for kb, e := range c.byKey {
			es = append(es, snapEntry{Key: []byte(kb), T: e.Thread})
		}
	}
	c.mu.Unlock()
	if es == nil {
		return nil // not loaded: a snapshot stored is still right, or none is
	}
	var b bytes.Buffer
	b.WriteString(snapMagic)
	if err := gob.NewEncoder(&b).Encode(es); err != nil {
		return err
	}
	if err := btx.Bucket(bMeta).Put(snapKey, b.Bytes()); err != nil {
		return err
	}
	c.snap = true
	return nil
}

// snapMagic starts a snapshot (and names its version).
const snapMagic = "awp-threads-1\n"

func decodeSnapshot(v []byte) (map[string]*ThreadEntry, error) {
	rest, ok := bytes.CutPrefix(v, []byte(snapMagic))
	if !ok {
		return nil, fmt.Errorf("store: thread snapshot: unknown version")
	}
	var es []snapEntry
	if err := gob.NewDecoder(bytes.NewReader(rest)).Decode(&es); err != nil {
		return nil, fmt.Errorf("store: thread snapshot: %w", err)
	}
	m := make(map[string]*ThreadEntry, len(es))
	for _, se := range es {
		tk, ok := parseThreadKey(se.Key)
		if !ok {
			return nil, fmt.Errorf("store: thread snapshot: bad key")
		}
		m[string(se.Key)] = &ThreadEntry{Key: tk, Thread: se.T}
	}
	return m, nil
}
