package peer

import (
	"context"
	"encoding/json"
	"testing"
	"time"

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
