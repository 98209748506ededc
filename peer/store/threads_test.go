package store

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/key/keytest"
)

func TestThreadsLifecycle(t *testing.T) {
	db := mustOpen(t)
	p1, p2 := keytest.NewPublic(t), keytest.NewPublic(t)
	now := time.Date(2026, 9, 25, 17, 3, 11, 0, time.UTC)
	a := ThreadKey{NS: NSOwn, Peer: p1, Th: "thr_aaaa"}
	b := ThreadKey{NS: NSOwn, Peer: p2, Th: "thr_aaaa"} // same th with another peer
	m := ThreadKey{NS: NSMirrored, Peer: p1, Th: "thr_aaaa"}
	c := ThreadKey{NS: NSOwn, Peer: p1, Th: "thr_cccc"}

	db.update(func(tx *Tx) error {
		for i, k := range []ThreadKey{a, b, m, c} {
			th, created := tx.EnsureThread(k, now)
			if !created || th.Th != k.Th || !th.Created.Equal(now) {
				t.Fatalf("EnsureThread %d: %+v created=%v", i, th, created)
			}
			th.Subject = fmt.Sprint("subject ", i)
		}
		if _, created := tx.EnsureThread(a, now.Add(time.Hour)); created {
			t.Fatal("second EnsureThread created again")
		}
		// Threads inside the same write transaction sees the new records.
		n := 0
		if err := tx.Threads(func(ThreadKey, *Thread) bool { n++; return true }); err != nil {
			return err
		}
		if n != 4 {
			t.Fatalf("Threads in the creating tx: %d, want 4", n)
		}
		return nil
	})

	// A change after the creating transaction needs Touch.
	db.update(func(tx *Tx) error {
		th, ok := tx.Thread(c)
		if !ok {
			t.Fatal("thread c missing")
		}
		th.Mine = "working"
		th.Unread = 3
		tx.Touch(c)
		return nil
	})
	db.reopen()

	db.view(func(tx *Tx) error {
		th, ok := tx.Thread(c)
		if !ok || th.Mine != "working" || th.Unread != 3 || th.Subject != "subject 3" {
			t.Fatalf("thread c after reopen: %+v %v", th, ok)
		}
		got := tx.FindThreads("thr_aaaa")
		if len(got) != 3 || !slices.Contains(got, a) || !slices.Contains(got, b) || !slices.Contains(got, m) {
			t.Fatalf("FindThreads(thr_aaaa) = %v", got)
		}
		// The index is by exact th: a prefix of another th must not match.
		if got := tx.FindThreads("thr_aaa"); len(got) != 0 {
			t.Fatalf("FindThreads(thr_aaa) = %v, want none", got)
		}
		if got := tx.FindThreads("thr_cccc"); len(got) != 1 || got[0] != c {
			t.Fatalf("FindThreads(thr_cccc) = %v", got)
		}
		var keys []ThreadKey
		if err := tx.Threads(func(k ThreadKey, th *Thread) bool {
			if th.Th != k.Th {
				t.Errorf("record th %q under key th %q", th.Th, k.Th)
			}
			keys = append(keys, k)
			return true
		}); err != nil {
			return err
		}
		if len(keys) != 4 {
			t.Fatalf("Threads = %v, want 4 (the index bucket must be skipped)", keys)
		}
		n := 0
		_ = tx.Threads(func(ThreadKey, *Thread) bool { n++; return false })
		if n != 1 {
			t.Fatalf("Threads did not stop when fn returned false: %d calls", n)
		}
		return nil
	})

	// DeleteThread removes the record, its index entry and its lines only.
	db.update(func(tx *Tx) error {
		for i := 0; i < 3; i++ {
			if _, err := tx.AppendLine(a, Line{Dir: DirIn, From: p1, Stored: now, Raw: []byte(`{"t":"msg"}`)}); err != nil {
				return err
			}
			if _, err := tx.AppendLine(b, Line{Dir: DirIn, From: p2, Stored: now, Raw: []byte(`{"t":"msg"}`)}); err != nil {
				return err
			}
		}
		return nil
	})
	db.update(func(tx *Tx) error { return tx.DeleteThread(a) })
	db.reopen()
	db.view(func(tx *Tx) error {
		if _, ok := tx.Thread(a); ok {
			t.Fatal("deleted thread still has a record")
		}
		if _, ok := tx.LineAt(a, 1); ok {
			t.Fatal("deleted thread still has lines")
		}
		got := tx.FindThreads("thr_aaaa")
		if len(got) != 2 || slices.Contains(got, a) {
			t.Fatalf("FindThreads after delete = %v", got)
		}
		n := 0
		tx.Lines(b, 0, func(Line) bool { n++; return true })
		if n != 3 {
			t.Fatalf("other thread's lines: %d, want 3", n)
		}
		return nil
	})
	// The deleted thread can be created again.
	db.update(func(tx *Tx) error {
		if _, created := tx.EnsureThread(a, now); !created {
			t.Fatal("EnsureThread after delete did not create")
		}
		return nil
	})
	db.view(func(tx *Tx) error {
		if got := tx.FindThreads("thr_aaaa"); len(got) != 3 {
			t.Fatalf("FindThreads after re-create = %v", got)
		}
		return nil
	})
}

