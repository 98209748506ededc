//go:build unix

package localapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"syscall"
	"testing"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/localapi"
	"github.com/awp-tray/awp-tray/peer/localapi/localapitest"
)

// BenchmarkLinesOverSocket reads a 10,000-line thread through the control
// socket, as the tray app's UI process opens one (localapi.Remote.Lines).
// Compare with the lines' size: MB/s is their JSON over the socket.
func BenchmarkLinesOverSocket(b *testing.B) {
	f, c, _ := setupB(b)
	var lines []peer.LineInfo
	size := 0
	for seq := uint64(1); seq <= 10_000; seq++ {
		raw := fmt.Sprintf(`{"t":"msg","id":"01JAAAAAAAAAAAAAAAAAAA%04d","ts":"2026-09-25T17:03:11.000Z","th":"thr_big","parts":[{"k":"text","text":"a line of about sixty characters, like a short agent reply"}]}`, seq%10000)
		l := peer.LineInfo{Dir: "in", From: kx, Line: json.RawMessage(raw), Seq: seq, Stored: "2026-09-25T17:03:11.123Z"}
		b, _ := json.Marshal(l)
		size += len(b)
		lines = append(lines, l)
	}
	f.LinesByTh = map[string][]peer.LineInfo{"thr_big|": lines}
	b.SetBytes(int64(size))
	b.ResetTimer()
	cpu0 := cpuTime()
	n := 0
	for b.Loop() {
		n++
		ls, err := c.Lines(context.Background(), "thr_big", key.PublicKey{})
		if err != nil || len(ls) != 10_000 {
			b.Fatalf("%d lines, %v", len(ls), err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(n)/1e6, "cpu-ms/op")
}

// cpuTime is the CPU time this process used so far (both ends of the
// socket run here), in nanoseconds: on a shared machine the wall clock
// says less.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// setupB is setup for benchmarks.
func setupB(b *testing.B) (*localapitest.Fake, *localapi.Client, string) {
	b.Helper()
	f := &localapitest.Fake{NameV: "bench"}
	dir, _ := localapitest.Serve(b, f)
	c := localapi.NewClient(localapi.SocketPath(dir))
	b.Cleanup(c.CloseIdle)
	return f, c, dir
}
