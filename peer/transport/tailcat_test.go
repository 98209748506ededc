package transport_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailscale/tailcat"
	"tailscale.com/envknob"

	"github.com/awp-tray/awp-tray/peer/key/keytest"
	"github.com/awp-tray/awp-tray/peer/transport"
	"github.com/awp-tray/awp-tray/peer/transport/tailcat/relaytest"
	"github.com/awp-tray/awp-tray/peer/transport/transporttest"
	"github.com/awp-tray/awp-tray/peer/wire"
)

func init() {
	// Keep tests on 127.0.0.1: no UPnP/NAT-PMP/PCP probes of the LAN
	// gateway, and no interface addresses among the endpoints magicsock
	// advertises (the STUN-learned 127.0.0.1 one remains).
	envknob.Setenv("TS_DISABLE_PORTMAPPER", "true")
	envknob.Setenv("TS_DEBUG_OMIT_LOCAL_ADDRS", "true")
}

// Every test here runs against an in-process DERP relay and STUN server
// on 127.0.0.1 (relaytest), passed as Options.Tailcat.DERPMap: nothing
// fetches a DERP map or reaches a public relay.

// tailcatPair starts a relay, a listening Manager (key seed 1) and a
// dialing Manager (seed 2), and returns the listener and a dial func.
func tailcatPair(t *testing.T) (transport.Listener, transporttest.DialFunc) {
	r := relaytest.New(t)
	o := transport.TailcatOptions{DERPMap: r.Map}
	a := newManager(t, "A", transport.Options{Key: keytest.Seeded(t, 1), Tailcat: o})
	b := newManager(t, "B", transport.Options{Key: keytest.Seeded(t, 2), Tailcat: o})
	l := listen(t, a, transport.TailcatListen)
	return l, managerDial(b, l.Addr())
}

func TestConformanceTailcat(t *testing.T) {
	transporttest.Run(t, tailcatPair)
}

// TestTailcatToken checks the listener's address: a token that parses as
// a tailcat address, embeds the relay (so a dialer needs no DERP map), is
// the same for the same identity, and differs for another.
func TestTailcatToken(t *testing.T) {
	transporttest.NoLeaks(t)
	r := relaytest.New(t)
	o := transport.TailcatOptions{DERPMap: r.Map}
	tok := func(seed byte) string {
		m := newManager(t, "m", transport.Options{Key: keytest.Seeded(t, seed), Tailcat: o})
		l := listen(t, m, transport.TailcatListen)
		defer m.Close()
		return l.Addr()
	}
	t1, t1again, t2 := tok(1), tok(1), tok(2)
	if t1 != t1again {
		t.Errorf("same key, new token:\n%s\n%s", t1, t1again)
	}
	if t1 == t2 {
		t.Errorf("two keys, one token %s", t1)
	}
	a, err := transport.ParseAddr(t1)
	if err != nil || a.Scheme != transport.SchemeTailcat {
		t.Fatalf("ParseAddr(%s) = %+v, %v", t1, a, err)
	}
	ci, err := tailcat.ParseConnBlob(tailcat.ConnBlob(t1))
	if err != nil {
		t.Fatal(err)
	}
	if len(ci.Region) != 1 || ci.Region[0].Nodes[0].DERPPort != r.Region().Nodes[0].DERPPort {
		t.Errorf("token region = %+v, want the test relay", ci.Region)
	}
	if ci.ServerPublic.NodePublic != transport.TailcatNodeKey(keytest.Seeded(t, 1)).Public() {
		t.Errorf("token key is not the derived node key")
	}
}

// TestTailcatRestart restarts the listening Manager with the same key,
// listening on its saved token: the token is unchanged and a new dial
// (the dialer's conn from before saw EOF) reaches the new server.
func TestTailcatRestart(t *testing.T) {
	transporttest.NoLeaks(t)
	r := relaytest.New(t)
	o := transport.TailcatOptions{DERPMap: r.Map, StateDir: t.TempDir()}
	d := newManager(t, "dialer", transport.Options{Key: keytest.Seeded(t, 2), Tailcat: o})

	m1 := newManager(t, "L1", transport.Options{Key: keytest.Seeded(t, 1), Tailcat: o})
	l1 := listen(t, m1, transport.TailcatListen)
	tok := l1.Addr()
	c1, s1 := transporttest.Pair(t, l1, managerDial(d, tok))
	echoLine(t, c1, s1, "before")
	m1.Close()
	// The listener's close reaches the dialer as EOF.
	if _, err := c1.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("dialer read after listener close: %v, want EOF", err)
	}
	c1.Close()

	m2 := newManager(t, "L2", transport.Options{Key: keytest.Seeded(t, 1), Tailcat: o})
	l2 := listen(t, m2, tok)
	if l2.Addr() != tok {
		t.Fatalf("token changed across restart:\n%s\n%s", tok, l2.Addr())
	}
	c2, s2 := transporttest.Pair(t, l2, managerDial(d, tok))
	echoLine(t, c2, s2, "after")
}

// echoLine sends line from c to s and back.
func echoLine(t *testing.T, c, s net.Conn, line string) {
	t.Helper()
	go func() {
		l, err := bufio.NewReader(s).ReadString('\n')
		if err == nil {
			io.WriteString(s, strings.ToUpper(l))
		}
	}()
	if _, err := io.WriteString(c, line+"\n"); err != nil {
		t.Fatal(err)
	}
	got, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || got != strings.ToUpper(line)+"\n" {
		t.Fatalf("echo %q = %q, %v", line, got, err)
	}
}