func TestLinesInOrder(t *testing.T) {
	db := mustOpen(t)
	p := keytest.NewPublic(t)
	me := keytest.NewPublic(t)
	k := ThreadKey{NS: NSOwn, Peer: p, Th: "thr_lines"}
	base := time.Date(2026, 9, 25, 17, 0, 0, 0, time.UTC)
	const n = 50
	for batch := 0; batch < 5; batch++ {
		db.update(func(tx *Tx) error {
			tx.EnsureThread(k, base)
			for i := batch * 10; i < batch*10+10; i++ {
				from, dir := p, DirIn
				if i%3 == 0 {
					from, dir = me, DirOut
				}
				seq, err := tx.AppendLine(k, Line{Dir: dir, From: from, Stored: base.Add(time.Duration(i) * time.Millisecond),
					Flags: byte(i % 2), Raw: []byte(fmt.Sprintf(`{"t":"msg","n":%d}`, i))})
				if err != nil {
					return err
				}
				if seq != uint64(i+1) {
					t.Fatalf("line %d got seq %d", i, seq)
				}
			}
			return nil
		})
		if batch == 2 {
			db.reopen()
		}
	}
	db.reopen()
	db.view(func(tx *Tx) error {
		th, ok := tx.Thread(k)
		if !ok || th.LastSeq != n {
			t.Fatalf("thread LastSeq: %+v", th)
		}
		var got []Line
		tx.Lines(k, 0, func(l Line) bool { got = append(got, l); return true })
		if len(got) != n {
			t.Fatalf("%d lines, want %d", len(got), n)
		}
		for i, l := range got {
			want := fmt.Sprintf(`{"t":"msg","n":%d}`, i)
			if l.Seq != uint64(i+1) || string(l.Raw) != want || l.Flags != byte(i%2) ||
				!l.Stored.Equal(base.Add(time.Duration(i)*time.Millisecond)) {
				t.Fatalf("line %d: %+v", i, l)
			}
			wantFrom, wantDir := p, DirIn
			if i%3 == 0 {
				wantFrom, wantDir = me, DirOut
			}
			if l.From != wantFrom || l.Dir != wantDir {
				t.Fatalf("line %d from/dir: %v %d", i, l.From.Short(), l.Dir)
			}
		}
		var after []uint64
		tx.Lines(k, 45, func(l Line) bool { after = append(after, l.Seq); return true })
		if fmt.Sprint(after) != "[46 47 48 49 50]" {
			t.Fatalf("Lines after 45: %v", after)
		}
		calls := 0
		tx.Lines(k, 0, func(Line) bool { calls++; return calls < 3 })
		if calls != 3 {
			t.Fatalf("Lines did not stop: %d calls", calls)
		}
		l, ok := tx.LineAt(k, 7)
		if !ok || l.Seq != 7 || string(l.Raw) != `{"t":"msg","n":6}` {
			t.Fatalf("LineAt 7: %+v %v", l, ok)
		}
		for _, seq := range []uint64{0, n + 1} {
			if _, ok := tx.LineAt(k, seq); ok {
				t.Fatalf("LineAt %d found a line", seq)
			}
		}
		if _, ok := tx.LineAt(ThreadKey{Peer: p, Th: "thr_none"}, 1); ok {
			t.Fatal("LineAt in a missing thread found a line")
		}
		return nil
	})
}

