package transport

import (
	"fmt"
	"net"
	"net/netip"
	"path"
	"strconv"
	"strings"

	"github.com/awp-tray/awp-tray/peer/key"
)

// Address schemes, as Addr.Scheme holds them.
const (
	SchemeTCP     = "tcp"     // tcp://HOST:PORT
	SchemeUnix    = "unix"    // unix:///abs/path
	SchemeWG      = "wg"      // wg://HOST:PORT#ed25519:KEY (listen: wg://HOST:PORT)
	SchemeTailcat = "tailcat" // tc… token; parsed, not served by this package
	SchemeMem     = "mem"     // mem://NAME, in-process (Options.Mem)
)

// wantForms names the forms a person may give (mem:// is for tests and not
// offered).
const wantForms = "want tcp://, unix://, wg:// or a tailcat token (tc…)"

// maxAddrLen bounds an address's length; no valid form comes close.
const maxAddrLen = 4096

// Addr is a parsed AWP address (docs/protocol/addresses.md).
type Addr struct {
	Scheme string        // one of the Scheme constants
	Host   string        // tcp, wg: a DNS name or an IP literal (no brackets); mem: the name
	Port   int           // tcp, wg: 0–65535 (0 = pick one, listen only)
	Path   string        // unix: the absolute, clean socket path
	Key    key.PublicKey // wg: the peer's AWP key (zero in the listen form)
	Raw    string        // the text as given to ParseAddr
}

// ParseAddr parses one of the address forms:
//
//	tcp://HOST:PORT               HOST a name, an IPv4 literal or a [IPv6] literal
//	unix:///abs/path              an absolute, clean path
//	wg://HOST:PORT#ed25519:KEY    the key is optional (the listen form)
//	tc…                           a tailcat token (letters, digits, "_", "-", ".")
//	mem://NAME                    in-process, for tests
//
// Errors wrap ErrBadAddr.
func ParseAddr(s string) (Addr, error) {
	a, err := parseAddr(s)
	if err != nil {
		return Addr{}, fmt.Errorf("%w: %q: %s", ErrBadAddr, trunc(s), err)
	}
	a.Raw = s
	return a, nil
}

// addrError is a reason inside ErrBadAddr; it keeps the messages short.
type addrError string

func (e addrError) Error() string { return string(e) }

func parseAddr(s string) (Addr, error) {
	if len(s) > maxAddrLen {
		return Addr{}, addrError("too long")
	}
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		if strings.HasPrefix(s, "tc") && !strings.Contains(s, ":") {
			return parseTailcat(s)
		}
		return Addr{}, addrError(wantForms)
	}
	switch scheme {
	case SchemeTCP:
		host, port, err := parseHostPort(rest)
		if err != nil {
			return Addr{}, err
		}
		return Addr{Scheme: SchemeTCP, Host: host, Port: port}, nil
	case SchemeWG:
		hp, frag, hasKey := strings.Cut(rest, "#")
		host, port, err := parseHostPort(hp)
		if err != nil {
			return Addr{}, err
		}
		a := Addr{Scheme: SchemeWG, Host: host, Port: port}
		if hasKey {
			k, err := key.ParsePublic(frag)
			if err != nil {
				return Addr{}, addrError("bad key after #: want ed25519:KEY")
			}
			a.Key = k
		}
		return a, nil
	case SchemeUnix:
		return parseUnix(rest)
	case SchemeMem:
		if !isToken(rest) {
			return Addr{}, addrError("mem name must be letters, digits, '_', '-', '.'")
		}
		return Addr{Scheme: SchemeMem, Host: rest}, nil
	}
	return Addr{}, addrError("unknown scheme " + strconv.Quote(trunc(scheme)) + "; " + wantForms)
}

// parseHostPort parses HOST:PORT where an IPv6 HOST is in brackets.
func parseHostPort(hp string) (string, int, error) {
	host, ps, err := net.SplitHostPort(hp)
	if err != nil {
		return "", 0, addrError("want HOST:PORT ([IPv6]:PORT)")
	}
	port, err := parsePort(ps)
	if err != nil {
		return "", 0, err
	}
	bracketed := strings.HasPrefix(hp, "[")
	if ip, err := netip.ParseAddr(host); err == nil {
		if ip.Is6() != bracketed {
			return "", 0, addrError("IPv6 literals, and only they, go in brackets")
		}
		if z := ip.Zone(); z != "" && !isToken(z) {
			return "", 0, addrError("bad IPv6 zone")
		}
		return host, port, nil
	}
	if bracketed || !isHostname(host) {
		return "", 0, addrError("bad host")
	}
	return host, port, nil
}

// parsePort parses a decimal port 0–65535.
func parsePort(s string) (int, error) {
	if s == "" || len(s) > 5 {
		return 0, addrError("bad port")
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, addrError("bad port")
		}
	}
	p, _ := strconv.Atoi(s)
	if p > 65535 {
		return 0, addrError("port over 65535")
	}
	return p, nil
}

// isHostname reports whether h is a DNS name: dot-separated labels of
// letters, digits, '-' and '_', each 1–63 long, 253 at most in all, and a
// last label that is not all digits (so "1.2.3" is not taken for a name).
func isHostname(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	labels := strings.Split(h, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(isAlnum(c) || c == '-' || c == '_') {
				return false
			}
		}
	}
	last := labels[len(labels)-1]
	return strings.Trim(last, "0123456789") != ""
}

func parseUnix(p string) (Addr, error) {
	if !strings.HasPrefix(p, "/") {
		return Addr{}, addrError("unix path must be absolute: unix:///abs/path")
	}
	if p == "/" || path.Clean(p) != p {
		return Addr{}, addrError("unix path must be clean and name a file")
	}
	if strings.ContainsAny(p, "\x00\n\r") {
		return Addr{}, addrError("unix path holds a control character")
	}
	return Addr{Scheme: SchemeUnix, Path: p}, nil
}

// parseTailcat accepts "tc" and at least 8 token characters. The token's
// inner format belongs to tailcat; this package only recognizes it.
func parseTailcat(s string) (Addr, error) {
	if len(s) < 10 || !isToken(s) {
		return Addr{}, addrError("bad tailcat token")
	}
	return Addr{Scheme: SchemeTailcat}, nil
}

// isToken reports whether s is non-empty and made of letters, digits, '_',
// '-' and '.'.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isAlnum(c) || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// String returns the canonical text form; ParseAddr(a.String()) gives a
// back (but for Raw). A tailcat address is its token.
func (a Addr) String() string {
	switch a.Scheme {
	case SchemeTCP:
		return "tcp://" + a.hostPort()
	case SchemeWG:
		s := "wg://" + a.hostPort()
		if !a.Key.IsZero() {
			s += "#" + a.Key.String()
		}
		return s
	case SchemeUnix:
		return "unix://" + a.Path
	case SchemeMem:
		return "mem://" + a.Host
	case SchemeTailcat:
		return a.Raw
	}
	return a.Raw
}

// hostPort joins Host and Port, bracketing IPv6 literals.
func (a Addr) hostPort() string { return net.JoinHostPort(a.Host, strconv.Itoa(a.Port)) }

func trunc(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
