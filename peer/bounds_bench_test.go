package peer

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/internal/procstat"
	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/presence"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// The attacks of issue 18 (items 10, 11, 12, 15) at the sizes,
// each measured on one node: CPU seconds of the process, resident memory
// added, descriptors open, and what a legitimate peer sees meanwhile.
// `make bench-attack` runs them once each; docs/performance.md "Under
// attack: blobs, memory, disk" has the figures. They use only the node's API and
// the wire (raw peers), so the same file runs against earlier versions.

// procFDs counts this process's open file descriptors (-1 when it cannot:
// when they are used up).
func procFDs(t testing.TB) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Logf("counting descriptors: %v", err)
		return -1
	}
	return len(ents)
}

// rssBytes reads this process's resident memory (-1 when it cannot).
func rssBytes(t testing.TB) int64 {
	t.Helper()
	kib, err := procstat.StatusKiB(procstat.Self, "VmRSS")
	if err != nil {
		t.Logf("reading RSS: %v", err)
		return -1
	}
	return kib << 10
}

// announce sends msgs in th announcing blobs refs of size bytes each, 100
// parts a msg, and returns the last msg's id.
func (p *rawPeer) announce(th string, refs []string, size int64) string {
	p.t.Helper()
	var id string
	for i := 0; i < len(refs); i += 100 {
		var parts []json.RawMessage
		for _, ref := range refs[i:min(i+100, len(refs))] {
			parts = append(parts, wire.BlobPart(ref, "f.bin", "application/octet-stream", size, ""))
		}
		id = p.ids.New()
		p.line(p.obj(wire.TypeMsg, map[string]any{"id": id, "th": th, "parts": parts}))
	}
	return id
}

// chunkLine builds a chunk line.
func (p *rawPeer) chunkLine(id, th, ref string, off int64, data []byte, end bool) []byte {
	p.t.Helper()
	l, err := wire.Encode(wire.NewChunk(id, wire.FormatTime(time.Now()), th, ref, off, data, end))
	if err != nil {
		p.t.Fatal(err)
	}
	return l
}

// ackOrErr reads the node's lines until the ack of id in th, an err that
// answers id, or the connection's end, and counts the err lines by code.
func (p *rawPeer) ackOrErr(th, id string) (errs map[string]int, acked bool) {
	errs = map[string]int{}
	for {
		raw, err := p.r.ReadLine()
		if err != nil {
			return errs, false
		}
		f, err := wire.Decode(raw)
		if err != nil {
			continue
		}
		switch f := f.(type) {
		case *wire.Ack:
			if f.Th == th && f.Of == id {
				return errs, true
			}
		case *wire.Err:
			errs[f.Code]++
			if f.Re == id {
				return errs, false
			}
		}
	}
}

// attackMeter measures the process from its start.
type attackMeter struct {
	b    *testing.B
	cpu  time.Duration
	rss  int64
	fds  int
	wall time.Time
}

func startMeter(b *testing.B) *attackMeter {
	debug.FreeOSMemory()
	return &attackMeter{b: b, cpu: cpuTime(), rss: rssBytes(b), fds: procFDs(b), wall: time.Now()}
}

// report adds cpu-s, rss-added-MiB (what is still held: garbage, also the
// attacker's own, is collected and given back to the system first) and
// fds-added (the attacker's sockets are in this process too).
func (m *attackMeter) report() {
	m.b.ReportMetric((cpuTime() - m.cpu).Seconds(), "cpu-s")
	debug.FreeOSMemory()
	if rss := rssBytes(m.b); rss >= 0 {
		m.b.ReportMetric(float64(rss-m.rss)/(1<<20), "rss-added-MiB")
	}
	if fds := procFDs(m.b); fds >= 0 {
		m.b.ReportMetric(float64(fds-m.fds), "fds-added")
	} else {
		m.b.ReportMetric(1, "fds-exhausted")
	}
}

// quiet is a node without its log.
func quiet(c *Config) { c.Logger = nil }

