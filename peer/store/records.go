package store

import (
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// The peers, grants and blobs buckets hold one JSON record a key; these
// read and write them for the typed methods (Peer, PutGrant, Blobs, ...).

// getRecord decodes the record under k in b; ok is false when there is
// none or it does not decode.
func getRecord[T any](b *bolt.Bucket, k []byte) (*T, bool) {
	v := b.Get(k)
	if v == nil {
		return nil, false
	}
	r := new(T)
	if json.Unmarshal(v, r) != nil {
		return nil, false
	}
	return r, true
}

// putRecord stores r under k in b; op names the operation in the error
// when r does not encode ("put peer").
func putRecord(b *bolt.Bucket, k []byte, r any, op string) error {
	v, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("store: %s: %w", op, err)
	}
	return b.Put(k, v)
}

// eachRecord calls fn for every record in b, in key order, until it
// returns false; a record that does not decode is skipped.
func eachRecord[T any](b *bolt.Bucket, fn func(*T) bool) {
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		r := new(T)
		if json.Unmarshal(v, r) == nil && !fn(r) {
			return
		}
	}
}
