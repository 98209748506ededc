package transport_test

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/awp-tray/awp-tray/peer/transport"
)

func TestTrustedIP(t *testing.T) {
	for _, tc := range []struct {
		ip   string
		want bool
	}{
		{"127.0.0.1", true}, {"127.8.9.10", true}, {"::1", true},
		{"10.0.0.1", true}, {"10.255.255.255", true},
		{"172.16.0.1", true}, {"172.31.255.255", true}, {"172.15.255.255", false}, {"172.32.0.1", false},
		{"192.168.1.20", true}, {"192.169.0.1", false},
		{"fd00::1", true}, {"fc00::1", true}, {"fe00::1", false},
		{"169.254.10.10", true}, {"fe80::1", true}, {"fe80::1%eth0", true},
		{"0.0.0.0", true}, {"::", true},
		{"::ffff:10.1.2.3", true}, {"::ffff:8.8.8.8", false},
		{"100.64.0.1", false}, {"100.127.255.254", false}, // CGNAT: not private (RFC 6598)
		{"8.8.8.8", false}, {"203.0.113.7", false}, {"2001:db8::1", false}, {"2606:4700::1111", false},
		{"224.0.0.1", false}, {"255.255.255.255", false},
	} {
		if got := transport.TrustedIP(netip.MustParseAddr(tc.ip)); got != tc.want {
			t.Errorf("TrustedIP(%s) = %v, want %v", tc.ip, got, tc.want)
		}
	}
	if transport.TrustedIP(netip.Addr{}) {
		t.Error("TrustedIP(invalid) = true")
	}
}

// TestPublicTCPPolicy checks Listen and Dial against the policy. Refusals
// happen before any socket is made, so the public addresses here never see
// a packet; allowed non-loopback dials use a cancelled context, which the
// dialer checks before it sends anything.
func TestPublicTCPPolicy(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	strict := newManager(t, "strict", transport.Options{})
	open := newManager(t, "open", transport.Options{AllowPublicTCP: true})

	for _, tc := range []struct {
		name   string
		m      *transport.Manager
		op     string // "listen" or "dial"
		addr   string
		public bool // want ErrPublicTCP
	}{
		{"listen loopback", strict, "listen", "tcp://127.0.0.1:0", false},
		{"listen loopback v6", strict, "listen", "tcp://[::1]:0", false},
		{"listen localhost", strict, "listen", "tcp://localhost:0", false},
		{"listen public", strict, "listen", "tcp://8.8.8.8:0", true},
		{"listen public v6", strict, "listen", "tcp://[2606:4700::1111]:0", true},
		{"listen cgnat", strict, "listen", "tcp://100.64.0.1:0", true},
		{"listen public allowed", open, "listen", "tcp://8.8.8.8:0", false},
		{"dial public", strict, "dial", "tcp://8.8.8.8:53", true},
		{"dial public v6", strict, "dial", "tcp://[2001:db8::1]:80", true},
		{"dial cgnat", strict, "dial", "tcp://100.100.100.100:80", true},
		{"dial mapped public", strict, "dial", "tcp://[::ffff:8.8.8.8]:80", true},
		{"dial private 10/8", strict, "dial", "tcp://10.1.2.3:80", false},
		{"dial private 192.168/16", strict, "dial", "tcp://192.168.7.7:80", false},
		{"dial private fd00::/8", strict, "dial", "tcp://[fd12::1]:80", false},
		{"dial link-local", strict, "dial", "tcp://169.254.1.1:80", false},
		{"dial public allowed", open, "dial", "tcp://8.8.8.8:53", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.op == "listen" {
				var l transport.Listener
				l, err = tc.m.Listen(context.Background(), tc.addr)
				if err == nil {
					l.Close()
				}
			} else {
				var c interface{ Close() error }
				c, err = tc.m.Dial(cancelled, tc.addr)
				if err == nil {
					c.Close()
					t.Fatal("dial with a cancelled context succeeded")
				}
			}
			if got := errors.Is(err, transport.ErrPublicTCP); got != tc.public {
				t.Fatalf("%s %s: err = %v; ErrPublicTCP = %v, want %v", tc.op, tc.addr, err, got, tc.public)
			}
			if tc.public && !strings.Contains(err.Error(), "--allow-public-tcp") {
				t.Fatalf("error %q does not name --allow-public-tcp", err)
			}
			if tc.op == "listen" && !tc.public && tc.m == strict && err != nil {
				t.Fatalf("listen %s: %v", tc.addr, err)
			}
		})
	}
}
