package store

import (
	"container/list"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// MaxOpenBlobFiles bounds the received blob files this store keeps open
// between writes. Each incomplete blob used to keep its file open until it
// completed: 20,500 announced blobs that never finished used up the
// process's file descriptors, after which accept failed and every later
// blob got internal. Past the bound the least recently used file that no
// write is using is fsynced (when written since its last fsync, so a
// failure is still reported) and closed; it is opened again when its next
// chunk comes. A file holds one descriptor, two while direct writes are
// used on it, so blob files take at most 2*MaxOpenBlobFiles descriptors
// beyond the ones writes in progress hold (two writers per session).
const MaxOpenBlobFiles = 64

// blobFiles caches open blob files being received, least recently used
// last.
type blobFiles struct {
	mu     sync.Mutex // guards the fields below and each blobFile's
	files  map[string]*blobFile
	lru    list.List        // of *blobFile, most recently used first
	failed map[string]error // fsyncs that failed when a file was closed, for its next SyncBlob
}

// blobFile is a blob file being received: f for buffered writes and fsync,
// direct (opened on first use) for writes that bypass the page cache.
type blobFile struct {
	rel      string
	f        *os.File
	direct   *os.File
	noDirect bool // direct I/O failed once: buffered only
	refs     int  // writes and fsyncs using it now
	dirty    bool // written since its last fsync
	gone     bool // out of the cache: close when the last user is done
	used     time.Time
	elem     *list.Element
}

func (db *DB) bf() *blobFiles { return &db.files }

// acquireBlob returns rel's open file, opening it (and closing the least
// recently used idle ones past MaxOpenBlobFiles) if needed; releaseBlob
// gives it back.
func (db *DB) acquireBlob(rel string) (*blobFile, error) {
	bf := db.bf()
	bf.mu.Lock()
	if b := bf.files[rel]; b != nil {
		bf.useLocked(b)
		bf.mu.Unlock()
		return b, nil
	}
	bf.mu.Unlock()
	p := db.Path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	bf.mu.Lock()
	if b := bf.files[rel]; b != nil {
		// Opened meanwhile by another writer: use that one.
		bf.useLocked(b)
		bf.mu.Unlock()
		f.Close()
		return b, nil
	}
	if bf.files == nil {
		bf.files = map[string]*blobFile{}
	}
	b := &blobFile{rel: rel, f: f, refs: 1, used: time.Now()}
	b.elem = bf.lru.PushFront(b)
	bf.files[rel] = b
	victims := bf.evictLocked(MaxOpenBlobFiles)
	bf.mu.Unlock()
	db.closeVictims(victims)
	return b, nil
}

// useLocked starts a use of b, the most recently used file now.
func (bf *blobFiles) useLocked(b *blobFile) {
	b.refs++
	b.used = time.Now()
	bf.lru.MoveToFront(b.elem)
}

// releaseBlob ends a use of b (acquireBlob).
func (db *DB) releaseBlob(b *blobFile) {
	bf := db.bf()
	bf.mu.Lock()
	b.refs--
	last := b.refs == 0 && b.gone
	bf.mu.Unlock()
	if last {
		db.closeVictims([]*blobFile{b})
	}
}

// evictLocked takes idle files out of the cache, least recently used
// first, until at most keep are open (files in use stay), and returns them
// to be closed outside the lock.
func (bf *blobFiles) evictLocked(keep int) []*blobFile {
	var out []*blobFile
	for e := bf.lru.Back(); e != nil && len(bf.files) > keep; {
		b := e.Value.(*blobFile)
		e = e.Prev()
		if b.refs > 0 {
			continue
		}
		bf.removeLocked(b)
		out = append(out, b)
	}
	return out
}

func (bf *blobFiles) removeLocked(b *blobFile) {
	delete(bf.files, b.rel)
	bf.lru.Remove(b.elem)
	b.gone = true
}

// closeVictims closes files taken out of the cache, fsyncing first those
// written since their last fsync: a write-back error must reach the next
// SyncBlob, which (on a descriptor opened later) would not see it.
func (db *DB) closeVictims(vs []*blobFile) {
	for _, b := range vs {
		if b.dirty && !db.noSync {
			if err := b.f.Sync(); err != nil {
				bf := db.bf()
				bf.mu.Lock()
				if bf.failed == nil {
					bf.failed = map[string]error{}
				}
				bf.failed[b.rel] = err
				bf.mu.Unlock()
			}
		}
		b.close()
	}
}

// directFile returns b's direct-I/O handle, opening it on first use (nil
// where the file system refuses direct I/O).
func (db *DB) directFile(b *blobFile) *os.File {
	bf := db.bf()
	bf.mu.Lock()
	defer bf.mu.Unlock()
	if b.direct == nil && !b.noDirect {
		b.direct = openDirect(db.Path(b.rel))
		b.noDirect = b.direct == nil
	}
	return b.direct
}

func (db *DB) noDirect(b *blobFile) {
	bf := db.bf()
	bf.mu.Lock()
	defer bf.mu.Unlock()
	b.noDirect = true
}

func (db *DB) markDirty(b *blobFile) {
	bf := db.bf()
	bf.mu.Lock()
	b.dirty = true
	bf.mu.Unlock()
}

// WriteBlobAt writes chunk bytes into a blob file (not yet synced). A
// large write whose offset, length and memory are aligned goes around the
// page cache (direct I/O, where the system has it): blob bytes are written
// once and read rarely, so copying them into fresh page-cache pages (and
// writing those back later) costs CPU for nothing; SyncBlob still makes
// them durable.
func (db *DB) WriteBlobAt(rel string, off int64, data []byte) error {
	b, err := db.acquireBlob(rel)
	if err != nil {
		return fmt.Errorf("store: blob write: %w", err)
	}
	defer db.releaseBlob(b)
	db.markDirty(b)
	return db.writeAt(b, off, data)
}

func (db *DB) writeAt(b *blobFile, off int64, data []byte) error {
	if len(data) >= directMin && directAligned(off, data) {
		if d := db.directFile(b); d != nil {
			if _, err := d.WriteAt(data, off); err == nil {
				return nil
			}
			// Refused (or failed): write it the ordinary way, which reports
			// a real failure, and stop trying direct I/O on this file.
			db.noDirect(b)
		}
	}
	if _, err := b.f.WriteAt(data, off); err != nil {
		return fmt.Errorf("store: blob write: %w", err)
	}
	return nil
}

// WriteBlobRun writes consecutive pieces of a blob file, bufs[0] at off and
// each next one where the previous ends, as WriteBlobAt would one by one;
// a run of aligned pieces goes to the disk in one vectored direct write.
// One system call for several chunks matters on a busy machine: a direct
// write waits for the disk, and the next one only starts once its thread
// runs again (on this kind of VM, 512 KiB writes reached ~350 MB/s with
// both CPUs busy, 4 MiB ones ~680).
func (db *DB) WriteBlobRun(rel string, off int64, bufs [][]byte) error {
	b, err := db.acquireBlob(rel)
	if err != nil {
		return fmt.Errorf("store: blob write: %w", err)
	}
	defer db.releaseBlob(b)
	db.markDirty(b)
	if len(bufs) == 1 {
		return db.writeAt(b, off, bufs[0])
	}
	aligned := true
	o := off
	for _, p := range bufs {
		if len(p) < directMin || !directAligned(o, p) {
			aligned = false
			break
		}
		o += int64(len(p))
	}
	if aligned {
		if d := db.directFile(b); d != nil {
			if err := writevAt(d, off, bufs); err == nil {
				return nil
			}
			db.noDirect(b)
		}
	}
	for _, p := range bufs {
		if err := db.writeAt(b, off, p); err != nil {
			return err
		}
		off += int64(len(p))
	}
	return nil
}

// directMin is the smallest write worth direct I/O.
const directMin = 64 << 10

// SyncBlob fsyncs a blob file written with WriteBlobAt (fsync covers the
// file's data whichever handle wrote it, also one closed since; a failure
// of the fsync made when that handle was closed is returned here).
func (db *DB) SyncBlob(rel string) error {
	bf := db.bf()
	bf.mu.Lock()
	ferr := bf.failed[rel]
	delete(bf.failed, rel)
	bf.mu.Unlock()
	if ferr != nil {
		return fmt.Errorf("store: blob sync: %w", ferr)
	}
	b, err := db.acquireBlob(rel)
	if err != nil {
		return fmt.Errorf("store: blob sync: %w", err)
	}
	defer db.releaseBlob(b)
	bf.mu.Lock()
	b.dirty = false // set again by a write that starts now; that one is synced later
	bf.mu.Unlock()
	if err := b.f.Sync(); err != nil {
		db.markDirty(b)
		return fmt.Errorf("store: blob sync: %w", err)
	}
	return nil
}

// CloseBlob closes a cached blob file (once no write is using it).
func (db *DB) CloseBlob(rel string) {
	bf := db.bf()
	bf.mu.Lock()
	b := bf.files[rel]
	if b == nil {
		bf.mu.Unlock()
		return
	}
	bf.removeLocked(b)
	idle := b.refs == 0
	bf.mu.Unlock()
	if idle {
		db.closeVictims([]*blobFile{b})
	}
}

// CloseIdleBlobs closes the cached blob files no write has used for idle.
func (db *DB) CloseIdleBlobs(idle time.Duration) int {
	bf := db.bf()
	bf.mu.Lock()
	var vs []*blobFile
	cut := time.Now().Add(-idle)
	for e := bf.lru.Back(); e != nil; {
		b := e.Value.(*blobFile)
		e = e.Prev()
		if b.refs == 0 && b.used.Before(cut) {
			bf.removeLocked(b)
			vs = append(vs, b)
		}
	}
	bf.mu.Unlock()
	db.closeVictims(vs)
	return len(vs)
}

// OpenBlobFiles reports how many blob files are open for writing.
func (db *DB) OpenBlobFiles() int {
	bf := db.bf()
	bf.mu.Lock()
	defer bf.mu.Unlock()
	return len(bf.files)
}

// RemoveBlobFile closes and deletes a received blob's file (a corrupt or
// expired blob: nothing opens its bytes). A missing file is no error.
func (db *DB) RemoveBlobFile(rel string) error {
	db.CloseBlob(rel)
	if err := os.Remove(db.Path(rel)); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("store: remove blob: %w", err)
	}
	return nil
}

func (b *blobFile) close() {
	b.f.Close()
	if b.direct != nil {
		b.direct.Close()
	}
}

func (db *DB) closeBlobs() {
	bf := db.bf()
	bf.mu.Lock()
	var vs []*blobFile
	for _, b := range bf.files {
		bf.removeLocked(b)
		if b.refs == 0 {
			vs = append(vs, b)
		}
	}
	bf.mu.Unlock()
	for _, b := range vs {
		b.close()
	}
}
