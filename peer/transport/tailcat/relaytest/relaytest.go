// Package relaytest runs a DERP relay and a STUN server in process on
// 127.0.0.1, so tailcat tests and benchmarks need no network and no
// public relay (the set-up tailcat's own tests and its CLI's --dev-derp
// use). The relay's TLS certificate is self-signed; its DERP map marks the
// node InsecureForTests, so clients skip verification. Never use it
// outside tests and benchmarks.
package relaytest

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"tailscale.com/derp/derpserver"
	"tailscale.com/net/stun"
	"tailscale.com/tailcfg"
	"tailscale.com/types/key"
	"tailscale.com/types/logger"
)

// Relay is a running DERP relay and STUN server on 127.0.0.1.
type Relay struct {
	// Map is the one-region DERP map (region 1) that reaches the relay.
	Map *tailcfg.DERPMap

	d    *derpserver.Server
	srv  *httptest.Server
	stun *net.UDPConn
	done chan struct{} // closed when the STUN loop returns
	once sync.Once
}

// Start starts a relay. logf receives the relay's logs; nil discards them.
func Start(logf logger.Logf) (*Relay, error) {
	if logf == nil {
		logf = logger.Discard
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("relaytest: %w", err)
	}
	uc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("relaytest: %w", err)
	}
	r := &Relay{d: derpserver.New(key.NewNode(), logf), stun: uc, done: make(chan struct{})}
	r.srv = httptest.NewUnstartedServer(derpserver.Handler(r.d))
	r.srv.Listener.Close()
	r.srv.Listener = ln
	r.srv.Config.ErrorLog = logger.StdLogger(logf)
	r.srv.Config.TLSNextProto = make(map[string]func(*http.Server, *tls.Conn, http.Handler))
	r.srv.StartTLS()
	go r.serveSTUN()

	r.Map = &tailcfg.DERPMap{Regions: map[int]*tailcfg.DERPRegion{
		1: {
			RegionID:   1,
			RegionCode: "local",
			RegionName: "in-process test relay",
			Nodes: []*tailcfg.DERPNode{{
				Name:     "1a",
				RegionID: 1,
				HostName: "127.0.0.1",
				IPv4:     "127.0.0.1",
				// netcheck's "no IPv6 probes" value: anything else leaves
				// probes running until their timeout.
				IPv6:             "none",
				STUNPort:         uc.LocalAddr().(*net.UDPAddr).Port,
				DERPPort:         ln.Addr().(*net.TCPAddr).Port,
				InsecureForTests: true,
				STUNTestIP:       "127.0.0.1",
			}},
		},
	}}
	return r, nil
}

// New starts a relay that is closed when t ends, logging to t.
func New(t testing.TB) *Relay {
	t.Helper()
	r, err := Start(func(format string, args ...any) {
		if !t.Failed() {
			t.Logf("relay: "+format, args...)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// Region returns the relay's region (region 1 of Map).
func (r *Relay) Region() *tailcfg.DERPRegion { return r.Map.Regions[1] }

// serveSTUN answers STUN binding requests until the socket closes.
func (r *Relay) serveSTUN() {
	defer close(r.done)
	var buf [1500]byte
	for {
		n, src, err := r.stun.ReadFromUDPAddrPort(buf[:])
		if err != nil {
			return
		}
		txid, err := stun.ParseBindingRequest(buf[:n])
		if err != nil {
			continue
		}
		r.stun.WriteToUDPAddrPort(stun.Response(txid, src), src)
	}
}

// Close stops the relay and the STUN server. It is idempotent.
func (r *Relay) Close() error {
	r.once.Do(func() {
		r.srv.CloseClientConnections()
		r.srv.Close()
		r.d.Close()
		r.stun.Close()
		<-r.done
	})
	return nil
}
