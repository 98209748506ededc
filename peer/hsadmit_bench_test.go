package peer

import (
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// openFDs counts this process's open file descriptors (Linux; 0 elsewhere).
func openFDs() int {
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0
	}
	return len(es)
}

// handshakeAsPeer connects to n as a peer does: its hello goes out at once
// (docs/protocol/handshake.md), then auth and resume.
func handshakeAsPeer(b testing.TB, n *testNode) {
	c, err := net.Dial("tcp", strings.TrimPrefix(n.addr(), "tcp://"))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	k, err := key.NewPrivate()
	if err != nil {
		b.Fatal(err)
	}
	p := &rawPeer{t: b, c: c, r: wire.NewReader(c), priv: k, node: n.Key()}
	p.sendHello(p.hello(nil))
	f := p.read()
	if _, ok := f.(*wire.Hello); !ok {
		b.Fatalf("node's first line is %s, want hello", f.Header().T)
	}
	p.nodeHello = f.Raw()
	p.finishHandshake()
}

// BenchmarkConnectUnderAttack (issue 18 item 13, docs/performance.md
// "Under attack: connections"): what a legitimate peer pays to connect (a TCP
// dial and a whole handshake, as a peer runs it) while 300 connections
// sit idle on the node (idle300: opened once from the peer's own address,
// never a byte sent), or are reopened as fast as the node closes them
// from another address (reconnect300, from 127.0.0.2), against none
// (quiet). Reported: ms per connect, the node's connections held in their
// handshake (node-hs-conns: the fds and goroutines the attack holds
// there), the process's fds (the flood's own ends included: both run in
// this process), the CPU the whole process spends per second of the run
// and per connect (both sides of it, and the flood's side), and how many
// flood connections the node closed.
func BenchmarkConnectUnderAttack(b *testing.B) {
	for _, mode := range []struct {
		name      string
		conns     int
		reconnect bool
	}{{"quiet", 0, false}, {"idle300", 300, false}, {"reconnect300", 300, true}} {
		local := ""
		if mode.reconnect {
			local = "127.0.0.2"
		}
		b.Run(mode.name, func(b *testing.B) {
			a := newTestNode(b, "a", func(c *Config) { c.Logger = nil; c.NoSync = true })
			closed := func() int { return 0 }
			if mode.conns > 0 {
				closed = idleFlood(b, a.addr(), mode.conns, local, mode.reconnect)
				time.Sleep(200 * time.Millisecond) // the node has accepted them all
			}
			cpu0, t0 := cpuTime(), time.Now()
			b.ResetTimer()
			for range b.N {
				handshakeAsPeer(b, a)
			}
			b.StopTimer()
			el := time.Since(t0)
			b.ReportMetric(float64(el.Microseconds())/1000/float64(b.N), "ms/connect")
			b.ReportMetric(float64(a.hs.inUse()), "node-hs-conns")
			b.ReportMetric(float64(openFDs()), "proc-fds")
			cpu := cpuTime() - cpu0
			b.ReportMetric(float64(cpu.Milliseconds())/el.Seconds(), "cpu-ms/s")
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/connect")
			b.ReportMetric(float64(closed()), "flood-closed")
		})
	}
}
