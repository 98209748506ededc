package store

import (
	"errors"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/key/keytest"
)

// simOut is the model of one outbox entry.
type simOut struct {
	seq     uint64
	th, id  string
	lineSeq uint64
	raw     string
}

// simModel is the in-memory model the randomized simulation checks the
// store against.
type simModel struct {
	outbox   map[int][]simOut          // peer → entries in seq order
	nextSeq  map[int]uint64            // peer → last outbox seq handed out
	received map[int]map[string]bool   // peer → ids received
	seen     map[int]map[string]string // peer → th → last id
	lines    map[string][]string       // thread key → raws in order
}

func newSimModel() *simModel {
	return &simModel{outbox: map[int][]simOut{}, nextSeq: map[int]uint64{}, received: map[int]map[string]bool{},
		seen: map[int]map[string]string{}, lines: map[string][]string{}}
}

func (m *simModel) clone() *simModel {
	c := newSimModel()
	for p, o := range m.outbox {
		c.outbox[p] = append([]simOut(nil), o...)
	}
	for p, n := range m.nextSeq {
		c.nextSeq[p] = n
	}
	for p, r := range m.received {
		c.received[p] = map[string]bool{}
		for k, v := range r {
			c.received[p][k] = v
		}
	}
	for p, s := range m.seen {
		c.seen[p] = map[string]string{}
		for k, v := range s {
			c.seen[p][k] = v
		}
	}
	for k, l := range m.lines {
		c.lines[k] = append([]string(nil), l...)
	}
	return c
}

func simThreadName(p int, th string) string { return fmt.Sprint(p, "/", th) }

// TestStoreSimulation runs seeded random operations (queue outbound lines,
// ack, drop, receive inbound lines, replay duplicates) over a few peers and
// threads, in random batches, some rolled back, with random restarts, and
// checks the store against the model after every batch.
func TestStoreSimulation(t *testing.T) {
	const (
		nPeers   = 3
		nThreads = 4
		nOps     = 2000
	)
	for _, seed := range []int64{1, 2, 3} {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			// The simulation checks logic, not durability: skip fsync.
			db := mustOpenOpts(t, t.TempDir(), Options{NoSync: true})
			me := keytest.NewPublic(t)
			peers := make([]key.PublicKey, nPeers)
			for i := range peers {
				peers[i] = keytest.NewPublic(t)
			}
			ths := make([]string, nThreads)
			for i := range ths {
				ths[i] = fmt.Sprintf("thr_sim%d", i)
			}
			m := newSimModel()
			idn := 0
			now := time.Date(2026, 9, 25, 17, 0, 0, 0, time.UTC)
			var receivedIDs [nPeers][]recvID
			ops, batches, rollbacks, restarts := 0, 0, 0, 0
			for ops < nOps {
				work := m.clone()
				var workRecv [nPeers][]recvID
				for i := range workRecv {
					workRecv[i] = append([]recvID(nil), receivedIDs[i]...)
				}
				size := 1 + rng.Intn(12)
				abort := rng.Intn(10) == 0
				err := db.Update(func(tx *Tx) error {
					for i := 0; i < size; i++ {
						if err := simStep(t, tx, rng, work, peers, ths, me, &idn, now, workRecv[:]); err != nil {
							return err
						}
					}
					if abort {
						return errRollback
					}
					return nil
				})
				ops += size
				batches++
				switch {
				case abort && errors.Is(err, errRollback):
					rollbacks++ // the model stays as it was
				case err != nil:
					t.Fatalf("batch %d: %v", batches, err)
				default:
					m = work
					receivedIDs = workRecv
				}
				if rng.Intn(20) == 0 {
					db.reopen()
					restarts++
				}
				simCheck(t, db, m, peers, ths, receivedIDs[:], batches)
			}
			t.Logf("%d ops in %d batches, %d rolled back, %d restarts", ops, batches, rollbacks, restarts)
		})
	}
}

