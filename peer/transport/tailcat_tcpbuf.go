package transport

// The TCP buffers of a tailcat conn (docs/protocol/choices.md "What a
// tailcat conn may have in flight").
//
// Every packet that waits inside tailscale's wireguard-go (to be encrypted
// and sent, or received and not yet decrypted and given to the netstack)
// holds a buffer of 64 KiB (device.MaxMessageSize on Linux, a constant)
// for about 1.2 KB of TCP payload: a 53-fold blow-up. When a node's CPU is
// what bounds the tunnel (always on loopback, on a busy laptop too), the
// packets a TCP window lets out pile up there: with tailscale's netstack
// buffers (8 MiB receive, 6 MiB send) a 64 MiB blob held 145-223 MiB of
// them on the receiving node. A tailcat conn therefore gets a send buffer
// of tailcatSendBuffer and a receive buffer of tailcatReceiveBuffer, which
// turns the netstack's buffer auto-tuning off for that conn.

import (
	"errors"
	"fmt"
	"net"
	"reflect"
	"unsafe"

	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/adapters/gonet"
)

// tailcatWindow is the most a tailcat conn has in flight each way. At
// 64 KiB per queued packet that is at most about 27 MiB of wireguard-go
// buffers per direction (with 1 MiB the sending node of a 64 MiB blob
// peaked at 112-129 MiB, with 512 KiB at 102-111, against 175-213 with
// tailscale's buffers); the price is a path's rate, at most tailcatWindow
// per round trip: 5 MB/s at 100 ms, 20 MB/s at 25 ms, 100 MB/s at 5 ms
// (tailscale's 8 MiB allows 80 MB/s at 100 ms). Loopback's raw tunnel
// still ran 60-180 MB/s with it.
const tailcatWindow = 512 << 10

// tailcatSendBuffer bounds what this side has sent and not had acked (plus
// what waits to be sent): gVisor keeps a segment in the send buffer until
// it is acked.
const tailcatSendBuffer = tailcatWindow

// tailcatReceiveBuffer is twice the window: gVisor advertises half of the
// receive buffer's free space as the window (tcp.rcvAdvWndScale), the
// other half covering the segments' overhead, as Linux does.
const tailcatReceiveBuffer = 2 * tailcatWindow

// errNotGonet is a conn that is not gVisor's (a tailcat that hands out
// another type): its buffers are left as they are.
var errNotGonet = errors.New("not a gVisor netstack conn")

// boundTailcatBuffers sets c's TCP send and receive buffers.
func boundTailcatBuffers(c net.Conn) error {
	ep, err := gonetEndpoint(c)
	if err != nil {
		return err
	}
	so := ep.SocketOptions()
	so.SetSendBufferSize(tailcatSendBuffer, true)
	so.SetReceiveBufferSize(tailcatReceiveBuffer, true)
	return nil
}

// gonetEndpoint returns the gVisor endpoint under a conn from tailscale's
// netstack. gonet.TCPConn does not export it; neither tailcat nor
// tailscale's netstack offers a way to set a conn's buffers. The field is
// found by name and type, so a gVisor that renames or retypes it makes
// this an error (and TestTailcatConnBuffers fail), not a bad read.
func gonetEndpoint(c net.Conn) (tcpip.Endpoint, error) {
	gc, ok := c.(*gonet.TCPConn)
	if !ok || gc == nil {
		return nil, fmt.Errorf("%w: %T", errNotGonet, c)
	}
	if !gonetEPOK {
		return nil, errors.New("gonet.TCPConn has no field ep of type tcpip.Endpoint")
	}
	ep := *(*tcpip.Endpoint)(unsafe.Add(unsafe.Pointer(gc), gonetEP.Offset))
	if ep == nil {
		return nil, errors.New("gonet.TCPConn without an endpoint")
	}
	return ep, nil
}

var gonetEP, gonetEPOK = func() (reflect.StructField, bool) {
	f, ok := reflect.TypeFor[gonet.TCPConn]().FieldByName("ep")
	return f, ok && f.Type == reflect.TypeFor[tcpip.Endpoint]()
}()