func TestTailcatErrors(t *testing.T) {
	transporttest.NoLeaks(t)
	r := relaytest.New(t)
	o := transport.TailcatOptions{DERPMap: r.Map}
	ctx := testCtx(t)
	a := newManager(t, "A", transport.Options{Key: keytest.Seeded(t, 1), Tailcat: o})
	l := listen(t, a, transport.TailcatListen)
	if _, err := a.Listen(ctx, transport.TailcatListen); !errors.Is(err, transport.ErrInUse) {
		t.Errorf("second tailcat listen: %v, want ErrInUse", err)
	}
	b := newManager(t, "B", transport.Options{Key: keytest.Seeded(t, 2), Tailcat: o})
	if _, err := b.Listen(ctx, l.Addr()); !errors.Is(err, transport.ErrUnsupported) {
		t.Errorf("listen on another node's token: %v, want ErrUnsupported", err)
	}
	nokey := newManager(t, "nokey", transport.Options{Tailcat: o})
	if _, err := nokey.Listen(ctx, transport.TailcatListen); !errors.Is(err, transport.ErrNoKey) {
		t.Errorf("listen without key: %v, want ErrNoKey", err)
	}
	// A keyless Manager still dials (its tailcat key is ephemeral).
	c, s := transporttest.Pair(t, l, managerDial(nokey, l.Addr()))
	echoLine(t, c, s, "keyless")
}

func TestParseTailcatRelay(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want transport.TailcatOptions
		bad  bool
	}{
		{"", transport.TailcatOptions{}, false},
		{"default", transport.TailcatOptions{}, false},
		{"https://derp.example.com/derpmap.json", transport.TailcatOptions{DERPMapURL: "https://derp.example.com/derpmap.json"}, false},
		{"derp.example.com", transport.TailcatOptions{Relay: "derp.example.com"}, false},
		{"derp.example.com:8443,derp2.example.com", transport.TailcatOptions{Relay: "derp.example.com:8443,derp2.example.com"}, false},
		{"derp.example.com:0", transport.TailcatOptions{}, true},
		{"a b", transport.TailcatOptions{}, true},
		{",", transport.TailcatOptions{}, true},
	} {
		got, err := transport.ParseTailcatRelay(tc.in)
		if (err != nil) != tc.bad || (err == nil && (got.Relay != tc.want.Relay || got.DERPMapURL != tc.want.DERPMapURL)) {
			t.Errorf("ParseTailcatRelay(%q) = %+v, %v", tc.in, got, err)
		}
	}
}

// TestTailcatStateFile checks that a listener on a DERP map saves the
// region it serves from (0600), so the token survives restarts even when
// the map would pick differently.
func TestTailcatStateFile(t *testing.T) {
	transporttest.NoLeaks(t)
	r := relaytest.New(t)
	dir := t.TempDir()
	// Pre-seed a state file naming the relay's region, as if picked from
	// the default map earlier; with no DERPMap option the listener must
	// use it rather than fetch anything.
	reg := r.Region()
	st := `{"source":"` + tailcat.DefaultDERPMapURL + `","region":` + string(wire.MustMarshal(reg)) + `}`
	if err := os.WriteFile(filepath.Join(dir, transport.TailcatStateFile), []byte(st), 0o600); err != nil {
		t.Fatal(err)
	}
	m := newManager(t, "A", transport.Options{Key: keytest.Seeded(t, 1), Tailcat: transport.TailcatOptions{StateDir: dir}})
	l := listen(t, m, transport.TailcatListen)
	ci, err := tailcat.ParseConnBlob(tailcat.ConnBlob(l.Addr()))
	if err != nil || len(ci.Region) != 1 || ci.Region[0].Nodes[0].DERPPort != reg.Nodes[0].DERPPort {
		t.Fatalf("token region = %+v, %v; want the saved one", ci.Region, err)
	}
	fi, err := os.Stat(filepath.Join(dir, transport.TailcatStateFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("state file: %v, %v", fi, err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, transport.TailcatStateFile))
	if !strings.Contains(string(b), l.Addr()) {
		t.Errorf("state file does not record the token: %s", b)
	}
}

// TestTailcatConnBuffers checks that both ends of a tailcat conn have the
// bounded TCP buffers (tailcat_tcpbuf.go), not tailscale's netstack's
// auto-tuned ones (receive 1 MiB growing to 8 MiB, send growing to 6 MiB),
// and still carry a stream larger than both.
func TestTailcatConnBuffers(t *testing.T) {
	l, dial := tailcatPair(t)
	c, err := dial(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for name, conn := range map[string]net.Conn{"dialed": c, "accepted": s} {
		snd, rcv, err := transport.TailcatConnBuffers(conn)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if snd != transport.TailcatSendBuffer || rcv != transport.TailcatReceiveBuffer {
			t.Errorf("%s conn: send buffer %d, receive buffer %d; want %d, %d",
				name, snd, rcv, transport.TailcatSendBuffer, transport.TailcatReceiveBuffer)
		}
	}
	const n = 8 << 20 // several windows
	done := make(chan error, 1)
	go func() {
		buf := make([]byte, 64<<10)
		for i := range buf {
			buf[i] = byte(i)
		}
		var err error
		for sent := 0; sent < n && err == nil; sent += len(buf) {
			_, err = c.Write(buf)
		}
		done <- err
	}()
	got, err := io.CopyN(io.Discard, s, n)
	if err != nil || got != n {
		t.Fatalf("received %d of %d bytes: %v", got, n, err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
