package transport_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/transport"
)

const aliceKey = "ed25519:ebVWLo_mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ"

func TestParseAddr(t *testing.T) {
	alice := key.MustParsePublic(aliceKey)
	good := []struct {
		in   string
		want transport.Addr // Raw is filled in by the test
		str  string         // canonical form, "" = same as in
	}{
		{"tcp://127.0.0.1:4000", transport.Addr{Scheme: "tcp", Host: "127.0.0.1", Port: 4000}, ""},
		{"tcp://127.0.0.1:0", transport.Addr{Scheme: "tcp", Host: "127.0.0.1", Port: 0}, ""},
		{"tcp://[::1]:65535", transport.Addr{Scheme: "tcp", Host: "::1", Port: 65535}, ""},
		{"tcp://[fe80::1%eth0]:7", transport.Addr{Scheme: "tcp", Host: "fe80::1%eth0", Port: 7}, ""},
		{"tcp://localhost:80", transport.Addr{Scheme: "tcp", Host: "localhost", Port: 80}, ""},
		{"tcp://build-box.example_corp.internal:22", transport.Addr{Scheme: "tcp", Host: "build-box.example_corp.internal", Port: 22}, ""},
		{"tcp://h1:080", transport.Addr{Scheme: "tcp", Host: "h1", Port: 80}, "tcp://h1:80"},
		{"unix:///run/awp/awp.sock", transport.Addr{Scheme: "unix", Path: "/run/awp/awp.sock"}, ""},
		{"unix:///tmp/with space#and?query", transport.Addr{Scheme: "unix", Path: "/tmp/with space#and?query"}, ""},
		{"wg://203.0.113.7:51820#" + aliceKey, transport.Addr{Scheme: "wg", Host: "203.0.113.7", Port: 51820, Key: alice}, ""},
		{"wg://[2001:db8::7]:51820#" + aliceKey, transport.Addr{Scheme: "wg", Host: "2001:db8::7", Port: 51820, Key: alice}, ""},
		{"wg://peer.example.com:1#" + aliceKey, transport.Addr{Scheme: "wg", Host: "peer.example.com", Port: 1, Key: alice}, ""},
		{"wg://0.0.0.0:51820", transport.Addr{Scheme: "wg", Host: "0.0.0.0", Port: 51820}, ""},
		{"tcAbCdEf0123_-.xyz", transport.Addr{Scheme: "tailcat"}, ""},
		{"mem://node-a.1", transport.Addr{Scheme: "mem", Host: "node-a.1"}, ""},
	}
	for _, tc := range good {
		t.Run(tc.in, func(t *testing.T) {
			a, err := transport.ParseAddr(tc.in)
			if err != nil {
				t.Fatalf("ParseAddr: %v", err)
			}
			tc.want.Raw = tc.in
			if a != tc.want {
				t.Fatalf("ParseAddr = %+v, want %+v", a, tc.want)
			}
			str := tc.str
			if str == "" {
				str = tc.in
			}
			if a.String() != str {
				t.Fatalf("String() = %q, want %q", a.String(), str)
			}
		})
	}

	bad := []string{
		"",
		"tcp://",
		"tcp://127.0.0.1",       // no port
		"tcp://127.0.0.1:",      // empty port
		"tcp://127.0.0.1:65536", // port too big
		"tcp://127.0.0.1:-1",    // negative
		"tcp://127.0.0.1:+80",   // sign
		"tcp://127.0.0.1:8 0",   // space
		"tcp://::1:80",          // IPv6 without brackets
		"tcp://[127.0.0.1]:80",  // IPv4 in brackets
		"tcp://[localhost]:80",  // name in brackets
		"tcp://1.2.3:80",        // not an IPv4 literal, not a name
		"tcp://010.0.0.1:80",    // leading zero: ambiguous
		"tcp://a..b:80",         // empty label
		"tcp://-a.b:80",         // leading hyphen
		"tcp://a b:80",          // space
		"tcp://user@host:80",    // userinfo
		"tcp://host:80/path",    // path
		"tcp://[fe80::1%e/0]:7", // bad zone
		"TCP://127.0.0.1:80",    // schemes are lower case
		"tcp:127.0.0.1:80",      // missing //
		"udp://127.0.0.1:80",    // unknown scheme
		"unix://relative.sock",  // not absolute
		"unix://host/abs.sock",  // host part
		"unix:///",              // the root
		"unix:///tmp/../etc/x",  // not clean
		"unix:///tmp/x/",        // trailing slash
		"unix:///tmp/a\x00b",    // NUL
		"wg://1.2.3.4:51820#",   // empty key
		"wg://1.2.3.4:51820#" + aliceKey[:20],
		"wg://1.2.3.4:51820#ed25519:" + strings.Repeat("A", 42) + "B", // non-canonical
		"wg://1.2.3.4#" + aliceKey,                                    // no port
		"tc",                                                          // empty token
		"tcshort",                                                     // too short
		"tc!nvalid-token-here",                                        // bad character
		"mem://",                                                      // empty name
		"mem://a/b",                                                   // slash
		"tcp://" + strings.Repeat("a", 4100) + ":1", // too long
	}
	for _, in := range bad {
		if a, err := transport.ParseAddr(in); !errors.Is(err, transport.ErrBadAddr) {
			t.Errorf("ParseAddr(%q) = %+v, %v; want ErrBadAddr", in, a, err)
		}
	}
}

// FuzzParseAddr checks that the parser never panics and that every address
// it accepts round-trips through String.
func FuzzParseAddr(f *testing.F) {
	for _, s := range []string{
		"tcp://127.0.0.1:4000", "tcp://[::1]:0", "tcp://[fe80::1%eth0]:7", "tcp://localhost:80",
		"unix:///run/awp.sock", "wg://0.0.0.0:51820", "wg://1.2.3.4:51820#" + aliceKey,
		"tcAbCdEf0123_-.xyz", "mem://x", "tcp://[127.0.0.1]:80", "unix:///a/../b", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := transport.ParseAddr(s)
		if err != nil {
			if !errors.Is(err, transport.ErrBadAddr) {
				t.Fatalf("ParseAddr(%q) error %v does not wrap ErrBadAddr", s, err)
			}
			return
		}
		if a.Raw != s {
			t.Fatalf("Raw = %q, want %q", a.Raw, s)
		}
		str := a.String()
		b, err := transport.ParseAddr(str)
		if err != nil {
			t.Fatalf("ParseAddr(%q) ok, but its String %q does not parse: %v", s, str, err)
		}
		b.Raw, a.Raw = "", ""
		if a != b {
			t.Fatalf("round trip of %q via %q: %+v != %+v", s, str, b, a)
		}
		if b2, _ := transport.ParseAddr(str); b2.String() != str {
			t.Fatalf("String not stable: %q → %q", str, b2.String())
		}
	})
}