// simStep applies one random operation to the store and to the model.
func simStep(t *testing.T, tx *Tx, rng *rand.Rand, m *simModel, peers []key.PublicKey, ths []string, me key.PublicKey,
	idn *int, now time.Time, recv [][]recvID) error {
	p := rng.Intn(len(peers))
	peer := peers[p]
	th := ths[rng.Intn(len(ths))]
	tk := ThreadKey{NS: NSOwn, Peer: peer, Th: th}
	tname := simThreadName(p, th)
	switch r := rng.Intn(100); {
	case r < 35: // queue an outbound line: thread line + outbox entry
		*idn++
		id := testID(*idn)
		raw := fmt.Sprintf(`{"t":"msg","id":"%s","th":"%s"}`, id, th)
		tx.EnsureThread(tk, now)
		ls, err := tx.AppendLine(tk, Line{Dir: DirOut, From: me, Stored: now, Raw: []byte(raw)})
		if err != nil {
			return err
		}
		seq, err := tx.AppendOutbox(peer, Out{Th: th, ID: id, LineSeq: ls, Raw: []byte(raw)})
		if err != nil {
			return err
		}
		m.lines[tname] = append(m.lines[tname], raw)
		if ls != uint64(len(m.lines[tname])) {
			t.Fatalf("line seq %d, model has %d lines", ls, len(m.lines[tname]))
		}
		m.nextSeq[p]++
		if seq != m.nextSeq[p] {
			t.Fatalf("outbox seq %d, model %d", seq, m.nextSeq[p])
		}
		m.outbox[p] = append(m.outbox[p], simOut{seq: seq, th: th, id: id, lineSeq: ls, raw: raw})
	case r < 55: // cumulative ack of a queued line (or of one already gone)
		q := m.outbox[p]
		if len(q) == 0 {
			return nil
		}
		e := q[rng.Intn(len(q))]
		ls, ok, err := tx.AckOutbox(peer, e.th, e.id)
		if err != nil {
			return err
		}
		if !ok || ls != e.lineSeq {
			t.Fatalf("ack %s: %d %v, want line seq %d", e.id, ls, ok, e.lineSeq)
		}
		kept := q[:0:0]
		for _, o := range q {
			if o.th != e.th || o.seq > e.seq {
				kept = append(kept, o)
			}
		}
		m.outbox[p] = kept
		// The same ack again is a no-op.
		if _, ok, _ := tx.AckOutbox(peer, e.th, e.id); ok {
			t.Fatalf("repeated ack of %s reported ok", e.id)
		}
	case r < 60: // drop one queued entry
		q := m.outbox[p]
		if len(q) == 0 {
			return nil
		}
		i := rng.Intn(len(q))
		e := q[i]
		if err := tx.DropOutbox(peer, Out{Seq: e.seq, Th: e.th, ID: e.id}); err != nil {
			return err
		}
		m.outbox[p] = append(q[:i:i], q[i+1:]...)
	case r < 90: // receive an inbound line
		*idn++
		id := testID(*idn)
		if tx.Received(peer, th, id) {
			t.Fatalf("fresh id %s already received", id)
		}
		raw := fmt.Sprintf(`{"t":"msg","id":"%s","th":"%s","in":1}`, id, th)
		tx.EnsureThread(tk, now)
		if _, err := tx.AppendLine(tk, Line{Dir: DirIn, From: peer, Stored: now, Raw: []byte(raw)}); err != nil {
			return err
		}
		if err := tx.MarkReceived(peer, th, id); err != nil {
			return err
		}
		m.lines[tname] = append(m.lines[tname], raw)
		if m.received[p] == nil {
			m.received[p] = map[string]bool{}
			m.seen[p] = map[string]string{}
		}
		m.received[p][id] = true
		m.seen[p][th] = id
		recv[p] = append(recv[p], recvID{id, th})
	default: // a replayed duplicate: dedupe says received, nothing is stored
		if len(recv[p]) == 0 {
			return nil
		}
		r := recv[p][rng.Intn(len(recv[p]))]
		id, th := r.id, r.th
		if !tx.Received(peer, th, id) {
			t.Fatalf("received id %s not deduped", id)
		}
		if got, want := tx.LastSeen(peer, th), m.seen[p][th]; got != want {
			t.Fatalf("LastSeen in tx = %q, want %q", got, want)
		}
	}
	return nil
}

