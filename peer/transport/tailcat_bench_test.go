package transport_test

import (
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer/key/keytest"
	"github.com/awp-tray/awp-tray/peer/transport"
	"github.com/awp-tray/awp-tray/peer/transport/tailcat/relaytest"
)

// BenchmarkTailcatTunnel is TCP on tunnel port 1 through tailcat: two
// magicsock/WireGuard engines and two netstacks in one process, the
// in-process relay for rendezvous, then the direct UDP path over
// 127.0.0.1 (or DERP when that is not up yet). Run it beside
// BenchmarkTCPLoopback for the comparison:
//
//	go test -run XXX -bench 'TCPLoopback|Tailcat' ./peer/transport/
func BenchmarkTailcatTunnel(b *testing.B) {
	r := relaytest.New(b)
	o := transport.TailcatOptions{DERPMap: r.Map}
	a := newManager(b, "A", transport.Options{Key: keytest.Seeded(b, 1), Tailcat: o})
	d := newManager(b, "B", transport.Options{Key: keytest.Seeded(b, 2), Tailcat: o})
	l := listen(b, a, transport.TailcatListen)
	benchStream(b, l, managerDial(d, l.Addr()))
}

// BenchmarkTailcatListen is the start-up time of a tailcat listener on
// the in-process relay: listen-ms until Listen returns the token, and
// first-conn-ms until a fresh dialer's first conn to tunnel port 1 has
// been accepted; dial-ms is a later conn's dial and accept.
func BenchmarkTailcatListen(b *testing.B) {
	r := relaytest.New(b)
	o := transport.TailcatOptions{DERPMap: r.Map}
	d := newManager(b, "B", transport.Options{Key: keytest.Seeded(b, 2), Tailcat: o})
	var listen, first, redial time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		a := transport.New(transport.Options{Key: keytest.Seeded(b, 1), Tailcat: o})
		l, err := a.Listen(testCtx(b), transport.TailcatListen)
		if err != nil {
			b.Fatal(err)
		}
		listen += time.Since(t0)
		c, err := d.Dial(testCtx(b), l.Addr())
		if err != nil {
			b.Fatal(err)
		}
		s, err := l.Accept()
		if err != nil {
			b.Fatal(err)
		}
		first += time.Since(t0)
		b.StopTimer()
		c.Close()
		s.Close()
		// A second conn (a new tunnel: every tailcat dial has its own)
		// to the listener that is up by now.
		t1 := time.Now()
		c, err = d.Dial(testCtx(b), l.Addr())
		if err != nil {
			b.Fatal(err)
		}
		if s, err = l.Accept(); err != nil {
			b.Fatal(err)
		}
		redial += time.Since(t1)
		c.Close()
		s.Close()
		a.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(listen.Milliseconds())/float64(b.N), "listen-ms")
	b.ReportMetric(float64(first.Milliseconds())/float64(b.N), "first-conn-ms")
	b.ReportMetric(float64(redial.Milliseconds())/float64(b.N), "dial-ms")
}
