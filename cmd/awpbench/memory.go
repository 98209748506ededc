package main

// Figure 8 (issue 22, figure 1): a node's memory when idle, and where a
// node's peak memory goes.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"time"

	"github.com/awp-tray/awp-tray/internal/procstat"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/localapi"
)

// goalIdleRSSMB is issue 22's: `awp run` idle with one connected peer.
const goalIdleRSSMB = 30

// Issue 22's bounds on the peak RSS of the nodes of figure 1 (msgs) and
// figure 7 (tailcat).
const (
	goalMsgsRSSMB    = 80
	goalTailcatRSSMB = 120
)

// idleMsgs is how many msgs the idle figure's sender sends (and has acked)
// before the pair goes idle: the peer is connected and has been used.
const idleMsgs = 20

// idleSettle is how long the pair is left alone before its memory is read.
const idleSettle = 2 * time.Second

// idleAfterBlob is how long after the blob the pair is left alone: the
// nodes give their transfer buffers back 10 s after their last use
// (peer's bufIdle), so this reads what an idle node holds once a transfer
// is over.
const idleAfterBlob = 12 * time.Second

// idleFig is figure 8: two nodes as `awp run` makes them (the local API
// served, buffers made on first use), connected over tcp://; the sender
// sends idleMsgs msgs, all acked; idleSettle later the resident memory
// (VmRSS) of each is read: idle_rss_mb is the larger. Then a blob of
// -idle-blob-mib goes the same way, and idleAfterBlob after it was
// complete the memory is read again (idle_after_blob_rss_mb).
func (b *bench) idleFig() error {
	o, r := b.o, &b.res
	path := filepath.Join(b.tmp, "idle-blob.bin")
	size := int64(o.idleBlobMiB) << 20
	sum, err := randomFile(path, size)
	if err != nil {
		return err
	}
	recv, send, err := b.pair("idle", "idle", tcpBinding, "--n", strconv.Itoa(idleMsgs), "--blob", path)
	if err != nil {
		return err
	}
	if _, err := send.expect("acked", 2*time.Minute); err != nil {
		return err
	}
	time.Sleep(idleSettle)
	rs, ss, err := readRSS(recv, send)
	if err != nil {
		return err
	}
	r.IdleRSSMB = round(max(rs.RSSNowMB, ss.RSSNowMB), 1)
	r.IdleRSSReceiverMB, r.IdleRSSSenderMB = round(rs.RSSNowMB, 1), round(ss.RSSNowMB, 1)
	if err := send.command("blob"); err != nil {
		return err
	}
	got, err := recv.expect("blob", o.timeout)
	if err != nil {
		return err
	}
	if got.Corrupt || got.Size != size || got.Sha256 != sum {
		return fmt.Errorf("idle blob: receiver has %d bytes, sha256 %s, corrupt %v; want %d, %s", got.Size, got.Sha256, got.Corrupt, size, sum)
	}
	time.Sleep(idleAfterBlob)
	ra, sa, err := readRSS(recv, send)
	if err != nil {
		return err
	}
	sd, rd, err := stopPair(send, recv)
	if err != nil {
		return err
	}
	r.IdleAfterBlobRSSMB = round(max(ra.RSSNowMB, sa.RSSNowMB), 1)
	r.IdleBlobMiB = o.idleBlobMiB
	b.printf("8. idle: two nodes as `awp run` makes them, connected, %d msgs sent and acked, then %s alone: resident memory receiver %.1f MiB, sender %.1f MiB; goal <= %d: %s",
		idleMsgs, idleSettle, rs.RSSNowMB, ss.RSSNowMB, goalIdleRSSMB, verdict(r.IdleRSSMB <= goalIdleRSSMB))
	b.printf("   after a %d MiB blob (peak RSS receiver %.1f, sender %.1f MiB) and %s alone: receiver %.1f MiB, sender %.1f MiB (Go heap in use %.1f / %.1f MiB, free and not yet returned %.1f / %.1f); goal <= %d: %s",
		o.idleBlobMiB, rd.RSSMB, sd.RSSMB, idleAfterBlob, ra.RSSNowMB, sa.RSSNowMB, ra.HeapMB, sa.HeapMB, ra.HeapFree, sa.HeapFree, goalIdleRSSMB, verdict(r.IdleAfterBlobRSSMB <= goalIdleRSSMB))
	return nil
}

// readRSS asks both children for their resident memory now.
func readRSS(a, b *proc) (childMsg, childMsg, error) {
	var out [2]childMsg
	for i, p := range []*proc{a, b} {
		if err := p.command("rss"); err != nil {
			return out[0], out[1], err
		}
		m, err := p.expect("rss", time.Minute)
		if err != nil {
			return out[0], out[1], err
		}
		out[i] = m
	}
	return out[0], out[1], nil
}

