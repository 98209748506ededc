package transport

import "net/netip"

// TrustedIP reports whether plaintext TCP may run to or from ip without
// Options.AllowPublicTCP (docs/protocol/bindings.md). Counted as trusted:
//
//   - loopback: 127.0.0.0/8, ::1
//   - private: 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16 (RFC 1918) and
//     fc00::/7 (RFC 4193 unique local)
//   - link-local: 169.254.0.0/16, fe80::/10 (never routed off the link)
//   - unspecified: 0.0.0.0, :: (listening there is filtered per connection
//     at Accept; dialing it reaches this host)
//
// Not counted: everything else, including 100.64.0.0/10 (RFC 6598 shared
// address space: a carrier-grade NAT's other customers sit there; tailnets
// that use it are better served by the wg binding or the flag). An
// IPv4-mapped IPv6 address is judged by its IPv4 address.
func TrustedIP(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified()
}
