package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/awp-tray/awp-tray/internal/dirsync"
)

// Compaction rewrites awp.db into a new file holding only live pages, then
// swaps it in. bbolt never gives pages back to the file system: after
// retention deleted months of lines, the file keeps its size (the pages
// are only free for reuse), and compaction is how the space comes back.
//
// It needs the store to itself: it holds the store's lock from start to
// end, so a node cannot open the data directory meanwhile, and it refuses
// (ErrAlreadyRunning) while a node has it open. Nothing touches awp.db
// until the new file is complete and fsync'ed: the copy goes to
// awp.db.compact, which is renamed over awp.db (atomic on POSIX file
// systems) and the directory fsync'ed. A crash (or a kill) at any point
// leaves either the old file or the new one, complete; a leftover
// awp.db.compact is removed by the next Open or Compact.

// compactSuffix names the file a compaction writes before the swap.
const compactSuffix = ".compact"

// compactTxBytes bounds what one transaction of the copy holds (bbolt
// keeps a transaction's dirty pages in memory until it commits).
const compactTxBytes = 32 << 20

// CompactProgress is a compaction's progress, reported as it copies.
type CompactProgress struct {
	Keys, TotalKeys int64 // keys (and nested buckets) copied, of all
	Bytes           int64 // key and value bytes copied
	SrcBytes        int64 // the file's size before
}

// CompactResult is what a compaction did.
type CompactResult struct {
	Keys               int64
	SrcBytes, DstBytes int64
	Took               time.Duration
}

// ErrNoStore is returned by Compact for a directory without awp.db.
var ErrNoStore = errors.New("store: no store in this directory")

// ErrDamaged is returned by Compact for an awp.db it cannot read through:
// not a bbolt file, or one whose pages are damaged. The file is left as it
// was (the copy is never swapped in).
var ErrDamaged = errors.New("store: awp.db cannot be read")

// compactProgressEvery is how many keys pass between progress reports.
const compactProgressEvery = 16384

// Compact rewrites dir's awp.db without its free pages. progress, if not
// nil, is called now and then during the copy (on Compact's goroutine).
func Compact(dir string, progress func(CompactProgress)) (CompactResult, error) {
	t0 := time.Now()
	var res CompactResult
	path := filepath.Join(dir, "awp.db")
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return res, fmt.Errorf("%w (%s)", ErrNoStore, dir)
	}
	if err != nil {
		return res, fmt.Errorf("store: compact: %w", err)
	}
	res.SrcBytes = fi.Size()
	if fi.Size() == 0 {
		// bbolt would make a new store of it: there is nothing to keep.
		return res, fmt.Errorf("%w (%s: an empty file)", ErrNoStore, path)
	}
	src, err := openCompactSource(dir, path)
	if err != nil {
		return res, err
	}
	defer src.Close()
	tmp := path + compactSuffix
	if err := os.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return res, fmt.Errorf("store: compact: %w", err)
	}

	total, err := countKeys(src)
	if err != nil {
		return res, err
	}
	prog := CompactProgress{TotalKeys: total, SrcBytes: res.SrcBytes}
	if progress != nil {
		progress(prog)
	}

	dst, err := bolt.Open(tmp, 0o600, &bolt.Options{FreelistType: bolt.FreelistMapType})
	if err != nil {
		return res, fmt.Errorf("store: compact: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			dst.Close()
			os.Remove(tmp)
		}
	}()
	if err := copyStore(dst, src, &prog, progress); errors.Is(err, ErrDamaged) {
		return res, err
	} else if err != nil {
		return res, fmt.Errorf("store: compact: copy: %w", err)
	}
	// Every commit of the copy was fsync'ed, the last with the free list
	// (the new file opens without walking its pages).
	if err := dst.Close(); err != nil {
		return res, fmt.Errorf("store: compact: %w", err)
	}
	ok = true
	if fi, err := os.Stat(tmp); err == nil {
		res.DstBytes = fi.Size()
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return res, fmt.Errorf("store: compact: swap: %w", err)
	}
	if err := dirsync.Sync(dir); err != nil {
		return res, fmt.Errorf("store: compact: swap: %w", err)
	}
	res.Keys = prog.Keys
	res.Took = time.Since(t0)
	return res, nil
}