// BenchmarkAttackBlobFiles: one peer announces 20,500 blobs and sends each
// one chunk that never finishes it (item 10). internal counts the chunks
// the node could not store; new-peer-ok is 1 when a fresh node then
// connects and gets a msg acked.
func BenchmarkAttackBlobFiles(b *testing.B) {
	for range b.N {
		a := newTestNode(b, "a", quiet)
		c := newTestNode(b, "c", quiet) // made before: its own files are open
		p := dialRaw(b, a)
		p.c.SetDeadline(time.Now().Add(10 * time.Minute))
		p.handshake()
		th := wire.NewThread()
		refs := make([]string, 20500)
		for i := range refs {
			refs[i] = fmt.Sprintf("blob_%d", i)
		}
		var lines [][]byte // the msgs, then the chunks (ids in order)
		for i := 0; i < len(refs); i += 100 {
			var parts []json.RawMessage
			for _, ref := range refs[i : i+100] {
				parts = append(parts, wire.BlobPart(ref, "f.bin", "application/octet-stream", 10, ""))
			}
			lines = append(lines, append(p.obj(wire.TypeMsg, map[string]any{"th": th, "parts": parts}), '\n'))
		}
		var last string
		for _, ref := range refs {
			last = p.ids.New()
			lines = append(lines, append(p.chunkLine(last, th, ref, 0, []byte("x"), false), '\n'))
		}
		m := startMeter(b)
		for _, l := range lines {
			p.write(l)
		}
		errs, _ := p.ackOrErr(th, last)
		m.report()
		b.ReportMetric(float64(errs[wire.CodeInternal]), "internal")
		ok := 0.0
		func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, err := c.Connect(ctx, a.addr()); err != nil {
				return
			}
			r, err := c.Send(ctx, SendRequest{To: a.Key(), Parts: []json.RawMessage{wire.TextPart("hi")}})
			if err != nil {
				return
			}
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				if ls, _ := c.Lines(r.Th, key.PublicKey{}); len(ls) == 1 && ls[0].Acked {
					ok = 1
					return
				}
			}
		}()
		b.ReportMetric(ok, "new-peer-ok")
	}
}

// BenchmarkAttackOutOfOrder: one peer sends 30,000 one-byte chunks at even
// offsets (item 11): into one blob (the case) and spread over 8
// blobs (3,750 ranges each, all kept). Meanwhile another node sends a msg
// every 50 ms and waits for its ack: ack-delay-max-ms is the longest wait,
// ack-delay-idle-ms the longest of 5 before the flood (the machine's own).
func BenchmarkAttackOutOfOrder(b *testing.B) {
	for _, blobs := range []int{1, 8} {
		b.Run(fmt.Sprintf("blobs=%d", blobs), func(b *testing.B) {
			for range b.N {
				a := newTestNode(b, "a", quiet)
				c := newTestNode(b, "c", quiet)
				connect(b, c, a)
				p := dialRaw(b, a)
				p.c.SetDeadline(time.Now().Add(30 * time.Minute))
				p.handshake()
				th := wire.NewThread()
				refs := make([]string, blobs)
				for i := range refs {
					refs[i] = fmt.Sprintf("blob_ooo%d", i)
				}
				const chunks = 30000
				p.announce(th, refs, 2*chunks)
				lines := make([][]byte, chunks)
				var last string
				for i := range lines {
					last = p.ids.New()
					lines[i] = append(p.chunkLine(last, th, refs[i%blobs], int64(2*(i/blobs)), []byte{1}, false), '\n')
				}
				ping := func(th string) (string, time.Duration) {
					t0 := time.Now()
					r, err := c.Send(context.Background(), SendRequest{To: a.Key(), Th: th, Parts: []json.RawMessage{wire.TextPart("ping")}})
					if err != nil {
						b.Error(err) // also from the pinging goroutine
						return th, 0
					}
					for {
						ls, _ := c.Lines(r.Th, key.PublicKey{})
						if len(ls) > 0 && ls[len(ls)-1].Acked {
							return r.Th, time.Since(t0)
						}
						time.Sleep(time.Millisecond)
					}
				}
				var idle time.Duration
				cth := ""
				for range 5 {
					var d time.Duration
					cth, d = ping(cth)
					idle = max(idle, d)
				}
				b.ReportMetric(float64(idle.Milliseconds()), "ack-delay-idle-ms")
				stop := make(chan struct{})
				var maxDelay time.Duration
				var wg sync.WaitGroup
				wg.Go(func() {
					for {
						select {
						case <-stop:
							return
						case <-time.After(50 * time.Millisecond):
						}
						_, d := ping(cth)
						maxDelay = max(maxDelay, d)
					}
				})
				m := startMeter(b)
				go func() {
					for _, l := range lines {
						if _, err := p.c.Write(l); err != nil {
							return
						}
					}
				}()
				errs, _ := p.ackOrErr(th, last)
				close(stop)
				wg.Wait()
				m.report()
				b.ReportMetric(time.Since(m.wall).Seconds(), "wall-s")
				b.ReportMetric(float64(maxDelay.Milliseconds()), "ack-delay-max-ms")
				b.ReportMetric(float64(errs[wire.CodeBadRequest]), "bad_request")
			}
		})
	}
}

