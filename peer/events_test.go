package peer

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// TestLineEventWhileSubscribing: a subscriber that comes while an inbound
// line is being stored, and so does not find it in the store, still hears
// of it. (The event used to be made only when someone subscribed before
// the store: awp mcp's awp_wait, which subscribes and then looks, then
// waited for a line that had arrived.)
func TestLineEventWhileSubscribing(t *testing.T) {
	a := newTestNode(t, "a")
	b := newTestNode(t, "b")
	connect(t, a, b)
	th := wire.NewThread()
	for i := 1; i <= 300; i++ {
		if _, err := a.Send(context.Background(), SendRequest{To: b.Key().String(), Th: th, Subject: "s", Parts: []json.RawMessage{wire.TextPart("x")}}); err != nil {
			t.Fatal(err)
		}
		// The line is on its way to b, which stores it and syncs: subscribe
		// at moments spread over that.
		time.Sleep(time.Duration(i%25) * 100 * time.Microsecond)
		events, cancel := b.Subscribe(64)
		var have uint64 // the newest line b holds, as seen after subscribing
		if lines, err := b.Lines(th, ""); err == nil && len(lines) > 0 {
			have = lines[len(lines)-1].Seq
		}
		for have < uint64(i) {
			select {
			case ev := <-events:
				if ev.Type == EventLine && ev.Th == th && ev.Line != nil && ev.Line.Seq > have {
					have = ev.Line.Seq
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("round %d: line %d stored after the subscription came, without an event", i, i)
			}
		}
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
			_, err := a.Send(context.Background(), SendRequest{To: b.Public().String(), Th: th, Subject: "s", Parts: []json.RawMessage{wire.TextPart("x")}})
			sent <- err
		}()
		// The line is on its way to a's store and its fsync: subscribe at
		// moments spread over that.
		time.Sleep(time.Duration(i%25) * 100 * time.Microsecond)
		events, cancel := a.Subscribe(64)
		var have uint64 // the newest line a holds, as seen after subscribing
		if lines, err := a.Lines(th, ""); err == nil && len(lines) > 0 {
			have = lines[len(lines)-1].Seq
		}
		if err := <-sent; err != nil {
			t.Fatal(err)
		}
		for have < uint64(i) {
			select {
			case ev := <-events:
				if ev.Type == EventLine && ev.Th == th && ev.Line != nil && ev.Line.Seq > have {
					if ev.Line.Dir != "out" || ev.Peer != b.Public().String() {
						t.Fatalf("round %d: event %+v, want an out line to b", i, ev)
					}
					have = ev.Line.Seq
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("round %d: line %d stored after the subscription came, without an event", i, i)
			}
		}
		cancel()
	}
}
