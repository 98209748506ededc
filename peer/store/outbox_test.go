package store

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/key/keytest"
)

// queue appends n lines to peer's outbox, alternating over ths, and returns
// the entries as written (Seq set). Their ids continue from the lines queued
// before in db, for any peer.
func (db *testDB) queue(peer key.PublicKey, ths []string, n int) []Out {
	db.t.Helper()
	var outs []Out
	db.update(func(tx *Tx) error {
		for i := 0; i < n; i++ {
			db.queued++
			next := db.queued
			o := Out{Th: ths[i%len(ths)], ID: testID(next), LineSeq: uint64(100 + next), Raw: []byte(fmt.Sprintf(`{"t":"msg","n":%d}`, next))}
			seq, err := tx.AppendOutbox(peer, o)
			if err != nil {
				return err
			}
			o.Seq = seq
			outs = append(outs, o)
		}
		return nil
	})
	return outs
}

func outboxIDs(t *testing.T, db *testDB, peer key.PublicKey) []string {
	t.Helper()
	var ids []string
	db.view(func(tx *Tx) error {
		outs, err := tx.Outbox(peer, 0, 1<<30)
		for _, o := range outs {
			ids = append(ids, o.ID)
		}
		return err
	})
	return ids
}

func TestOutboxAppendAndPage(t *testing.T) {
	db := mustOpen(t)
	p := keytest.NewPublic(t)
	want := db.queue(p, []string{"thr_a", "thr_b"}, 25)
	for i, o := range want {
		if o.Seq != uint64(i+1) {
			t.Fatalf("entry %d seq %d", i, o.Seq)
		}
	}
	db.reopen()
	// Page through by seq, 7 at a time.
	var got []Out
	var cursor uint64
	for {
		var page []Out
		db.view(func(tx *Tx) error {
			var err error
			page, err = tx.Outbox(p, cursor, 7)
			return err
		})
		if len(page) == 0 {
			break
		}
		if len(page) > 7 {
			t.Fatalf("page of %d", len(page))
		}
		got = append(got, page...)
		cursor = page[len(page)-1].Seq
	}
	if len(got) != len(want) {
		t.Fatalf("paged %d entries, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Seq != w.Seq || g.Th != w.Th || g.ID != w.ID || g.LineSeq != w.LineSeq || string(g.Raw) != string(w.Raw) {
			t.Fatalf("entry %d: got %+v want %+v", i, g, w)
		}
	}
	db.view(func(tx *Tx) error {
		if n := tx.OutboxLen(p); n != 25 {
			t.Fatalf("OutboxLen = %d", n)
		}
		for _, w := range want {
			os, ls, ok := tx.OutboxSeqOf(p, w.ID)
			if !ok || os != w.Seq || ls != w.LineSeq {
				t.Fatalf("OutboxSeqOf %s = %d %d %v", w.ID, os, ls, ok)
			}
		}
		if _, _, ok := tx.OutboxSeqOf(p, testID(999)); ok {
			t.Fatal("OutboxSeqOf of an unknown id")
		}
		if _, _, ok := tx.OutboxSeqOf(keytest.NewPublic(t), want[0].ID); ok {
			t.Fatal("OutboxSeqOf is not per peer")
		}
		if outs, err := tx.Outbox(keytest.NewPublic(t), 0, 10); err != nil || len(outs) != 0 {
			t.Fatalf("Outbox of an unknown peer: %v %v", outs, err)
		}
		return nil
	})
	// Chunk and mirror entries survive the round trip.
	db.update(func(tx *Tx) error {
		_, err := tx.AppendOutbox(p, Out{Th: "thr_a", ID: testID(500), Mirror: true,
			Chunk: &ChunkRef{TS: "2026-09-25T17:03:11Z", Ref: "blob_1", File: "blobs/out/x", Off: 524288, Len: 17, End: true}})
		return err
	})
	db.view(func(tx *Tx) error {
		outs, err := tx.Outbox(p, 25, 10)
		if err != nil || len(outs) != 1 {
			t.Fatalf("Outbox after 25: %v %v", outs, err)
		}
		o := outs[0]
		if o.Seq != 26 || !o.Mirror || o.Chunk == nil || *o.Chunk != (ChunkRef{TS: "2026-09-25T17:03:11Z", Ref: "blob_1", File: "blobs/out/x", Off: 524288, Len: 17, End: true}) {
			t.Fatalf("chunk entry: %+v %+v", o, o.Chunk)
		}
		return nil
	})
}

