package store

import (
	"encoding/binary"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/awp-tray/awp-tray/peer/key"
)

// Tx is one transaction with the store's domain methods. It is valid only
// inside the Update or View callback that received it; byte slices it
// returns are copies.
type Tx struct {
	db  *DB
	btx *bolt.Tx
	// threads caches thread records read or written in this transaction so
	// a batch of lines in one thread marshals the record once.
	threads map[string]*Thread
	dirty   map[string]bool

	// Memos for the common case of a batch in one thread with one peer.
	lastK  ThreadKey
	lastKB string // lastK.bytes()
	linesK ThreadKey
	linesB *bolt.Bucket // lines bucket of linesK
	// The line AppendLine stored last (in linesK), so the outbox can refer
	// to it instead of storing its bytes again.
	lastLineSeq uint64
	lastLineRaw []byte
	outPeer     key.PublicKey
	outB        *bolt.Bucket       // outbox bucket of outPeer
	outP        *outPend           // changes to the outbox index, applied at commit
	kbuf        [8]byte            // scratch for seq keys (bbolt copies keys it keeps)
	seen        map[seenKey]string // last id received per (peer, th), written at flush
	usage       map[key.PublicKey]Usage
	thrP        map[string]*Thread // thread records written (nil: deleted), for the cache at commit
	// err is the first storage error of a write made by a method that
	// returns none (EnsureThread's index entry); flush, which every
	// write transaction ends with, returns it, so the commit fails.
	err error
}

type seenKey struct {
	peer key.PublicKey
	th   string
}

func newTx(db *DB, btx *bolt.Tx) *Tx {
	return &Tx{db: db, btx: btx, threads: map[string]*Thread{}, dirty: map[string]bool{}}
}

// keyOf returns k.bytes() as a string, remembering the last key.
func (tx *Tx) keyOf(k ThreadKey) string {
	if tx.lastKB == "" || k != tx.lastK {
		tx.lastK, tx.lastKB = k, string(k.bytes())
	}
	return tx.lastKB
}

// Writable reports whether the transaction may write.
func (tx *Tx) Writable() bool { return tx.btx.Writable() }

// flush writes cached thread records back.
func (tx *Tx) flush() error {
	if tx.err != nil {
		return tx.err
	}
	if err := tx.flushUsage(); err != nil {
		return err
	}
	for k, id := range tx.seen {
		b, err := tx.sub(bSeen, peerBytes(k.peer))
		if err == nil {
			err = b.Put([]byte(k.th), []byte(id))
		}
		if err != nil {
			return fmt.Errorf("store: seen: %w", err)
		}
	}
	clear(tx.seen)
	b := tx.btx.Bucket(bThreads)
	for k := range tx.dirty {
		v, err := json.Marshal(tx.threads[k])
		if err != nil {
			return fmt.Errorf("store: thread: %w", err)
		}
		if err := b.Put([]byte(k), v); err != nil {
			return fmt.Errorf("store: thread: %w", err)
		}
		tx.noteThread(k, tx.threads[k])
	}
	clear(tx.dirty)
	return nil
}

// seqKey is u64 without an allocation, valid until the next call: only for
// keys bbolt does not keep (Put and Delete copy theirs).
func (tx *Tx) seqKey(n uint64) []byte {
	binary.BigEndian.PutUint64(tx.kbuf[:], n)
	return tx.kbuf[:]
}

func u64(n uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], n)
	return b[:]
}

func peerBytes(k key.PublicKey) []byte {
	r := k.Raw()
	return r[:]
}

// sub returns the nested bucket name under top, creating it when missing
// (in a read-only transaction bbolt refuses with ErrTxNotWritable).
func (tx *Tx) sub(top, name []byte) (*bolt.Bucket, error) {
	t := tx.btx.Bucket(top)
	if b := t.Bucket(name); b != nil {
		return b, nil
	}
	return t.CreateBucket(name)
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte(nil), b...)
}

// Setting returns the stored value of a setting (nil when unset).
func (tx *Tx) Setting(name string) []byte {
	return clone(tx.btx.Bucket(bSettings).Get([]byte(name)))
}

// PutSetting stores a setting; a nil value deletes it.
func (tx *Tx) PutSetting(name string, v []byte) error {
	b := tx.btx.Bucket(bSettings)
	if v == nil {
		return b.Delete([]byte(name))
	}
	return b.Put([]byte(name), v)
}

// Meta returns a stored meta value (nil when unset).
func (tx *Tx) Meta(name string) []byte { return clone(tx.btx.Bucket(bMeta).Get([]byte(name))) }

// PutMeta stores a meta value.
func (tx *Tx) PutMeta(name string, v []byte) error { return tx.btx.Bucket(bMeta).Put([]byte(name), v) }