// BenchmarkAttackErrFlood: a peer sends 60 s worth of malformed lines (or
// 2,000,000) and never reads the err lines they earn (item 12).
// session-closed is 1 when the node closed it.
func BenchmarkAttackErrFlood(b *testing.B) {
	for range b.N {
		a := newTestNode(b, "a", quiet)
		p := dialRaw(b, a)
		if tc, ok := p.c.(*net.TCPConn); ok {
			tc.SetReadBuffer(4096)
		}
		p.handshake()
		testsync.Eventually(b, "the session up", func() bool { return a.sessionFor(p.priv.Public()) != nil })
		p.c.SetDeadline(time.Now().Add(2 * time.Minute))
		m := startMeter(b)
		bad := []byte(strings.Repeat(`{"t":"msg","id":"01J9ZX00000000000000000001","th":"thr_x"}`+"\n", 100))
		deadline := time.Now().Add(60 * time.Second)
		for i := 0; i < 20000 && time.Now().Before(deadline); i++ {
			if _, err := p.c.Write(bad); err != nil {
				break
			}
		}
		closed := 0.0
		for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			if a.sessionFor(p.priv.Public()) == nil {
				closed = 1
				break
			}
		}
		m.report()
		b.ReportMetric(closed, "session-closed")
		b.ReportMetric(time.Since(m.wall).Seconds(), "wall-s")
		p.c.Close()
	}
}

// BenchmarkAttackPartialLines: 300 throwaway keys each hold a partial line
// of 1 MiB (item 12). sessions is how many the node kept.
func BenchmarkAttackPartialLines(b *testing.B) {
	for range b.N {
		a := newTestNode(b, "a", quiet)
		m := startMeter(b)
		var ps []*rawPeer
		for range 300 {
			p := dialRaw(b, a)
			p.c.SetDeadline(time.Now().Add(5 * time.Minute))
			p.handshake()
			ps = append(ps, p)
		}
		partial := append([]byte(`{"t":"msg","x":"`), make([]byte, wire.MaxLine-100)...)
		for i := range partial[16:] {
			partial[16+i] = 'a'
		}
		var wg sync.WaitGroup
		for _, p := range ps {
			wg.Go(func() { p.c.SetWriteDeadline(time.Now().Add(20 * time.Second)); p.c.Write(partial) })
		}
		time.Sleep(5 * time.Second) // the node reads what it will
		a.mu.Lock()
		sessions := len(a.sessions)
		a.mu.Unlock()
		m.report()
		b.ReportMetric(float64(sessions), "sessions")
		for _, p := range ps {
			p.c.Close()
		}
		wg.Wait()
	}
}

// BenchmarkAttackPresence: 16 neighbours with throwaway keys each send 64
// documents of throwaway origins, 250 KB each (item 12). held-MiB is the
// documents' bytes the table keeps.
func BenchmarkAttackPresence(b *testing.B) {
	for range b.N {
		a := newTestNode(b, "a", quiet)
		m := startMeter(b)
		for range 16 {
			p := dialRaw(b, a)
			p.c.SetDeadline(time.Now().Add(10 * time.Minute))
			p.sendHello(p.hello(map[string]any{"caps": []string{"chat", "presence"}}))
			p.finishHandshake()
			for range 64 {
				o, _ := key.NewPrivate()
				p.line(presence.Line(p.ids.New(), wire.FormatTime(time.Now()), 1, paddedDoc(b, o, 250_000)))
			}
			id, msg := p.msg("thr_pres", "done")
			p.line(msg)
			p.ackOrErr("thr_pres", id)
		}
		held := 0
		for _, e := range a.Presence() {
			held += len(e.Doc)
		}
		m.report()
		b.ReportMetric(float64(held)/(1<<20), "held-MiB")
	}
}