func TestAckOutbox(t *testing.T) {
	db := mustOpen(t)
	p, other := keytest.NewPublic(t), keytest.NewPublic(t)
	// a1 b1 a2 b2 a3 b3 ... for p; the same threads for other.
	outs := db.queue(p, []string{"thr_a", "thr_b"}, 10)
	otherOuts := db.queue(other, []string{"thr_a", "thr_b"}, 4)
	idsOf := func(th string, outs []Out) []string {
		var ids []string
		for _, o := range outs {
			if o.Th == th {
				ids = append(ids, o.ID)
			}
		}
		return ids
	}
	a := idsOf("thr_a", outs) // 5 ids
	b := idsOf("thr_b", outs)

	// Ack a[2]: a[0..2] leave, b and the other peer stay.
	db.update(func(tx *Tx) error {
		ls, ok, err := tx.AckOutbox(p, "thr_a", a[2])
		if err != nil || !ok || ls != outs[4].LineSeq {
			t.Fatalf("AckOutbox = %d %v %v, want line seq %d", ls, ok, err, outs[4].LineSeq)
		}
		return nil
	})
	db.reopen()
	want := append(append([]string{}, b...), a[3:]...)
	if got := outboxIDs(t, db, p); !sameSet(got, want) {
		t.Fatalf("after ack a[2]: %v, want %v", got, want)
	}
	if got := outboxIDs(t, db, other); len(got) != len(otherOuts) {
		t.Fatalf("other peer's outbox changed: %v", got)
	}
	db.view(func(tx *Tx) error {
		for _, id := range a[:3] {
			if _, _, ok := tx.OutboxSeqOf(p, id); ok {
				t.Fatalf("acked id %s still indexed", id)
			}
		}
		return nil
	})
	// The same ack again, and an ack of an unknown id, change nothing.
	db.update(func(tx *Tx) error {
		if _, ok, err := tx.AckOutbox(p, "thr_a", a[2]); ok || err != nil {
			t.Fatalf("repeated ack: %v %v", ok, err)
		}
		if _, ok, err := tx.AckOutbox(p, "thr_a", testID(999)); ok || err != nil {
			t.Fatalf("unknown ack: %v %v", ok, err)
		}
		return nil
	})
	if got := outboxIDs(t, db, p); !sameSet(got, want) {
		t.Fatalf("after no-op acks: %v", got)
	}
	// Acking an older id after a newer one is a no-op; acking the last of
	// thr_b empties it.
	db.update(func(tx *Tx) error {
		if _, ok, err := tx.AckOutbox(p, "thr_b", b[4]); !ok || err != nil {
			t.Fatalf("ack b[4]: %v %v", ok, err)
		}
		if _, ok, _ := tx.AckOutbox(p, "thr_b", b[1]); ok {
			t.Fatal("ack of an already acked older id reported ok")
		}
		return nil
	})
	if got := outboxIDs(t, db, p); !sameSet(got, a[3:]) {
		t.Fatalf("after ack b[4]: %v, want %v", got, a[3:])
	}
	// Crockford ids are case-insensitive: a lowercase of acks too.
	db.update(func(tx *Tx) error {
		if _, ok, err := tx.AckOutbox(p, "thr_a", strings.ToLower(a[4])); !ok || err != nil {
			t.Fatalf("lowercase ack: %v %v", ok, err)
		}
		return nil
	})
	if got := outboxIDs(t, db, p); len(got) != 0 {
		t.Fatalf("outbox not empty: %v", got)
	}
}

// TestAckOutboxOtherThreadsID: an ack names a thread and an id; an id that
// is queued in another thread must not ack lines of the named thread (the
// peer has not said it stored them).
func TestAckOutboxOtherThreadsID(t *testing.T) {
	db := mustOpen(t)
	p := keytest.NewPublic(t)
	outs := db.queue(p, []string{"thr_a", "thr_b"}, 6) // a1 b1 a2 b2 a3 b3
	db.update(func(tx *Tx) error {
		// thr_a, but of is b2 (outbox seq 4): a1 and a2 (seqs 1, 3) must stay.
		ls, ok, err := tx.AckOutbox(p, "thr_a", outs[3].ID)
		if err != nil {
			return err
		}
		if ok {
			t.Errorf("AckOutbox(thr_a, id of thr_b) = line seq %d, ok; want not ok", ls)
		}
		return nil
	})
	var want []string
	for _, o := range outs {
		want = append(want, o.ID)
	}
	if got := outboxIDs(t, db, p); !sameSet(got, want) {
		t.Fatalf("an ack naming thr_a with an id of thr_b removed lines: left %v, want all of %v", got, want)
	}
}

