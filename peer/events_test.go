package peer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// TestLineEventWhileSubscribing: a subscriber that comes while an inbound
// line is being stored, and so does not find it in the store, still hears
// of it. (The event used to be made only when someone subscribed before
// the store: awp mcp's awp_wait, which subscribes and then looks, then
// waited for a line that had arrived.)
func TestLineEventWhileSubscribing(t *testing.T) {
	a, b := connectedPair(t)
	th := wire.NewThread()
	for i := 1; i <= 300; i++ {
		if _, err := a.Send(context.Background(), SendRequest{To: b.Key(), Th: th, Subject: "s", Parts: []json.RawMessage{wire.TextPart("x")}}); err != nil {
			t.Fatal(err)
		}
		// The line is on its way to b, which stores it and syncs: subscribe
		// at moments spread over that.
		time.Sleep(time.Duration(i%25) * 100 * time.Microsecond)
		events, cancel := b.Subscribe(64)
		have := newestSeq(b, th)
		awaitLineEvent(t, events, th, have, i, nil)
		cancel()
	}
}

// TestSentLineEventWhileSubscribing is the same for lines this node sends:
// a subscriber that comes while a sent line is being stored (after its
// event would have been made, before the commit) still hears of it. (The
// event used to be made inside the transaction, and only when someone was
// subscribed then.)
func TestSentLineEventWhileSubscribing(t *testing.T) {
	a := newTestNode(t, "a")
	b, err := key.NewPrivate() // never connects: the lines wait in a's outbox
	if err != nil {
		t.Fatal(err)
	}
	th := wire.NewThread()
	for i := 1; i <= 300; i++ {
		sent := make(chan error, 1)
		go func() {
			_, err := a.Send(context.Background(), SendRequest{To: b.Public(), Th: th, Subject: "s", Parts: []json.RawMessage{wire.TextPart("x")}})
			sent <- err
		}()
		// The line is on its way to a's store and its fsync: subscribe at
		// moments spread over that.
		time.Sleep(time.Duration(i%25) * 100 * time.Microsecond)
		events, cancel := a.Subscribe(64)
		have := newestSeq(a, th)
		if err := <-sent; err != nil {
			t.Fatal(err)
		}
		awaitLineEvent(t, events, th, have, i, func(ev Event) {
			if ev.Line.Dir != "out" || ev.Peer != b.Public() {
				t.Fatalf("round %d: event %+v, want an out line to b", i, ev)
			}
		})
		cancel()
	}
}

// newestSeq is the seq of the newest line of th that n holds (0 for none).
func newestSeq(n *testNode, th string) uint64 {
	if lines, err := n.Lines(th, key.PublicKey{}); err == nil && len(lines) > 0 {
		return lines[len(lines)-1].Seq
	}
	return 0
}

