package transport_test

import (
	"io"
	"testing"

	"github.com/awp-tray/awp-tray/peer/transport"
	"github.com/awp-tray/awp-tray/peer/transport/transporttest"
)

// benchChunk is what one benchmark op writes.
const benchChunk = 256 << 10

// benchStream measures one-way throughput from the dialer to the listener.
func benchStream(b *testing.B, l transport.Listener, dial transporttest.DialFunc) {
	c, s := transporttest.Pair(b, l, dial)
	n := int64(b.N) * benchChunk
	done := make(chan error, 1)
	go func() {
		_, err := io.CopyN(io.Discard, s, n)
		done <- err
	}()
	buf := make([]byte, benchChunk)
	b.SetBytes(benchChunk)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Write(buf); err != nil {
			b.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
}

// BenchmarkTCPLoopback is raw plaintext TCP over 127.0.0.1.
func BenchmarkTCPLoopback(b *testing.B) {
	m := newManager(b, "tcp", transport.Options{})
	l := listen(b, m, "tcp://127.0.0.1:0")
	benchStream(b, l, managerDial(m, l.Addr()))
}

// BenchmarkWGTunnel is TCP through the WireGuard tunnel (two devices, two
// netstacks, UDP over 127.0.0.1, MTU 1420).
func BenchmarkWGTunnel(b *testing.B) {
	a, bm, _, _ := wgManagers(b)
	l := listen(b, a, "wg://127.0.0.1:0")
	benchStream(b, l, managerDial(bm, l.Addr()))
}

// BenchmarkPipe is the in-memory transport.
func BenchmarkPipe(b *testing.B) {
	l, dial := transport.Pipe()
	defer l.Close()
	benchStream(b, l, dial)
}
