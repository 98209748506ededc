package store

// The store runs with bbolt's NoFreelistSync: commits do not write the
// free page list, which saves a page write (and its share of the fsync)
// per transaction. The price is paid at Open: a file whose last commit did
// not write the list makes bbolt rebuild it by walking every page of the
// file, which for months of history (a 450 MB file) took seconds and
// faulted the whole file into memory.
//
// So Close writes the list once, in a last empty commit with the sync
// switched on, and the next Open reads it from that page instead of
// walking the file. The first commit after Open drops it again (its meta
// says "no free list"). Only a start after a crash (or a kill) walks the
// file, as every start did before.

// saveFreelist commits once with the free list written (and the thread
// snapshot).
func (db *DB) saveFreelist() error {
	db.wmu.Lock()
	defer db.wmu.Unlock()
	if db.db.IsReadOnly() {
		return nil
	}
	db.db.NoFreelistSync = false
	defer func() { db.db.NoFreelistSync = true }()
	// The same commit stores the thread cache's snapshot (threadcache.go).
	return db.db.Update(db.putSnapshot)
}

// Sync flushes the database file to disk (for stores opened with NoSync).
func (db *DB) Sync() error { return db.db.Sync() }