// simCheck compares the whole store with the model.
func simCheck(t *testing.T, db *testDB, m *simModel, peers []key.PublicKey, ths []string, recv [][]recvID, batch int) {
	t.Helper()
	db.view(func(tx *Tx) error {
		var withOut []key.PublicKey
		for p, peer := range peers {
			outs, err := tx.Outbox(peer, 0, 1<<30)
			if err != nil {
				return err
			}
			want := m.outbox[p]
			if len(outs) != len(want) {
				t.Fatalf("batch %d peer %d: outbox has %d entries, model %d", batch, p, len(outs), len(want))
			}
			for i, o := range outs {
				w := want[i]
				if o.Seq != w.seq || o.Th != w.th || o.ID != w.id || o.LineSeq != w.lineSeq || string(o.Raw) != w.raw {
					t.Fatalf("batch %d peer %d entry %d: %+v, model %+v", batch, p, i, o, w)
				}
				if os, ls, ok := tx.OutboxSeqOf(peer, w.id); !ok || os != w.seq || ls != w.lineSeq {
					t.Fatalf("batch %d: OutboxSeqOf %s = %d %d %v", batch, w.id, os, ls, ok)
				}
			}
			if len(want) > 0 {
				withOut = append(withOut, peer)
			}
			if n := tx.OutboxLen(peer); n != len(want) {
				t.Fatalf("batch %d peer %d: OutboxLen %d, model %d", batch, p, n, len(want))
			}
			// The per-thread index holds exactly the queued entries.
			for _, th := range ths {
				var idx []uint64
				for _, r := range tx.db.out.list(outKey{peer, th}) {
					idx = append(idx, r.seq)
				}
				var wantIdx []uint64
				for _, w := range want {
					if w.th == th {
						wantIdx = append(wantIdx, w.seq)
					}
				}
				if fmt.Sprint(idx) != fmt.Sprint(wantIdx) {
					t.Fatalf("batch %d peer %d %s: per-thread index %v, model %v", batch, p, th, idx, wantIdx)
				}
			}
			seen := tx.SeenMap(peer)
			wantSeen := m.seen[p]
			if len(seen) != len(wantSeen) {
				t.Fatalf("batch %d peer %d: SeenMap %v, model %v", batch, p, seen, wantSeen)
			}
			for th, id := range wantSeen {
				if seen[th] != id || tx.LastSeen(peer, th) != id {
					t.Fatalf("batch %d peer %d: seen %s = %q, model %q", batch, p, th, seen[th], id)
				}
			}
			for _, r := range recv[p] {
				if !tx.Received(peer, r.th, r.id) {
					t.Fatalf("batch %d peer %d: %s not received", batch, p, r.id)
				}
			}
			for q := range peers { // dedupe is per peer: ids newer than p's last in the thread are new
				if q == p {
					continue
				}
				for _, r := range recv[q] {
					if last := m.seen[p][r.th]; r.id > last && tx.Received(peer, r.th, r.id) {
						t.Fatalf("batch %d: %s from peer %d counts as received from peer %d", batch, r.id, q, p)
					}
				}
			}
			for _, th := range ths {
				tk := ThreadKey{NS: NSOwn, Peer: peer, Th: th}
				want := m.lines[simThreadName(p, th)]
				var got []string
				tx.Lines(tk, 0, func(l Line) bool { got = append(got, string(l.Raw)); return true })
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("batch %d peer %d %s: lines %d, model %d", batch, p, th, len(got), len(want))
				}
				rec, ok := tx.Thread(tk)
				if ok != (len(want) > 0) || (ok && rec.LastSeq != uint64(len(want))) {
					t.Fatalf("batch %d peer %d %s: thread record %+v %v, model %d lines", batch, p, th, rec, ok, len(want))
				}
				if len(want) > 0 {
					i := len(want) / 2
					if l, ok := tx.LineAt(tk, uint64(i+1)); !ok || string(l.Raw) != want[i] {
						t.Fatalf("batch %d: LineAt %d wrong", batch, i+1)
					}
				}
			}
		}
		if got := tx.OutboxPeers(); !sameSet(got, withOut) {
			t.Fatalf("batch %d: OutboxPeers %d peers, model %d", batch, len(got), len(withOut))
		}
		n := 0
		if err := tx.Threads(func(ThreadKey, *Thread) bool { n++; return true }); err != nil {
			return err
		}
		if n != len(m.lines) {
			t.Fatalf("batch %d: %d threads, model %d", batch, n, len(m.lines))
		}
		return nil
	})
}

// recvID is an inbound line the simulation stored.
type recvID struct{ id, th string }
