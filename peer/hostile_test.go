package peer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// rawPeer is a hand-driven AWP client on a raw connection to a node: it
// writes whatever a test wants and reads the node's lines one by one.
type rawPeer struct {
	t         testing.TB
	c         net.Conn
	r         *wire.Reader
	priv      key.PrivateKey
	node      key.PublicKey
	ids       wire.IDGen
	nodeHello []byte // the node's hello line as received
	myHello   []byte // my hello line as sent (without "\n", with a "\r" if sent)
	myAuth    []byte
}

// dialRaw connects to n's first listen address and reads the node's hello,
// which the node sends at once without waiting (docs/protocol/handshake.md).
func dialRaw(t testing.TB, n *testNode) *rawPeer {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(n.addr(), "tcp://"))
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	// A generous deadline so that a node that never answers fails the test
	// instead of hanging it; nothing asserts speed.
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	k, err := key.NewPrivate()
	if err != nil {
		t.Fatal(err)
	}
	p := &rawPeer{t: t, c: c, r: wire.NewReader(c), priv: k, node: n.Key()}
	f := p.read()
	if _, ok := f.(*wire.Hello); !ok {
		t.Fatalf("node's first line is %s, want hello", f.Header().T)
	}
	p.nodeHello = f.Raw()
	return p
}

// write sends b as it is (no newline added).
func (p *rawPeer) write(b []byte) {
	p.t.Helper()
	if _, err := p.c.Write(b); err != nil {
		p.t.Fatalf("write: %v", err)
	}
}

// line sends b and a newline.
func (p *rawPeer) line(b []byte) { p.t.Helper(); p.write(append(append([]byte(nil), b...), '\n')) }

// read returns the node's next line decoded; the test fails on a read error.
func (p *rawPeer) read() wire.Frame {
	p.t.Helper()
	raw, err := p.r.ReadLine()
	if err != nil {
		p.t.Fatalf("read: %v", err)
	}
	f, err := wire.Decode(raw)
	if err != nil {
		p.t.Fatalf("node sent an undecodable line %q: %v", raw, err)
	}
	return f
}

// obj encodes a JSON object with the given fields, adding t, id and ts
// unless they are set (a nil value removes a field).
func (p *rawPeer) obj(t string, fields map[string]any) []byte {
	p.t.Helper()
	m := map[string]any{"t": t, "id": p.ids.New(), "ts": wire.FormatTime(time.Now())}
	for k, v := range fields {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		p.t.Fatal(err)
	}
	return b
}

// hello builds a valid hello for p's key, changed by fields.
func (p *rawPeer) hello(fields map[string]any) []byte {
	m := map[string]any{"v": 0, "key": p.priv.Public().String(), "name": "raw", "nonce": wire.NewNonce(16), "caps": []string{"chat"}}
	for k, v := range fields {
		m[k] = v
	}
	return p.obj(wire.TypeHello, m)
}

// cut replaces old with new in b once; the test fails when old is absent.
func (p *rawPeer) cut(b []byte, old, new string) []byte {
	p.t.Helper()
	if !bytes.Contains(b, []byte(old)) {
		p.t.Fatalf("%q not in %s", old, b)
	}
	return bytes.Replace(b, []byte(old), []byte(new), 1)
}

// sendHello sends a hello line and remembers its bytes for auth.
func (p *rawPeer) sendHello(h []byte) {
	p.t.Helper()
	p.myHello = h
	p.line(h)
}

// authLine signs "awp-auth-v0" 0 my hello 0 the node's hello.
func (p *rawPeer) authLine() []byte {
	return p.obj(wire.TypeAuth, map[string]any{"sig": p.priv.SignText(wire.AuthMessage(p.myHello, p.nodeHello))})
}

// finishHandshake sends auth, checks the node's auth and reads its resume,
// then sends an empty resume.
func (p *rawPeer) finishHandshake() {
	p.t.Helper()
	p.finishHandshakeSeen(map[string]string{})
}

