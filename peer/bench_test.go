package peer

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/awp-tray/awp-tray/peer/wire"
)

// BenchmarkDurableMsgs sends b.N msgs in one thread from a to b over
// loopback TCP and waits until the last is acked.
func BenchmarkDurableMsgs(b *testing.B) {
	a := newTestNode(b, "a", func(c *Config) { c.Logger = nil })
	r := newTestNode(b, "b", func(c *Config) { c.Logger = nil })
	connect(b, a, r)
	th := wire.NewThread()
	part := []json.RawMessage{wire.TextPart("a typical short message of about sixty bytes or so")}
	b.ResetTimer()
	var wg sync.WaitGroup
	const workers = 64
	var last SendResult
	var mu sync.Mutex
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < b.N; i += workers {
				res, err := a.Send(context.Background(), SendRequest{To: r.Key().String(), Th: th, Parts: part})
				if err != nil {
					b.Error(err)
					return
				}
				mu.Lock()
				if res.ID > last.ID {
					last = res
				}
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	eventually(b, "all acked", func() bool {
		ti, err := a.Thread(th, "")
		if err != nil || ti.Lines != b.N {
			return false
		}
		ls, _ := a.LinesAfter(th, "", uint64(b.N-1), 1)
		return len(ls) == 1 && ls[0].Acked
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}