func TestDropOutbox(t *testing.T) {
	db := mustOpen(t)
	p := keytest.NewPublic(t)
	db.queue(p, []string{"thr_a"}, 4)
	var outs []Out
	db.view(func(tx *Tx) error {
		var err error
		outs, err = tx.Outbox(p, 0, 10)
		return err
	})
	db.update(func(tx *Tx) error { return tx.DropOutbox(p, outs[1]) })
	db.reopen()
	if got := outboxIDs(t, db, p); fmt.Sprint(got) != fmt.Sprint([]string{outs[0].ID, outs[2].ID, outs[3].ID}) {
		t.Fatalf("after drop: %v", got)
	}
	db.view(func(tx *Tx) error {
		if _, _, ok := tx.OutboxSeqOf(p, outs[1].ID); ok {
			t.Fatal("dropped id still indexed")
		}
		return nil
	})
	// A cumulative ack past the dropped entry still works and leaves the
	// per-thread index consistent.
	db.update(func(tx *Tx) error {
		if _, ok, err := tx.AckOutbox(p, "thr_a", outs[2].ID); !ok || err != nil {
			t.Fatalf("ack: %v %v", ok, err)
		}
		return nil
	})
	if got := outboxIDs(t, db, p); fmt.Sprint(got) != fmt.Sprint([]string{outs[3].ID}) {
		t.Fatalf("after ack: %v", got)
	}
	// Dropping an entry that is gone is not an error.
	db.update(func(tx *Tx) error { return tx.DropOutbox(p, outs[1]) })
	db.update(func(tx *Tx) error { return tx.DropOutbox(keytest.NewPublic(t), outs[1]) })
}

func TestOutboxPeers(t *testing.T) {
	db := mustOpen(t)
	p1, p2, p3 := keytest.NewPublic(t), keytest.NewPublic(t), keytest.NewPublic(t)
	o1 := db.queue(p1, []string{"thr_a"}, 3)
	db.queue(p2, []string{"thr_a"}, 1)
	db.view(func(tx *Tx) error {
		if got := tx.OutboxPeers(); !sameSet(got, []key.PublicKey{p1, p2}) {
			t.Fatalf("OutboxPeers = %v", got)
		}
		return nil
	})
	// p1 fully acked: no longer listed (its bucket remains, empty).
	db.update(func(tx *Tx) error {
		_, _, err := tx.AckOutbox(p1, "thr_a", o1[2].ID)
		return err
	})
	db.reopen()
	db.view(func(tx *Tx) error {
		if got := tx.OutboxPeers(); !sameSet(got, []key.PublicKey{p2}) {
			t.Fatalf("OutboxPeers after ack = %v", got)
		}
		if tx.OutboxLen(p1) != 0 || tx.OutboxLen(p3) != 0 {
			t.Fatal("OutboxLen of an empty outbox")
		}
		return nil
	})
}

// TestOutboxLenInWriteTx: OutboxLen and OutboxPeers inside a write
// transaction must count what that transaction queued or acked.
func TestOutboxLenInWriteTx(t *testing.T) {
	db := mustOpen(t)
	p1, p2 := keytest.NewPublic(t), keytest.NewPublic(t)
	o2 := db.queue(p2, []string{"thr_a"}, 2)
	db.update(func(tx *Tx) error {
		if _, err := tx.AppendOutbox(p1, Out{Th: "thr_a", ID: testID(100)}); err != nil {
			return err
		}
		if _, _, err := tx.AckOutbox(p2, "thr_a", o2[1].ID); err != nil {
			return err
		}
		if n := tx.OutboxLen(p1); n != 1 {
			t.Errorf("OutboxLen(p1) in the writing tx = %d, want 1", n)
		}
		if n := tx.OutboxLen(p2); n != 0 {
			t.Errorf("OutboxLen(p2) in the acking tx = %d, want 0", n)
		}
		if got := tx.OutboxPeers(); !sameSet(got, []key.PublicKey{p1}) {
			t.Errorf("OutboxPeers in the writing tx = %v, want only p1", got)
		}
		return nil
	})
}

// sameSet reports whether a and b hold the same elements, as many times
// each, in any order.
func sameSet[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[T]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
	}
	for _, v := range m {
		if v != 0 {
			return false
		}
	}
	return true
}

