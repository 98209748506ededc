package transport_test

import (
	"net"
	"path/filepath"
	"testing"

	"github.com/awp-tray/awp-tray/peer/transport"
	"github.com/awp-tray/awp-tray/peer/transport/transporttest"
)

func TestConformancePipe(t *testing.T) {
	transporttest.Run(t, func(t *testing.T) (transport.Listener, transporttest.DialFunc) {
		l, dial := transport.Pipe()
		return l, dial
	})
}

func TestConformanceMem(t *testing.T) {
	transporttest.Run(t, func(t *testing.T) (transport.Listener, transporttest.DialFunc) {
		m := newManager(t, "mem", transport.Options{Mem: transport.NewMemNetwork()})
		l := listen(t, m, "mem://node-a")
		return l, managerDial(m, l.Addr())
	})
}

func TestConformanceTCP(t *testing.T) {
	transporttest.Run(t, func(t *testing.T) (transport.Listener, transporttest.DialFunc) {
		m := newManager(t, "tcp", transport.Options{})
		l := listen(t, m, "tcp://127.0.0.1:0")
		return l, managerDial(m, l.Addr())
	})
}

func TestConformanceTCP6(t *testing.T) {
	if ln, err := net.Listen("tcp6", "[::1]:0"); err != nil {
		t.Skipf("no IPv6 loopback: %v", err)
	} else {
		ln.Close()
	}
	transporttest.Run(t, func(t *testing.T) (transport.Listener, transporttest.DialFunc) {
		m := newManager(t, "tcp6", transport.Options{})
		l := listen(t, m, "tcp://[::1]:0")
		return l, managerDial(m, l.Addr())
	})
}

func TestConformanceUnix(t *testing.T) {
	transporttest.Run(t, func(t *testing.T) (transport.Listener, transporttest.DialFunc) {
		m := newManager(t, "unix", transport.Options{})
		l := listen(t, m, "unix://"+filepath.Join(t.TempDir(), "awp.sock"))
		return l, managerDial(m, l.Addr())
	})
}

func TestConformanceWG(t *testing.T) {
	transporttest.Run(t, wgPair)
}