// finishHandshakeSeen is finishHandshake with a resume listing seen.
func (p *rawPeer) finishHandshakeSeen(seen map[string]string) {
	p.t.Helper()
	p.myAuth = p.authLine()
	p.line(p.myAuth)
	a, ok := p.read().(*wire.Auth)
	if !ok {
		p.t.Fatal("node did not answer with auth")
	}
	if !p.node.VerifyText(wire.AuthMessage(p.nodeHello, p.myHello), a.Sig) {
		p.t.Fatal("node's auth signature does not verify")
	}
	if _, ok := p.read().(*wire.Resume); !ok {
		p.t.Fatal("node did not send resume after auth")
	}
	p.line(p.obj(wire.TypeResume, map[string]any{"seen": seen}))
}

// handshake runs a complete, valid handshake.
func (p *rawPeer) handshake() {
	p.t.Helper()
	p.sendHello(p.hello(nil))
	p.finishHandshake()
}

// msg builds a valid msg in th.
func (p *rawPeer) msg(th, text string) (id string, line []byte) {
	id = p.ids.New()
	return id, p.obj(wire.TypeMsg, map[string]any{"id": id, "th": th, "parts": []json.RawMessage{wire.TextPart(text)}})
}

// expectErr reads lines until an err line and checks its code; handshake
// lines the node sends before it are skipped.
func (p *rawPeer) expectErr(code string) *wire.Err {
	p.t.Helper()
	for {
		f := p.read()
		switch f := f.(type) {
		case *wire.Err:
			if f.Code != code {
				p.t.Fatalf("node sent err %s (%s), want %s", f.Code, f.Msg, code)
			}
			return f
		case *wire.Hello, *wire.Auth, *wire.Resume, *wire.Presence:
		default:
			p.t.Fatalf("node sent %s while an err %s was expected: %s", f.Header().T, code, f.Raw())
		}
	}
}

// expectClosed checks that the node closed the connection: the next read
// ends (EOF, or a reset when the node closed with input unread) and no
// further line arrives.
func (p *rawPeer) expectClosed() {
	p.t.Helper()
	raw, err := p.r.ReadLine()
	if err == nil {
		p.t.Fatalf("node sent %q after a fatal err; want the connection closed", raw)
	}
	if !closedErr(err) {
		p.t.Fatalf("read after fatal err: %v; want EOF (connection closed)", err)
	}
}

// expectFatal checks that the node answered with a fatal err code and
// closed the connection.
func (p *rawPeer) expectFatal(code string) {
	p.t.Helper()
	p.expectErr(code)
	p.expectClosed()
}

func closedErr(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, net.ErrClosed)
}

// expectAck reads until the ack of id in th; an err line before it fails
// the test unless allowErr names its code (it is then returned).
func (p *rawPeer) expectAck(th, id string, allowErr string) (errs []*wire.Err) {
	p.t.Helper()
	for {
		switch f := p.read().(type) {
		case *wire.Ack:
			if f.Th == th && f.Of == id {
				return errs
			}
		case *wire.Err:
			if f.Code != allowErr {
				p.t.Fatalf("node sent err %s (%s) while an ack of %s was expected", f.Code, f.Msg, id)
			}
			errs = append(errs, f)
		}
	}
}

// checkNodeServes proves that a still serves a normal peer: a fresh node
// connects, sends a msg, and a stores it.
func checkNodeServes(t *testing.T, a *testNode) {
	t.Helper()
	b := newTestNode(t, "b")
	connect(t, b, a)
	r := sendText(t, b, a.Key(), "", "still there?")
	testsync.Eventually(t, "a stores b's msg", func() bool {
		ls, err := a.Lines(r.Th, key.PublicKey{})
		return err == nil && len(ls) == 1
	})
	testsync.Eventually(t, "b sees the ack", func() bool {
		ls, _ := b.Lines(r.Th, key.PublicKey{})
		return len(ls) == 1 && ls[0].Acked
	})
}