// paddedDoc is a signed presence document of origin k padded to about pad
// bytes (an unknown member, signed like the rest).
func paddedDoc(t testing.TB, k key.PrivateKey, pad int) []byte {
	t.Helper()
	d := map[string]any{"origin": k.Public().String(), "seq": 1, "ts": wire.FormatTime(time.Now()),
		"peers": []any{}, "unread": 0, "name": "n", "pad": strings.Repeat("p", pad)}
	raw, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	c, err := wire.CanonicalWithout(raw, "sig")
	if err != nil {
		t.Fatal(err)
	}
	d["sig"] = k.SignText(c)
	if raw, err = json.Marshal(d); err != nil {
		t.Fatal(err)
	}
	return raw
}

// BenchmarkAttackDisk: on a 256 MiB file system (a tmpfs; root only), a
// stranger sends blobs of 24 MiB until the node stops taking them (item
// 15). stranger-MiB is what it got stored; free-MiB what was left;
// own-send-ok is 1 when this node can still send a 4 MiB file (staged into
// its data directory), known-peer-ok when a trusted peer's msg still goes
// in.
func BenchmarkAttackDisk(b *testing.B) {
	for range b.N {
		dir := b.TempDir()
		unmount, err := mountTmpfs(dir, "256m")
		if err != nil {
			b.Skipf("needs a tmpfs (root, Linux): %v", err)
		}
		func() {
			defer unmount()
			a := newTestNode(b, "a", quiet, func(c *Config) { c.DataDir = filepath.Join(dir, "data") })
			defer a.Close()
			c := newTestNode(b, "c", quiet)
			if err := a.Trust(c.Key(), true); err != nil {
				b.Fatal(err)
			}
			connect(b, c, a)
			p := dialRaw(b, a)
			p.c.SetDeadline(time.Now().Add(10 * time.Minute))
			p.handshake()
			m := startMeter(b)
			th := wire.NewThread()
			data := make([]byte, wire.MaxChunkData)
			stored := int64(0)
			for i := 0; i < 16; i++ {
				ref := fmt.Sprintf("blob_disk%d", i)
				id := p.announce(th, []string{ref}, 24<<20)
				if errs, _ := p.ackOrErr(th, id); len(errs) > 0 {
					break
				}
				var last string
				for off := 0; off < 24<<20; off += len(data) {
					last = p.ids.New()
					p.line(p.chunkLine(last, th, ref, int64(off), data, off+len(data) == 24<<20))
				}
				errs, _ := p.ackOrErr(th, last)
				if len(errs) > 0 {
					break
				}
				stored += 24 << 20
			}
			m.report()
			free, _, _ := statfs(dir)
			b.ReportMetric(float64(stored)/(1<<20), "stranger-MiB")
			b.ReportMetric(float64(free)/(1<<20), "free-MiB")
			f := filepath.Join(b.TempDir(), "own.bin")
			if err := os.WriteFile(f, make([]byte, 4<<20), 0o600); err != nil {
				b.Fatal(err)
			}
			ok := 0.0
			if _, err := a.Send(context.Background(), SendRequest{To: c.Key(), Parts: []json.RawMessage{wire.TextPart("own")}, Blobs: []BlobFile{{Path: f}}}); err == nil {
				ok = 1
			} else {
				b.Logf("own send: %v", err)
			}
			b.ReportMetric(ok, "own-send-ok")
			ok = 0
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if r, err := c.Send(ctx, SendRequest{To: a.Key(), Parts: []json.RawMessage{wire.TextPart("known")}}); err == nil {
				for ctx.Err() == nil {
					if ls, _ := c.Lines(r.Th, key.PublicKey{}); len(ls) == 1 && ls[0].Acked {
						ok = 1
						break
					}
					time.Sleep(10 * time.Millisecond)
				}
			}
			b.ReportMetric(ok, "known-peer-ok")
		}()
	}
}