// openCompactSource opens the store at path (in dir) to be compacted,
// taking the store's own lock: bbolt's exclusive flock on awp.db.
func openCompactSource(dir, path string) (*bolt.DB, error) {
	src, err := openChecked(path, &bolt.Options{Timeout: 300 * time.Millisecond, NoFreelistSync: true,
		FreelistType: bolt.FreelistMapType})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("%w (%s)", ErrAlreadyRunning, dir)
	}
	if errors.Is(err, berrors.ErrInvalid) || errors.Is(err, berrors.ErrChecksum) || errors.Is(err, berrors.ErrVersionMismatch) {
		return nil, fmt.Errorf("%w: %s is not a bbolt store (%v); it was left as it is", ErrDamaged, path, err)
	}
	if err != nil && !errors.Is(err, ErrDamaged) {
		err = fmt.Errorf("store: compact: open %s: %w", path, err)
	}
	return src, err
}

// countKeys counts the keys of every bucket of src, for progress.
func countKeys(src *bolt.DB) (int64, error) {
	var total int64
	err := viewChecked(src, func(tx *bolt.Tx) error {
		return walkBuckets(tx, func(_ [][]byte, _, _ []byte, _ uint64) error {
			total++
			return nil
		})
	})
	if err != nil && !errors.Is(err, ErrDamaged) {
		err = fmt.Errorf("store: compact: count: %w", err)
	}
	return total, err
}

// copyStore copies every bucket, key and bucket sequence of src into dst
// (which must be empty), committing every compactTxBytes.
func copyStore(dst, src *bolt.DB, prog *CompactProgress, progress func(CompactProgress)) error {
	tx, err := dst.Begin(true)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	var size int64
	err = viewChecked(src, func(stx *bolt.Tx) error {
		return walkBuckets(stx, func(path [][]byte, k, v []byte, seq uint64) error {
			if sz := int64(len(k) + len(v)); size+sz > compactTxBytes {
				if err := tx.Commit(); err != nil {
					return err
				}
				next, err := dst.Begin(true)
				if err != nil {
					return err
				}
				tx, size = next, 0
			}
			size += int64(len(k) + len(v))
			prog.Keys++
			prog.Bytes += int64(len(k) + len(v))
			if progress != nil && prog.Keys%compactProgressEvery == 0 {
				progress(*prog)
			}
			if len(path) == 0 { // a top-level bucket
				b, err := tx.CreateBucket(k)
				if err != nil {
					return err
				}
				return b.SetSequence(seq)
			}
			b := tx.Bucket(path[0])
			for _, name := range path[1:] {
				b = b.Bucket(name)
			}
			// Keys arrive in order: full pages, as bbolt's own compaction.
			b.FillPercent = 1.0
			if v == nil { // a nested bucket
				nb, err := b.CreateBucket(k)
				if err != nil {
					return err
				}
				return nb.SetSequence(seq)
			}
			return b.Put(k, v)
		})
	})
	if err != nil {
		return err
	}
	if progress != nil {
		progress(*prog)
	}
	return tx.Commit()
}

// openChecked is bolt.Open, with a damaged page read while opening (the
// free list) turned into ErrDamaged.
func openChecked(path string, o *bolt.Options) (db *bolt.DB, err error) {
	defer func() {
		if r := recover(); r != nil {
			db, err = nil, fmt.Errorf("%w: %s: a damaged page (%v); it was left as it is", ErrDamaged, path, r)
		}
	}()
	return bolt.Open(path, 0o600, o)
}

// viewChecked is src.View, with a damaged page (on which bbolt panics)
// turned into ErrDamaged.
func viewChecked(src *bolt.DB, fn func(*bolt.Tx) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %s: a damaged page (%v); it was left as it is", ErrDamaged, src.Path(), r)
		}
	}()
	return src.View(fn)
}

// walkBuckets calls fn for every bucket (v nil, with its sequence) and key
// in tx, depth first, in key order; path names the bucket holding k.
func walkBuckets(tx *bolt.Tx, fn func(path [][]byte, k, v []byte, seq uint64) error) error {
	return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
		if err := fn(nil, name, nil, b.Sequence()); err != nil {
			return err
		}
		return walkBucket(b, [][]byte{name}, fn)
	})
}

func walkBucket(b *bolt.Bucket, path [][]byte, fn func(path [][]byte, k, v []byte, seq uint64) error) error {
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if v == nil {
			nb := b.Bucket(k)
			if err := fn(path, k, nil, nb.Sequence()); err != nil {
				return err
			}
			if err := walkBucket(nb, append(path[:len(path):len(path)], k), fn); err != nil {
				return err
			}
			continue
		}
		if err := fn(path, k, v, 0); err != nil {
			return err
		}
	}
	return nil
}

// removeCompactLeftover removes an awp.db.compact a crashed compaction
// left (Open calls it once it holds the store's lock).
func removeCompactLeftover(dir string) {
	_ = os.Remove(filepath.Join(dir, "awp.db"+compactSuffix))
}
