package transport

import "net"

// Tailcat conn buffer sizes, for tests.
const (
	TailcatSendBuffer    = tailcatSendBuffer
	TailcatReceiveBuffer = tailcatReceiveBuffer
)

// TailcatConnBuffers returns the TCP send and receive buffer sizes of a
// conn from a tailcat listener or dial.
func TailcatConnBuffers(c net.Conn) (snd, rcv int64, err error) {
	tc, ok := c.(*tailcatConn)
	if !ok {
		return 0, 0, errNotGonet
	}
	ep, err := gonetEndpoint(tc.Conn)
	if err != nil {
		return 0, 0, err
	}
	so := ep.SocketOptions()
	return so.GetSendBufferSize(), so.GetReceiveBufferSize(), nil
}