// TestHostileHandshake drives a real node's handshake from a raw connection
// with lines that break the rules, and checks the exact err code, that the
// connection closes after it, and that the node still serves others.
func TestHostileHandshake(t *testing.T) {
	a := newTestNode(t, "a")
	nonJSONOver := bytes.Repeat([]byte("a"), wire.MaxLine+1)
	cases := []struct {
		name string
		run  func(p *rawPeer)
		code string // "" = the node closes without an err
	}{
		{"not JSON", func(p *rawPeer) { p.line([]byte("hello there")) }, wire.CodeBadFrame},
		{"JSON array", func(p *rawPeer) { p.line([]byte(`[{"t":"hello"}]`)) }, wire.CodeBadFrame},
		{"JSON string", func(p *rawPeer) { p.line([]byte(`"hello"`)) }, wire.CodeBadFrame},
		{"JSON number", func(p *rawPeer) { p.line([]byte(`0`)) }, wire.CodeBadFrame},
		{"line of 1 MiB + 1 byte", func(p *rawPeer) { p.line(nonJSONOver) }, wire.CodeBadFrame},
		{"object without t", func(p *rawPeer) { p.line([]byte(`{"id":"01J9ZX00000000000000000001","v":0}`)) }, wire.CodeBadFrame},
		{"t not a string", func(p *rawPeer) { p.line([]byte(`{"t":0}`)) }, wire.CodeBadFrame},
		{"invalid UTF-8", func(p *rawPeer) { p.line([]byte("{\"t\":\"hello\",\"name\":\"\xff\xfe\"}")) }, wire.CodeBadFrame},
		{"invalid UTF-8 in a valid hello", func(p *rawPeer) {
			h := p.hello(map[string]any{"name": "NAME"})
			p.line(p.cut(h, "NAME", "\xc3\x28"))
		}, wire.CodeBadFrame},
		{"v 1", func(p *rawPeer) { p.line(p.hello(map[string]any{"v": 1})) }, wire.CodeUnsupportedVersion},
		{"v -1", func(p *rawPeer) { p.line(p.hello(map[string]any{"v": -1})) }, wire.CodeUnsupportedVersion},
		{`v "0"`, func(p *rawPeer) { p.line(p.hello(map[string]any{"v": "0"})) }, wire.CodeBadHello},
		{"v 0.5", func(p *rawPeer) { p.line(p.hello(map[string]any{"v": 0.5})) }, wire.CodeBadHello},
		{"v null", func(p *rawPeer) {
			p.line(p.cut(p.hello(nil), `"v":0`, `"v":null`))
		}, wire.CodeBadHello},
		{"missing v", func(p *rawPeer) {
			p.line(p.cut(p.hello(nil), `,"v":0`, ""))
		}, wire.CodeBadHello},
		{"short nonce", func(p *rawPeer) { p.line(p.hello(map[string]any{"nonce": wire.NewNonce(15)})) }, wire.CodeBadHello},
		{"nonce not base64url", func(p *rawPeer) {
			p.line(p.hello(map[string]any{"nonce": "+/+/+/+/+/+/+/+/+/+/+/+/"}))
		}, wire.CodeBadHello},
		{"missing nonce", func(p *rawPeer) {
			h := p.hello(map[string]any{"nonce": "X"})
			p.line(p.cut(h, `"nonce":"X",`, ""))
		}, wire.CodeBadHello},
		{"bad key", func(p *rawPeer) { p.line(p.hello(map[string]any{"key": "ed25519:not-a-key"})) }, wire.CodeBadHello},
		{"key without prefix", func(p *rawPeer) {
			p.line(p.hello(map[string]any{"key": strings.TrimPrefix(p.priv.Public().String(), key.Prefix)}))
		}, wire.CodeBadHello},
		{"missing key", func(p *rawPeer) {
			h := p.hello(map[string]any{"key": "X"})
			p.line(p.cut(h, `"key":"X",`, ""))
		}, wire.CodeBadHello},
		{"hello with the node's own key", func(p *rawPeer) { p.line(p.hello(map[string]any{"key": a.Key().String()})) }, wire.CodeSelf},
		{"msg before hello", func(p *rawPeer) { _, m := p.msg("thr_x", "hi"); p.line(m) }, wire.CodeUnauthenticated},
		{"malformed msg before hello", func(p *rawPeer) { p.line(p.obj(wire.TypeMsg, map[string]any{"th": "thr_x"})) }, wire.CodeUnauthenticated},
		{"unknown type before hello", func(p *rawPeer) { p.line(p.obj("zzz", nil)) }, wire.CodeUnauthenticated},
		{"auth before hello", func(p *rawPeer) { p.line(p.obj(wire.TypeAuth, map[string]any{"sig": "AAAA"})) }, wire.CodeUnauthenticated},
		{"msg before auth", func(p *rawPeer) {
			p.sendHello(p.hello(nil))
			_, m := p.msg("thr_x", "hi")
			p.line(m)
		}, wire.CodeUnauthenticated},
		{"second hello instead of auth", func(p *rawPeer) {
			p.sendHello(p.hello(nil))
			p.line(p.hello(nil))
		}, wire.CodeUnauthenticated},
		{"resume before auth", func(p *rawPeer) {
			p.sendHello(p.hello(nil))
			p.line(p.obj(wire.TypeResume, map[string]any{"seen": map[string]string{}}))
		}, wire.CodeUnauthenticated},
		{"auth signed by another key", func(p *rawPeer) {
			p.sendHello(p.hello(nil))
			other, _ := key.NewPrivate()
			p.line(p.obj(wire.TypeAuth, map[string]any{"sig": other.SignText(wire.AuthMessage(p.myHello, p.nodeHello))}))
		}, wire.CodeAuthFailed},
		{"auth over the hellos swapped", func(p *rawPeer) {
			p.sendHello(p.hello(nil))
			p.line(p.obj(wire.TypeAuth, map[string]any{"sig": p.priv.SignText(wire.AuthMessage(p.nodeHello, p.myHello))}))
		}, wire.CodeAuthFailed},
		{"auth without the CR the hello carried", func(p *rawPeer) {
			h := p.hello(nil)
			p.myHello = h
			p.write(append(append([]byte(nil), h...), '\r', '\n')) // signed bytes must include the \r
			p.line(p.authLine())
		}, wire.CodeAuthFailed},
		{"auth with a missing sig", func(p *rawPeer) {
			p.sendHello(p.hello(nil))
			p.line(p.obj(wire.TypeAuth, nil))
		}, wire.CodeAuthFailed},
		{"auth with a sig that is not base64url", func(p *rawPeer) {
			p.sendHello(p.hello(nil))
			p.line(p.obj(wire.TypeAuth, map[string]any{"sig": "!!"}))
		}, wire.CodeAuthFailed},
		{"fatal err from the client", func(p *rawPeer) {
			p.line(p.obj(wire.TypeErr, map[string]any{"code": wire.CodeNotAllowed, "msg": "go away"}))
		}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := dialRaw(t, a)
			c.run(p)
			if c.code != "" {
				p.expectErr(c.code)
			}
			p.expectClosed()
			checkNodeServes(t, a)
		})
	}
}