func TestDedupeAndSeen(t *testing.T) {
	db := mustOpen(t)
	p1, p2 := keytest.NewPublic(t), keytest.NewPublic(t)
	db.view(func(tx *Tx) error {
		if tx.Received(p1, "thr_a", testID(1)) || tx.LastSeen(p1, "thr_a") != "" || len(tx.SeenMap(p1)) != 0 {
			t.Fatal("fresh store reports something received")
		}
		return nil
	})
	db.update(func(tx *Tx) error {
		for i, th := range []string{"thr_a", "thr_a", "thr_b"} {
			if err := tx.MarkReceived(p1, th, testID(i+1)); err != nil {
				return err
			}
		}
		// Visible inside the same transaction.
		if !tx.Received(p1, "thr_b", testID(3)) || !tx.Received(p1, "thr_a", testID(2)) {
			t.Fatal("Received false in the marking transaction")
		}
		return tx.MarkReceived(p2, "thr_a", testID(9))
	})
	db.reopen()
	db.view(func(tx *Tx) error {
		// A line is a duplicate when its id is not after the last one of
		// its thread (ids of a sender increase; a thread arrives in order).
		for i, th := range []string{"thr_a", "thr_a", "thr_b"} {
			if !tx.Received(p1, th, testID(i+1)) {
				t.Fatalf("id %d not received in %s", i+1, th)
			}
		}
		if tx.Received(p1, "thr_a", testID(3)) || tx.Received(p1, "thr_b", testID(4)) || tx.Received(p1, "thr_c", testID(1)) {
			t.Fatal("a newer id, or one in a thread never seen, counts as received")
		}
		// Crockford ids are case-insensitive.
		lower := "01j9zx" + testID(2)[6:]
		if !tx.Received(p1, "thr_a", lower) {
			t.Fatal("lowercase id not recognized")
		}
		if tx.Received(p2, "thr_b", testID(1)) || tx.Received(p1, "thr_a", testID(9)) || !tx.Received(p2, "thr_a", testID(9)) {
			t.Fatal("dedupe is not per peer")
		}
		if got := tx.LastSeen(p1, "thr_a"); got != testID(2) {
			t.Fatalf("LastSeen thr_a = %q", got)
		}
		if got := tx.LastSeen(p1, "thr_c"); got != "" {
			t.Fatalf("LastSeen thr_c = %q", got)
		}
		m := tx.SeenMap(p1)
		if len(m) != 2 || m["thr_a"] != testID(2) || m["thr_b"] != testID(3) {
			t.Fatalf("SeenMap p1 = %v", m)
		}
		if m := tx.SeenMap(p2); len(m) != 1 || m["thr_a"] != testID(9) {
			t.Fatalf("SeenMap p2 = %v", m)
		}
		return nil
	})
}

