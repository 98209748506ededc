package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// Figures for docs/performance.md ("awp mcp"). Both run real nodes with their
// stores on disk (fsync on) and the local API on its socket; the MCP
// client is the SDK's, over in-memory pipes (stdio costs the same copies).
//
//	go test ./cmd/awp/internal/mcpserver -run '^$' -bench . -benchtime 200x

// BenchmarkSendOverhead sends the same msg through the local API and
// through awp_send, alternating, so both see the same machine: it reports
// each one's time and their ratio. sync is as shipped (each send waits
// for its fsync); nosync leaves the disk out (peer.Config.NoSync), so the
// difference is what MCP adds.
func BenchmarkSendOverhead(b *testing.B) {
	b.Run("sync", func(b *testing.B) { benchSend(b, false) })
	b.Run("nosync", func(b *testing.B) { benchSend(b, true) })
}

func benchSend(b *testing.B, noSync bool) {
	mod := func(c *peer.Config) { c.NoSync = noSync }
	a := startNode(b, "alice", mod)
	bob := startNode(b, "bob", mod)
	link(b, a, bob)
	s := open(b, a)
	ctx := context.Background()
	to := bob.Key().String()
	first, err := a.c.Send(ctx, peer.SendRequest{To: key.MustParsePublic(to), Subject: "bench", Parts: []json.RawMessage{wire.TextPart("start")}})
	if err != nil {
		b.Fatal(err)
	}
	req := peer.SendRequest{To: key.MustParsePublic(to), Th: first.Th, Parts: []json.RawMessage{wire.TextPart("a line of the benchmark")}}
	args := map[string]any{"to": to, "th": first.Th, "text": "a line of the benchmark"}
	var api, viaMCP time.Duration
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if _, err := a.c.Send(ctx, req); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "awp_send", Arguments: args})
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
		t2 := time.Now()
		api += t1.Sub(t0)
		viaMCP += t2.Sub(t1)
	}
	b.ReportMetric(float64(api.Microseconds())/float64(b.N), "localapi-µs/send")
	b.ReportMetric(float64(viaMCP.Microseconds())/float64(b.N), "mcp-µs/send")
	b.ReportMetric(float64(viaMCP)/float64(api), "mcp/localapi")
}

// BenchmarkWaitWake measures how long after alice stores bob's line her
// blocked awp_wait returns it: the moment of storing is when alice's node
// publishes the line to a subscriber of its own (in this process), the
// end when the client has the answer. Reported: median and 99th
// percentile. mark is as agents use it: the wait marks the line read (a
// durable write, like every state change, so an fsync); peek leaves it
// unread (the benchmark marks it read outside the timing).
func BenchmarkWaitWake(b *testing.B) {
	b.Run("mark", func(b *testing.B) { benchWake(b, false) })
	b.Run("peek", func(b *testing.B) { benchWake(b, true) })
}

func benchWake(b *testing.B, peek bool) {
	a, bob := pair(b)
	s := open(b, a)
	ctx := context.Background()
	events, cancel := a.Subscribe(1024)
	defer cancel()
	th := ""
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		done := make(chan time.Time, 1)
		go func() {
			res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "awp_wait", Arguments: map[string]any{"timeout_s": 60, "peek": peek}})
			if err != nil || res.IsError {
				b.Error(err, res)
			}
			done <- time.Now()
		}()
		// Let the wait settle in its select before the line comes.
		for s.s.waiting.Load() == 0 {
			time.Sleep(100 * time.Microsecond)
		}
		time.Sleep(2 * time.Millisecond)
		r, err := bob.Send(ctx, peer.SendRequest{To: a.Key(), Th: th, Subject: "wake", Parts: []json.RawMessage{wire.TextPart("wake up")}})
		if err != nil {
			b.Fatal(err)
		}
		th = r.Th
		var stored time.Time
		for stored.IsZero() {
			ev := <-events
			if ev.Type == peer.EventLine && ev.Line != nil && ev.Line.Dir == "in" {
				stored = time.Now()
			}
		}
		lat = append(lat, (<-done).Sub(stored))
		for s.s.waiting.Load() != 0 {
			time.Sleep(100 * time.Microsecond)
		}
		if peek {
			if err := a.MarkRead(th, key.PublicKey{}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[(len(lat)*99)/100].Microseconds()), "p99-µs")
}