// TestHostileEndlessLine streams a line with no end before the handshake:
// the node must answer bad_frame once the line passes 1 MiB, without
// waiting for (or buffering) the rest.
func TestHostileEndlessLine(t *testing.T) {
	a := newTestNode(t, "a")
	for _, start := range []string{"", `{"t":"hello","x":"`} {
		p := dialRaw(t, a)
		done := make(chan error, 1)
		go func() {
			buf := bytes.Repeat([]byte("a"), 64<<10)
			var err error
			// Up to 256 MiB: far more than any node may hold for one line.
			for i := 0; i < 4096 && err == nil; i++ {
				if i == 0 {
					_, err = p.c.Write(append([]byte(start), buf...))
				} else {
					_, err = p.c.Write(buf)
				}
			}
			done <- err
		}()
		p.expectFatal(wire.CodeBadFrame)
		p.c.Close()
		if err := <-done; err == nil {
			t.Fatal("the node read 256 MiB of one line")
		}
	}
	checkNodeServes(t, a)
}

// TestHostileLineAtLimit: a line of exactly 1 MiB is a valid frame; before
// the handshake it is answered as any other non-hello line.
func TestHostileLineAtLimit(t *testing.T) {
	a := newTestNode(t, "a")
	p := dialRaw(t, a)
	const head, tail = `{"t":"pad","x":"`, `"}`
	l := []byte(head + strings.Repeat("a", wire.MaxLine-len(head)-len(tail)) + tail)
	if len(l) != wire.MaxLine {
		t.Fatal(len(l))
	}
	p.line(l)
	p.expectFatal(wire.CodeUnauthenticated)
	checkNodeServes(t, a)
}