func TestPeersGrantsSettings(t *testing.T) {
	db := mustOpen(t)
	var keys []string
	now := time.Date(2026, 9, 25, 17, 0, 0, 0, time.UTC)
	db.update(func(tx *Tx) error {
		for i := 0; i < 3; i++ {
			k := keytest.NewPublic(t).String()
			keys = append(keys, k)
			if err := tx.PutPeer(&Peer{Key: k, Name: fmt.Sprint("p", i), Trusted: i == 1, Listen: []string{"tcp://127.0.0.1:1"},
				Caps: []string{"chat"}, FirstSeen: now, LastSeen: now}); err != nil {
				return err
			}
		}
		if err := tx.PutPeer(&Peer{Key: "ed25519:nope"}); err == nil {
			t.Fatal("PutPeer with a bad key succeeded")
		}
		for i := 0; i < 3; i++ {
			g := &GrantRec{ID: fmt.Sprint("g", i), Raw: []byte(fmt.Sprintf(`{"n":%d}`, i)), Exp: now.Add(time.Hour), Issued: i == 0, Stored: now}
			if err := tx.PutGrant(g); err != nil {
				return err
			}
		}
		if err := tx.PutSetting("accept", []byte("known")); err != nil {
			return err
		}
		if err := tx.PutSetting("gone", []byte("x")); err != nil {
			return err
		}
		return tx.PutMeta("last_id", []byte(testID(5)))
	})
	db.update(func(tx *Tx) error {
		if err := tx.DeleteGrant("g1"); err != nil {
			return err
		}
		return tx.PutSetting("gone", nil)
	})
	db.reopen()
	db.view(func(tx *Tx) error {
		p, ok := tx.Peer(keytest.NewPublic(t))
		if ok || p != nil {
			t.Fatal("unknown peer found")
		}
		k1, err := key.ParsePublic(keys[1])
		if err != nil {
			return err
		}
		p, ok = tx.Peer(k1)
		if !ok || p.Name != "p1" || !p.Trusted || !p.FirstSeen.Equal(now) || len(p.Listen) != 1 {
			t.Fatalf("peer 1: %+v", p)
		}
		var names []string
		tx.Peers(func(p *Peer) bool { names = append(names, p.Name); return true })
		sort.Strings(names)
		if fmt.Sprint(names) != "[p0 p1 p2]" {
			t.Fatalf("Peers = %v", names)
		}
		if _, ok := tx.Grant("g1"); ok {
			t.Fatal("deleted grant found")
		}
		g, ok := tx.Grant("g0")
		if !ok || !g.Issued || string(g.Raw) != `{"n":0}` || !g.Exp.Equal(now.Add(time.Hour)) {
			t.Fatalf("grant g0: %+v", g)
		}
		var ids []string
		tx.Grants(func(g *GrantRec) bool { ids = append(ids, g.ID); return true })
		if fmt.Sprint(ids) != "[g0 g2]" {
			t.Fatalf("Grants = %v", ids)
		}
		if string(tx.Setting("accept")) != "known" || tx.Setting("gone") != nil || tx.Setting("never") != nil {
			t.Fatal("settings wrong")
		}
		if string(tx.Meta("last_id")) != testID(5) || tx.Meta("none") != nil {
			t.Fatal("meta wrong")
		}
		return nil
	})
}

func TestOpenTwiceAlreadyRunning(t *testing.T) {
	db := mustOpen(t)
	_, err := Open(db.dir, Options{Timeout: 50 * time.Millisecond})
	if !errors.Is(err, ErrAlreadyRunning) {
		t.Fatalf("second Open: %v, want ErrAlreadyRunning", err)
	}
	// The default timeout gives up too (it does not hang).
	if _, err := Open(db.dir, Options{}); !errors.Is(err, ErrAlreadyRunning) {
		t.Fatalf("second Open (default timeout): %v, want ErrAlreadyRunning", err)
	}
	// Once the first is closed the directory opens again.
	db.reopen()
}

// A write EnsureThread cannot return an error for (its th index entry)
// fails the whole transaction: nothing of it is stored. The index is made
// unwritable by a plain value where its bucket goes.
func TestEnsureThreadIndexErrorFailsCommit(t *testing.T) {
	db := mustOpen(t)
	now := time.Date(2026, 9, 25, 17, 3, 11, 0, time.UTC)
	idx := []byte("\x00idx")
	db.update(func(tx *Tx) error {
		b := tx.btx.Bucket(bThreads)
		if b.Bucket(idx) != nil {
			if err := b.DeleteBucket(idx); err != nil {
				return err
			}
		}
		return b.Put(idx, []byte("not a bucket"))
	})
	k := ThreadKey{NS: NSOwn, Peer: keytest.NewPublic(t), Th: "thr_aaaa"}
	err := db.Update(func(tx *Tx) error {
		th, created := tx.EnsureThread(k, now)
		if !created {
			t.Fatal("EnsureThread did not create the thread")
		}
		th.Subject = "lost with its index entry"
		_, err := tx.AppendLine(k, Line{Dir: DirIn, From: k.Peer, Stored: now, Raw: []byte(`{"t":"msg"}`)})
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "thread index") {
		t.Fatalf("Update = %v, want the thread index's error", err)
	}
	db.view(func(tx *Tx) error {
		if _, ok := tx.Thread(k); ok {
			t.Error("the failed transaction's thread is stored")
		}
		return nil
	})
	// The index back as a bucket: the same transaction commits.
	db.update(func(tx *Tx) error { return tx.btx.Bucket(bThreads).Delete(idx) })
	db.update(func(tx *Tx) error {
		tx.EnsureThread(k, now)
		return nil
	})
	db.view(func(tx *Tx) error {
		if got := tx.FindThreads(k.Th); len(got) != 1 || got[0] != k {
			t.Errorf("FindThreads = %v, want [%v]", got, k)
		}
		return nil
	})
}