// idle is the idle mode of a child: the node serves the local API on its
// data dir's socket, as `awp run` does. The receiver reports the blob when
// complete; the sender connects, sends c.n msgs, reports "acked" once all
// are acked, and sends c.blob when told "blob". Both answer "rss" with
// their resident memory until told "stop".
func (c *child) idle() error {
	l, err := localapi.Listen(localapi.SocketPath(c.data))
	if err != nil {
		return err
	}
	srv := &localapi.Server{Backend: c.node}
	go func() { _ = srv.Serve(l) }()
	defer srv.Close()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer wg.Wait()
	defer close(stop)
	ctx := context.Background()
	if c.role == "receiver" {
		addrs := c.node.ListenAddrs()
		if len(addrs) == 0 {
			return fmt.Errorf("no listen address")
		}
		c.emit(childMsg{Event: "ready", Addr: addrs[0], Key: c.node.Key().String()})
		wg.Go(func() { c.watchBlob(stop) })
	} else {
		if err := c.connect(ctx, c.addr); err != nil {
			return err
		}
		c.emit(childMsg{Event: "connected"})
		th, err := c.sendMany(ctx)
		if err != nil {
			return err
		}
		if err := c.waitAcked(th, c.n, 5*time.Minute); err != nil {
			return err
		}
		c.emit(childMsg{Event: "acked"})
	}
	for {
		switch cmd := c.command(); cmd {
		case "stop":
			return nil
		case "rss":
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			c.emit(childMsg{Event: "rss", RSSNowMB: rssNowMB(), HeapMB: float64(ms.HeapInuse) / (1 << 20),
				HeapFree: float64(ms.HeapIdle-ms.HeapReleased) / (1 << 20)})
		case "blob":
			if c.role != "sender" {
				return fmt.Errorf("blob: not the sender")
			}
			if _, err := c.node.Send(ctx, peer.SendRequest{To: c.peerKey, Subject: "blob",
				Blobs: []peer.BlobFile{{Path: c.blob}}}); err != nil {
				return err
			}
		default:
			return fmt.Errorf("idle: unknown command %q", cmd)
		}
	}
}

// rssNowMB reads this process's resident memory now (VmRSS) in MiB.
func rssNowMB() float64 { return selfStatusMB("VmRSS") }

// selfStatusMB reads a field of /proc/self/status in MiB (0 when it
// cannot).
func selfStatusMB(field string) float64 {
	kib, _ := procstat.StatusKiB(procstat.Self, field)
	return float64(kib) / 1024
}

// memWatch follows a child's resident memory (every 20 ms) and, each time
// it reaches a new peak (by 1 MiB or more), writes a heap profile to path
// and keeps the runtime's account of the process's memory then: where the
// peak RSS goes (-memprofile).
type memWatch struct {
	path string
	stop chan struct{}
	done chan struct{}

	peak float64
	at   string // the runtime's account at the peak
}

func startMemWatch(path string) *memWatch {
	w := &memWatch{path: path, stop: make(chan struct{}), done: make(chan struct{})}
	go w.run()
	return w
}

func (w *memWatch) run() {
	defer close(w.done)
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
		}
		rss := rssNowMB()
		if rss < w.peak+1 {
			continue
		}
		w.peak = rss
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		mib := func(v uint64) float64 { return float64(v) / (1 << 20) }
		w.at = fmt.Sprintf("RSS %.1f MiB: Go heap in use %.1f (live at last GC %.1f, goal %.1f), heap free not returned %.1f, stacks %.1f, runtime other %.1f; outside the Go runtime (mapped buffers, C) %.1f",
			rss, mib(ms.HeapInuse), mib(ms.HeapAlloc), mib(ms.NextGC), mib(ms.HeapIdle-ms.HeapReleased), mib(ms.StackInuse),
			mib(ms.MSpanInuse+ms.MCacheInuse+ms.BuckHashSys+ms.GCSys+ms.OtherSys),
			rss-mib(ms.HeapInuse+ms.HeapIdle-ms.HeapReleased+ms.StackInuse+ms.MSpanInuse+ms.MCacheInuse+ms.BuckHashSys+ms.GCSys+ms.OtherSys))
		if f, err := os.Create(w.path); err == nil {
			_ = pprof.Lookup("heap").WriteTo(f, 0)
			f.Close()
		}
	}
}

// finish stops the watch and returns the account at the peak.
func (w *memWatch) finish() string {
	close(w.stop)
	<-w.done
	return w.at
}

// peakRSSMB reads this process's peak resident set (VmHWM) in MiB.
func peakRSSMB() float64 { return selfStatusMB("VmHWM") }