// awaitLineEvent reads events, subscribed to when the newest line of th
// the node held was have, until one announces line round of th (or a
// later one); check, if set, vets each event of a newer line of th.
func awaitLineEvent(t *testing.T, events <-chan Event, th string, have uint64, round int, check func(Event)) {
	t.Helper()
	for have < uint64(round) {
		select {
		case ev := <-events:
			if ev.Type == EventLine && ev.Th == th && ev.Line != nil && ev.Line.Seq > have {
				if check != nil {
					check(ev)
				}
				have = ev.Line.Seq
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: line %d stored after the subscription came, without an event", round, round)
		}
	}
}

// TestLineEventThenRead: whatever reads the store right after a received
// line's event finds the line: the lines, the thread, the thread list (the
// event follows the commit; docs/protocol/choices.md "A line's event waits
// for its fsync"). Each msg is read about as soon as its event comes.
func TestLineEventThenRead(t *testing.T) {
	a, b := connectedPair(t)
	events, cancel := b.Subscribe(1024)
	defer cancel()
	th := wire.NewThread()
	const n = 100
	sent := make(chan error, 1)
	go func() {
		for i := 1; i <= n; i++ {
			if _, err := a.Send(context.Background(), SendRequest{To: b.Key(), Th: th, Subject: "s", Parts: []json.RawMessage{wire.TextPart(fmt.Sprint("line ", i))}}); err != nil {
				sent <- err
				return
			}
			if i%10 == 0 {
				time.Sleep(5 * time.Millisecond) // some alone, some in batches
			}
		}
		sent <- nil
	}()
	defer func() {
		cancel()
		a.Close() // a failed check leaves sends in flight: end them
		<-sent
	}()
	for got := 0; got < n; {
		var ev Event
		select {
		case ev = <-events:
		case <-time.After(20 * time.Second):
			t.Fatalf("%d of %d line events", got, n)
		}
		if ev.Type != EventLine || ev.Th != th || ev.Line == nil || ev.Line.Dir != "in" {
			continue
		}
		got++
		seq := ev.Line.Seq
		// The order matters only in that each read comes right after the
		// event: lines first, then the summaries.
		ls, err := b.LinesAfter(th, key.PublicKey{}, seq-1, 1)
		if err != nil || len(ls) != 1 || ls[0].Seq != seq || !bytes.Equal(ls[0].Line, ev.Line.Line) {
			t.Fatalf("line %d: read right after its event: %+v, %v; want the line", seq, ls, err)
		}
		ti, err := b.Thread(th, key.PublicKey{})
		if err != nil || uint64(ti.Lines) < seq {
			t.Fatalf("line %d: thread read right after its event: %+v, %v", seq, ti, err)
		}
		all, err := b.Threads()
		if err != nil || len(all) != 1 || uint64(all[0].Lines) < seq {
			t.Fatalf("line %d: thread list read right after its event: %+v, %v", seq, all, err)
		}
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	sent <- nil // for the deferred wait
}

// TestDuplicateLineOneEvent: a line received again (a resend after a lost
// ack, a resume; alone or twice in one batch) is acked again but has no
// second event.
func TestDuplicateLineOneEvent(t *testing.T) {
	n := newTestNode(t, "n")
	events, cancel := n.Subscribe(1024)
	defer cancel()
	p := dialRaw(t, n)
	p.handshake()
	th := wire.NewThread()
	id1, l1 := p.msg(th, "once")
	p.line(l1)
	p.expectAck(th, id1, "")
	p.line(l1) // again, alone
	p.expectAck(th, id1, "")
	id2, l2 := p.msg(th, "twice in one write")
	p.write(append(append(append(append([]byte(nil), l2...), '\n'), l2...), '\n'))
	p.expectAck(th, id2, "")
	id3, l3 := p.msg(th, "last")
	p.line(l3)
	p.expectAck(th, id3, "")
	// Every event of the lines above is out once the last ack is: count
	// them, then check nothing else comes.
	count := map[string]int{}
	for count[id3] == 0 {
		select {
		case ev := <-events:
			if ev.Type == EventLine && ev.Line != nil && ev.Th == th {
				var h wire.Msg
				if err := json.Unmarshal(ev.Line.Line, &h); err != nil {
					t.Fatal(err)
				}
				count[h.ID]++
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no event for the last line; events so far %v", count)
		}
	}
	for _, id := range []string{id1, id2, id3} {
		if count[id] != 1 {
			t.Errorf("line %s: %d events, want 1 (events %v)", id, count[id], count)
		}
	}
	if ls, err := n.Lines(th, key.PublicKey{}); err != nil || len(ls) != 3 {
		t.Fatalf("stored %d lines (%v), want 3", len(ls), err)
	}
}

// TestEventsNamePeer: the events of a line this node sends and of its ack,
// which the node makes without the peer's hello at hand, carry the name the
// connected peer gave, as a received line's does; the name goes when the
// peer's session does.
func TestEventsNamePeer(t *testing.T) {
	a, b := connectedPair(t)
	events, cancel := a.Subscribe(64)
	defer cancel()
	th := wire.NewThread()
	sendText(t, a, b.Key(), th, "hi")
	named := map[string]string{}
	timeout := time.After(10 * time.Second)
	for named[EventLine] == "" || named[EventAck] == "" {
		select {
		case ev := <-events:
			if ev.Th == th && ev.Peer == b.Key() && (ev.Type == EventAck || ev.Type == EventLine && ev.Line.Dir == "out") {
				named[ev.Type] = ev.PeerName
				if ev.PeerName != "b" {
					t.Fatalf("%s event names the peer %q, want b", ev.Type, ev.PeerName)
				}
			}
		case <-timeout:
			t.Fatalf("no out line and ack events with names: %v", named)
		}
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	testsync.Eventually(t, "b's session gone", func() bool { return a.sessionFor(b.Key()) == nil })
	if name := a.names.get(b.Key()); name != "" {
		t.Errorf("a still names b %q after its session ended", name)
	}
}