// TestHostileAuthReplay captures a valid auth on one connection and replays
// it with the same hello on a second one: the node's nonce differs, so the
// signature no longer covers the node's hello.
func TestHostileAuthReplay(t *testing.T) {
	a := newTestNode(t, "a")
	p1 := dialRaw(t, a)
	p1.handshake()
	th := "thr_replay1"
	id, m := p1.msg(th, "first")
	p1.line(m)
	p1.expectAck(th, id, "")
	p1.c.Close()

	p2 := dialRaw(t, a)
	if bytes.Equal(p1.nodeHello, p2.nodeHello) {
		t.Fatal("the node sent the same hello twice")
	}
	p2.priv = p1.priv
	p2.line(p1.myHello) // the same hello, byte for byte
	p2.line(p1.myAuth)  // and its auth, signed over the first connection's node hello
	p2.expectFatal(wire.CodeAuthFailed)
	checkNodeServes(t, a)
}

// TestHostileHandshakeTimeout: a connection that does not complete the
// handshake gets err timeout and is closed.
func TestHostileHandshakeTimeout(t *testing.T) {
	a := newTestNode(t, "a", func(c *Config) { c.HandshakeTimeout = 300 * time.Millisecond })
	for _, c := range []struct {
		name string
		send func(p *rawPeer) // what the peer sends before it goes silent
	}{
		{"silent", func(*rawPeer) {}},
		{"hello then silent", func(p *rawPeer) { p.sendHello(p.hello(nil)) }},
		{"half a line", func(p *rawPeer) { p.write([]byte(`{"t":"hello","v":0,`)) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := dialRaw(t, a)
			c.send(p)
			p.expectFatal(wire.CodeTimeout)
		})
	}
	checkNodeServes(t, a)
}

// TestHostileCRLFHello: a hello ending in "\r\n" is valid; the "\r" is part
// of the signed bytes.
func TestHostileCRLFHello(t *testing.T) {
	a := newTestNode(t, "a")
	p := dialRaw(t, a)
	h := p.hello(map[string]any{"future": map[string]any{"x": 1}, "caps": []string{"chat", "teleport"}})
	p.myHello = append(append([]byte(nil), h...), '\r')
	p.write(append(append([]byte(nil), h...), '\r', '\n'))
	p.finishHandshake()
	th := "thr_crlf"
	id, m := p.msg(th, "over CRLF")
	p.write(append(m, '\r', '\n'))
	p.expectAck(th, id, "")
}

