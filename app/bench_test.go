package app

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	"github.com/awp-tray/awp-tray/internal/nodetest"
	"github.com/awp-tray/awp-tray/internal/procstat"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/localapi"
	"github.com/awp-tray/awp-tray/peer/localapi/localapitest"
)

// rssKB is this process's resident set (VmRSS), in KiB; 0 when unknown.
func rssKB() int {
	n, _ := procstat.StatusKiB(procstat.Self, "VmRSS")
	return int(n)
}

// BenchmarkOpenLargestThread fills a real node with 100 threads and
// 10,000 lines (9,901 in the largest thread), attaches the app, and times
// opening the largest thread until its rows are built and shown. It
// reports the process's RSS after the open (test binary, node and UI).
// The "local-api" case is the UI process's path: the lines come over the
// node's control socket (localapi.Remote); "in-process" calls the node.
func BenchmarkOpenLargestThread(b *testing.B) {
	for _, overAPI := range []bool{false, true} {
		name := "in-process"
		if overAPI {
			name = "local-api"
		}
		b.Run(name, func(b *testing.B) { benchOpenLargest(b, overAPI) })
	}
}

func benchOpenLargest(b *testing.B, overAPI bool) {
	me := nodetest.New(b, "me", 1, func(c *peer.Config) { c.NoSync = true; c.Listen = nil })
	alice := nodetest.New(b, "alice", 2)
	ctx := context.Background()
	to := alice.Key().String()
	part := []json.RawMessage{TextPart("a line of about sixty characters, like a short agent reply")}
	big, err := me.Send(ctx, peer.SendRequest{To: key.MustParsePublic(to), Subject: "Big", Parts: part})
	if err != nil {
		b.Fatal(err)
	}
	for i := 1; i < 9901; i++ {
		if _, err := me.Send(ctx, peer.SendRequest{To: key.MustParsePublic(to), Th: big.Th, Parts: part}); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < 99; i++ {
		if _, err := me.Send(ctx, peer.SendRequest{To: key.MustParsePublic(to), Subject: fmt.Sprintf("thread %d", i), Parts: part}); err != nil {
			b.Fatal(err)
		}
	}
	fa, _ := newTestApp(b, nil)
	var be Backend = me
	if overAPI {
		dir, _ := localapitest.Serve(b, me)
		r, err := localapi.DialRemote(ctx, localapi.SocketPath(dir), nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { r.Close() })
		be = r
	}
	fa.mu.Lock()
	fa.be = be
	fa.mu.Unlock()
	fa.refresh(dirtyAll)
	fa.Wait()
	ts, _ := me.Threads()
	var info peer.ThreadInfo
	for _, th := range ts {
		if th.Th == big.Th {
			info = th
		}
	}
	if len(ts) != 100 || info.Lines != 9901 {
		b.Fatalf("%d threads, largest %d lines", len(ts), info.Lines)
	}
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		tw := fa.openThread(info)
		fa.Wait()
		if len(tw.entries) != 9901 {
			b.Fatalf("%d entries", len(tw.entries))
		}
		b.StopTimer()
		tw.w.Close()
		delete(fa.threads, threadKey{info.Th, key.PublicKey{}})
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
	runtime.GC()
	b.ReportMetric(float64(rssKB())/1024, "MB-RSS")
}
