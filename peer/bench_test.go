package peer

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer/key"
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
	cpu0 := cpuTime()
	b.ResetTimer()
	var wg sync.WaitGroup
	const workers = 1024
	var last SendResult
	var mu sync.Mutex
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < b.N; i += workers {
				res, err := a.Send(context.Background(), SendRequest{To: r.Key(), Th: th, Parts: part})
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
	testsync.Eventually(b, "all acked", func() bool {
		ti, err := a.Thread(th, key.PublicKey{})
		if err != nil || ti.Lines != b.N {
			return false
		}
		ls, _ := a.LinesAfter(th, key.PublicKey{}, uint64(b.N-1), 1)
		return len(ls) == 1 && ls[0].Acked
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/msg")
}

// BenchmarkLineLatency is issue 22's figure 2 in one process: one short
// msg at a time from a's Send until b's subscriber has its line event, on
// an otherwise idle pair over loopback TCP (ns/op is that time; p50 and
// p99 are reported too). The limit it is held against (two fsyncs and a
// round trip) is cmd/awpbench's -only latency.
func BenchmarkLineLatency(b *testing.B) {
	a := newTestNode(b, "a", func(c *Config) { c.Logger = nil })
	r := newTestNode(b, "b", func(c *Config) { c.Logger = nil })
	connect(b, a, r)
	events, cancel := r.Subscribe(1024)
	defer cancel()
	th := wire.NewThread()
	part := []json.RawMessage{wire.TextPart("a typical short message of about sixty bytes or so")}
	wait := func() {
		for ev := range events {
			if ev.Type == EventLine && ev.Th == th && ev.Line != nil && ev.Line.Dir == "in" {
				return
			}
		}
	}
	if _, err := a.Send(context.Background(), SendRequest{To: r.Key(), Th: th, Parts: part}); err != nil {
		b.Fatal(err)
	}
	wait()
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		time.Sleep(2 * time.Millisecond) // the ack and anything else settle: each msg is alone
		b.StartTimer()
		t0 := time.Now()
		if _, err := a.Send(context.Background(), SendRequest{To: r.Key(), Th: th, Parts: part}); err != nil {
			b.Fatal(err)
		}
		wait()
		ds = append(ds, time.Since(t0))
	}
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(ds[len(ds)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkBlobTransfer sends one 64 MiB blob from a to b over loopback TCP
// per iteration and waits until b has it complete (sha256 checked); the
// figure includes staging in Send.
func BenchmarkBlobTransfer(b *testing.B) {
	const size = 64 << 20
	a := newTestNode(b, "a", func(c *Config) { c.Logger = nil })
	r := newTestNode(b, "b", func(c *Config) { c.Logger = nil })
	connect(b, a, r)
	p := filepath.Join(b.TempDir(), "blob.bin")
	data := make([]byte, size)
	rand.Read(data)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	var staging time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		res, err := a.Send(context.Background(), SendRequest{To: r.Key(), Blobs: []BlobFile{{Path: p}}})
		if err != nil {
			b.Fatal(err)
		}
		staging += time.Since(t0)
		for done := false; !done; time.Sleep(time.Millisecond) {
			bs, _ := r.Blobs()
			for _, x := range bs {
				if x.Th == res.Th && x.Dir == "in" {
					if x.Corrupt {
						b.Fatal("corrupt")
					}
					done = x.Complete
				}
			}
		}
	}
	b.ReportMetric(staging.Seconds()/float64(b.N), "staging-s/op")
}
