package transport

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"

	"github.com/awp-tray/awp-tray/internal/testsync"
)

// fakeListener hands out prepared conns, then reports net.ErrClosed.
type fakeListener struct {
	conns chan net.Conn
}

func (l *fakeListener) Accept() (net.Conn, error) {
	c, ok := <-l.conns
	if !ok {
		return nil, net.ErrClosed
	}
	return c, nil
}
func (l *fakeListener) Close() error   { return nil }
func (l *fakeListener) Addr() net.Addr { return &net.TCPAddr{} }

// remoteConn is one end of a net.Pipe that claims a remote TCP address.
type remoteConn struct {
	net.Conn
	remote *net.TCPAddr
}

func (c remoteConn) RemoteAddr() net.Addr { return c.remote }

// TestAcceptPolicy feeds a listener connections from a public, a CGNAT and
// a private remote: without AllowPublicTCP only the private one comes out
// of Accept, and the refused ones are closed and logged.
func TestAcceptPolicy(t *testing.T) {
	for _, allow := range []bool{false, true} {
		var logs testsync.Buffer
		fl := &fakeListener{conns: make(chan net.Conn, 3)}
		var peers []net.Conn
		for _, ip := range []string{"8.8.8.8", "100.64.1.1", "192.168.1.2"} {
			a, b := net.Pipe()
			peers = append(peers, b)
			fl.conns <- remoteConn{a, &net.TCPAddr{IP: net.ParseIP(ip), Port: 40000}}
		}
		close(fl.conns)
		l := &tcpListener{ln: fl, allowPublic: allow, addr: "tcp://0.0.0.0:1",
			log: slog.New(slog.NewTextHandler(&logs, nil))}

		var got []string
		for {
			c, err := l.Accept()
			if err != nil {
				if !errors.Is(err, net.ErrClosed) {
					t.Fatalf("allow=%v: accept: %v", allow, err)
				}
				break
			}
			got = append(got, c.RemoteAddr().(*net.TCPAddr).IP.String())
			c.Close()
		}
		want := "192.168.1.2"
		if allow {
			want = "8.8.8.8,100.64.1.1,192.168.1.2"
		}
		if strings.Join(got, ",") != want {
			t.Fatalf("allow=%v: accepted %v, want %s", allow, got, want)
		}
		// Every conn was closed: by the policy or by the loop above.
		for i, p := range peers {
			if _, err := p.Read(make([]byte, 1)); err != io.EOF {
				t.Errorf("allow=%v: peer %d: read = %v, want io.EOF (conn closed)", allow, i, err)
			}
		}
		if !allow && (!strings.Contains(logs.String(), "8.8.8.8") || !strings.Contains(logs.String(), "--allow-public-tcp")) {
			t.Errorf("refusal not logged with the remote and the flag:\n%s", logs.String())
		}
		if allow && logs.String() != "" {
			t.Errorf("allow=true logged refusals:\n%s", logs.String())
		}
	}
}