// TestHostileAfterHandshake: after a complete handshake, a malformed
// content line is refused with bad_request without closing, unknown types
// are ignored, and a bad frame still closes.
func TestHostileAfterHandshake(t *testing.T) {
	a := newTestNode(t, "a")
	p := dialRaw(t, a)
	p.handshake()
	th := "thr_after"

	// A msg without parts: bad_request naming it, the connection stays.
	badID := p.ids.New()
	p.line(p.obj(wire.TypeMsg, map[string]any{"id": badID, "th": th}))
	okID, m := p.msg(th, "valid")
	p.line(m)
	errs := p.expectAck(th, okID, wire.CodeBadRequest)
	if len(errs) != 1 || errs[0].Re != badID {
		t.Fatalf("errs before the ack: %+v, want one bad_request re %s", errs, badID)
	}

	// Empty parts, a part without k, a bad th: each bad_request, none closes.
	for i, l := range [][]byte{
		p.obj(wire.TypeMsg, map[string]any{"th": th, "parts": []any{}}),
		p.obj(wire.TypeMsg, map[string]any{"th": th, "parts": []any{map[string]any{"text": "no k"}}}),
		p.obj(wire.TypeMsg, map[string]any{"th": "THR_UPPER", "parts": []json.RawMessage{wire.TextPart("x")}}),
		p.obj(wire.TypeState, map[string]any{"th": th}),
	} {
		p.line(l)
		id, m := p.msg(th, "after bad line")
		p.line(m)
		if errs := p.expectAck(th, id, wire.CodeBadRequest); len(errs) != 1 {
			t.Fatalf("bad line %d: %d errs before the ack", i, len(errs))
		}
	}

	// Unknown types and blank lines are ignored: no err at all.
	p.line(p.obj("zzz_future", map[string]any{"th": th, "anything": []int{1, 2}}))
	p.line([]byte("   \t"))
	id, m := p.msg(th, "after unknown")
	p.line(m)
	p.expectAck(th, id, "")

	ls, err := a.Lines(th, key.PublicKey{})
	if err != nil || len(ls) != 6 {
		t.Fatalf("stored %d lines (%v), want the 6 valid ones", len(ls), err)
	}

	// A bad frame closes, even after the handshake.
	p.line([]byte("not json"))
	p.expectFatal(wire.CodeBadFrame)
	checkNodeServes(t, a)
}

// TestHostileAfterHandshakeFatal: other bad frames after the handshake.
func TestHostileAfterHandshakeFatal(t *testing.T) {
	a := newTestNode(t, "a")
	for _, c := range []struct {
		name string
		line []byte
	}{
		{"array", []byte(`[1]`)},
		{"no t", []byte(`{"th":"thr_x"}`)},
		{"invalid UTF-8", []byte("{\"t\":\"msg\",\"x\":\"\xff\"}")},
		{"over 1 MiB", bytes.Repeat([]byte("{"), wire.MaxLine+1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := dialRaw(t, a)
			p.handshake()
			p.line(c.line)
			p.expectFatal(wire.CodeBadFrame)
		})
	}
	checkNodeServes(t, a)
}

// A hello may carry up to 1 MiB of name and about; the node keeps and
// shows at most MaxPeerName and MaxPeerAbout bytes of them.
func TestHelloNameBounded(t *testing.T) {
	n := newTestNode(t, "n")
	ev, cancel := n.Subscribe(16)
	defer cancel()
	p := dialRaw(t, n)
	listen := []string{"tcp://127.0.0.1:" + strings.Repeat("9", 600)} // too long: dropped, not cut
	for i := range 100 {
		listen = append(listen, fmt.Sprintf("tcp://127.0.0.1:%d", 20000+i))
	}
	p.sendHello(p.hello(map[string]any{"name": strings.Repeat("é", 200_000), "about": strings.Repeat("a", 300_000), "listen": listen}))
	p.finishHandshake()
	for e := range ev {
		if e.Type == EventPeerUp {
			if len(e.PeerName) > MaxPeerName || !utf8.ValidString(e.PeerName) {
				t.Errorf("peer_up name: %d bytes", len(e.PeerName))
			}
			break
		}
	}
	testsync.Eventually(t, "the peer listed", func() bool {
		ps, _ := n.Peers()
		for _, pi := range ps {
			if pi.Key == p.priv.Public() {
				if len(pi.Name) > MaxPeerName || len(pi.About) > MaxPeerAbout || !strings.HasPrefix(pi.Name, "éé") {
					t.Fatalf("listed with a %d-byte name and %d-byte about", len(pi.Name), len(pi.About))
				}
				if len(pi.Listen) != MaxPeerListen || pi.Listen[0] != "tcp://127.0.0.1:20000" {
					t.Fatalf("listed with %d addresses, the first %.40q", len(pi.Listen), pi.Listen[0])
				}
				return true
			}
		}
		return false
	})
}