// The outbox's per-thread index is in memory: a transaction that fails
// leaves it as it was, changes are seen inside their own transaction, and a
// reopen rebuilds the same index from the outbox.
func TestOutboxIndexRollbackAndRebuild(t *testing.T) {
	db := mustOpen(t)
	p := keytest.NewPublic(t)
	outs := db.queue(p, []string{"thr_a"}, 4)
	boom := errors.New("boom")
	err := db.DB.Update(func(tx *Tx) error {
		if _, err := tx.AppendOutbox(p, Out{Th: "thr_a", ID: testID(900), LineSeq: 99, Raw: []byte(`{}`)}); err != nil {
			return err
		}
		// Seen inside the transaction: acking the new entry acks everything.
		if ls, ok, err := tx.AckOutbox(p, "thr_a", testID(900)); !ok || err != nil || ls < 99 {
			t.Fatalf("ack inside the appending tx = %d %v %v", ls, ok, err)
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update = %v", err)
	}
	if got := outboxIDs(t, db, p); len(got) != len(outs) {
		t.Fatalf("after a failed tx the outbox is %v", got)
	}
	if got := len(db.DB.out.list(outKey{p, "thr_a"})); got != len(outs) {
		t.Fatalf("after a failed tx the index holds %d entries, want %d", got, len(outs))
	}
	// Drop one in the middle, then ack past it: the ack still finds its id.
	db.update(func(tx *Tx) error {
		o, err := tx.Outbox(p, 0, 10)
		if err != nil || len(o) != 4 {
			t.Fatalf("Outbox = %v %v", o, err)
		}
		return tx.DropOutbox(p, o[1])
	})
	db.reopen()
	if got := len(db.DB.out.list(outKey{p, "thr_a"})); got != 3 {
		t.Fatalf("rebuilt index holds %d entries, want 3", got)
	}
	db.update(func(tx *Tx) error {
		if _, ok, err := tx.AckOutbox(p, "thr_a", outs[2].ID); !ok || err != nil {
			t.Fatalf("ack past a dropped entry: %v %v", ok, err)
		}
		return nil
	})
	if got := outboxIDs(t, db, p); len(got) != 1 || got[0] != outs[3].ID {
		t.Fatalf("after the ack: %v, want [%s]", got, outs[3].ID)
	}
}

// A line appended to my thread and queued in the same transaction is
// stored once: the outbox entry refers to the thread's line, and Outbox
// returns its bytes. Anything else keeps its own bytes.
func TestOutboxRefersToThreadLine(t *testing.T) {
	db := mustOpen(t)
	p := keytest.NewPublic(t)
	now := time.Now()
	tk := ThreadKey{NS: NSOwn, Peer: p, Th: "thr_ref"}
	line := []byte(`{"t":"msg","id":"` + testID(1) + `","th":"thr_ref","parts":[{"k":"text","text":"once"}]}`)
	other := []byte(`{"t":"msg","id":"` + testID(2) + `","th":"thr_ref","parts":[{"k":"text","text":"twice"}]}`)
	db.update(func(tx *Tx) error {
		tx.EnsureThread(tk, now)
		seq, err := tx.AppendLine(tk, Line{Dir: DirOut, From: p, Stored: now, Raw: line})
		if err != nil {
			return err
		}
		if _, err := tx.AppendOutbox(p, Out{Th: "thr_ref", ID: testID(1), LineSeq: seq, Raw: line}); err != nil {
			return err
		}
		// Same line seq but other bytes: not a reference.
		_, err = tx.AppendOutbox(p, Out{Th: "thr_ref", ID: testID(2), LineSeq: seq, Raw: other})
		return err
	})
	db.reopen()
	db.view(func(tx *Tx) error {
		ob := tx.btx.Bucket(bOutbox).Bucket(peerBytes(p))
		v1, v2 := ob.Get(u64(1)), ob.Get(u64(2))
		if len(v1) >= len(line) || v1[0]&outFlagRef == 0 {
			t.Fatalf("first entry is %d bytes (flags %x), want a reference", len(v1), v1[0])
		}
		if len(v2) < len(other) || v2[0]&outFlagRef != 0 {
			t.Fatalf("second entry is %d bytes (flags %x), want its own bytes", len(v2), v2[0])
		}
		outs, err := tx.Outbox(p, 0, 10)
		if err != nil || len(outs) != 2 {
			t.Fatalf("Outbox = %v, %v", outs, err)
		}
		if string(outs[0].Raw) != string(line) || string(outs[1].Raw) != string(other) {
			t.Fatalf("Outbox raw = %s / %s", outs[0].Raw, outs[1].Raw)
		}
		return nil
	})
}
