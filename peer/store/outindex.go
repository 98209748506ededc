package store

import (
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/awp-tray/awp-tray/peer/key"
	bolt "go.etcd.io/bbolt"
)

// The outbox's per-thread index lives in memory (rebuilt from the outbox
// when the store opens): acks are cumulative per thread, so an ack removes
// a prefix of its thread's queued entries, found here without a scan of
// the outbox. Changes a transaction makes are kept aside (outPend) and
// applied only when it commits; DB.Update holds wmu throughout, so no other
// transaction sees the index in between.

type outKey struct {
	peer key.PublicKey
	th   string
}

type outRef struct {
	seq     uint64
	id      string
	lineSeq uint64
	dropped bool // removed out of order (DropOutbox) in this transaction
}

// outList is one thread's queued entries in outbox order, from head.
type outList struct {
	refs []outRef
	head int
}

type outIndex struct {
	lists map[outKey]*outList
}

func (x *outIndex) list(k outKey) []outRef {
	if l := x.lists[k]; l != nil {
		return l.refs[l.head:]
	}
	return nil
}

// outPend is what one transaction changes in the index.
type outPend struct {
	adds  map[outKey][]outRef
	pops  map[outKey]int             // entries removed from the front (committed ones first, then adds)
	drops map[outKey]map[uint64]bool // entries removed out of order
}

func (tx *Tx) outPending() *outPend {
	if tx.outP == nil {
		tx.outP = &outPend{adds: map[outKey][]outRef{}, pops: map[outKey]int{}, drops: map[outKey]map[uint64]bool{}}
	}
	return tx.outP
}

func (p *outPend) add(k outKey, r outRef) { p.adds[k] = append(p.adds[k], r) }

func (p *outPend) drop(k outKey, seq uint64) {
	if p.drops[k] == nil {
		p.drops[k] = map[uint64]bool{}
	}
	p.drops[k][seq] = true
}

// each calls fn for the entries of k still queued as this transaction sees
// them (committed, then added here; those dropped here marked), in order,
// until fn returns false.
func (p *outPend) each(committed []outRef, k outKey, fn func(outRef) bool) {
	skip := p.pops[k]
	drops := p.drops[k]
	for _, part := range [2][]outRef{committed, p.adds[k]} {
		for _, r := range part {
			if skip > 0 {
				skip--
				continue
			}
			if drops[r.seq] {
				r.dropped = true
			}
			if !fn(r) {
				return
			}
		}
	}
}

// apply makes a committed transaction's changes part of the index.
func (x *outIndex) apply(p *outPend) {
	touched := map[outKey]bool{}
	for k := range p.adds {
		touched[k] = true
	}
	for k := range p.pops {
		touched[k] = true
	}
	for k := range p.drops {
		touched[k] = true
	}
	for k := range touched {
		l := x.lists[k]
		if l == nil {
			l = &outList{}
			x.lists[k] = l
		}
		l.refs = append(l.refs, p.adds[k]...)
		l.head += p.pops[k]
		if d := p.drops[k]; len(d) > 0 {
			kept := l.refs[:l.head]
			for _, r := range l.refs[l.head:] {
				if !d[r.seq] {
					kept = append(kept, r)
				}
			}
			l.refs = kept
		}
		if l.head >= len(l.refs) {
			delete(x.lists, k)
		} else if l.head > 1024 && l.head > len(l.refs)/2 {
			l.refs = append([]outRef(nil), l.refs[l.head:]...)
			l.head = 0
		}
	}
}

// loadOutIndex builds the index from every outbox.
func loadOutIndex(btx *bolt.Tx) (*outIndex, error) {
	x := &outIndex{lists: map[outKey]*outList{}}
	top := btx.Bucket(bOutbox)
	err := top.ForEachBucket(func(pk []byte) error {
		peer, err := key.PublicFromBytes(pk)
		if err != nil {
			return nil // not a peer bucket
		}
		c := top.Bucket(pk).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			th, id, ls, err := decodeOutHeader(v)
			if err != nil || len(k) != 8 {
				return fmt.Errorf("%w at %x", errOutRecord, k)
			}
			ok := outKey{peer, th}
			l := x.lists[ok]
			if l == nil {
				l = &outList{}
				x.lists[ok] = l
			}
			l.refs = append(l.refs, outRef{seq: binary.BigEndian.Uint64(k), id: id, lineSeq: ls})
		}
		return nil
	})
	return x, err
}

// decodeOutHeader reads an outbox record's thread, id and line seq.
func decodeOutHeader(v []byte) (th, id string, lineSeq uint64, err error) {
	r := reader{b: v}
	r.byte()
	th = string(r.bytes(int(r.byte())))
	id = string(r.bytes(int(r.byte())))
	lineSeq = r.u64()
	if r.bad {
		return "", "", 0, errOutRecord
	}
	return th, id, lineSeq, nil
}

// OutboxSeqIn returns the outbox seq of line id queued for peer in thread
// th, from the in-memory index: a binary search, since a thread's queued
// lines have increasing ids, else a scan of the thread's entries.
func (db *DB) OutboxSeqIn(peer key.PublicKey, th, id string) (uint64, bool) {
	db.wmu.Lock()
	defer db.wmu.Unlock()
	refs := db.out.list(outKey{peer, th})
	i := sort.Search(len(refs), func(i int) bool { return upperCmp(refs[i].id, id) >= 0 })
	if i < len(refs) && upperCmp(refs[i].id, id) == 0 {
		return refs[i].seq, true
	}
	for _, r := range refs {
		if upperCmp(r.id, id) == 0 {
			return r.seq, true
		}
	}
	return 0, false
}
