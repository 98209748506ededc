package store

import "encoding/binary"

// LinesLast calls fn for the last n lines of thread k (all of them when it
// holds fewer), oldest first, until fn returns false. It reads from the
// thread's end, so it costs n lines however long the thread is.
func (tx *Tx) LinesLast(k ThreadKey, n int, fn func(Line) bool) {
	if n <= 0 {
		return
	}
	b := tx.btx.Bucket(bLines).Bucket(k.bytes())
	if b == nil {
		return
	}
	type kv struct {
		seq uint64
		v   []byte
	}
	tail := make([]kv, 0, min(n, 1024))
	c := b.Cursor()
	for kk, v := c.Last(); kk != nil && len(tail) < n; kk, v = c.Prev() {
		if len(kk) == 8 && v != nil {
			tail = append(tail, kv{binary.BigEndian.Uint64(kk), v})
		}
	}
	for i := len(tail) - 1; i >= 0; i-- {
		l, ok := decodeLine(tail[i].seq, tail[i].v)
		if ok && !fn(l) {
			return
		}
	}
}
