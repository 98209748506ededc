package main

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer"
)

// TestWireGuardE2E runs `awp run --listen wg://127.0.0.1:0` processes
// (docs/protocol/bindings.md): two that know each other exchange msgs both ways and a
// blob of a few MiB, resume what was queued across a kill -9 of either
// side, and a third whose key neither configured cannot reach the listener
// until the listener trusts it.
func TestWireGuardE2E(t *testing.T) {
	a, b, addrA, addrB := wgDaemons(t, "wg")

	// A configures B's key (trust), B adds A from A's invite and dials it.
	awpOK(t, "trust", "--data", a.dir, b.Key())
	hasInvite := hasCommand(t, "add") && hasCommand(t, "invite")
	if hasInvite {
		inv := strings.TrimSpace(awpOK(t, "invite", "--data", a.dir))
		if !strings.HasPrefix(inv, "awp:") {
			t.Fatalf("invite printed %q", inv)
		}
		if got := strings.TrimSpace(awpOK(t, "add", "--data", b.dir, inv)); got != a.Key() {
			t.Fatalf("add printed %q, want A's key %s", got, a.Key())
		}
	} else {
		t.Log("this awp has no invite/add: connecting with the wg address")
		if got := strings.TrimSpace(awpOK(t, "connect", "--data", b.dir, addrA)); got != a.Key() {
			t.Fatalf("connect printed %q, want A's key %s", got, a.Key())
		}
	}
	waitPeerUp(t, a, b.Key())
	waitPeerUp(t, b, a.Key())

	// Msgs both ways.
	res := awpJSON[peer.SendResult](t, "send", "--data", b.dir, "--to", a.Key(), "--subject", "over wg", "--text", "b-0")
	th := res.Th
	waitThread(t, a, b, th, []string{"b-0"})
	awpOK(t, "send", "--data", a.dir, "--to", b.Key(), "--th", th, "--text", "a-0")
	waitThread(t, a, b, th, []string{"b-0", "a-0"})

	// A blob of a few MiB from B to A, compared byte for byte.
	blob := make([]byte, 3<<20+12345)
	rand.Read(blob)
	blobFile := filepath.Join(t.TempDir(), "payload.bin")
	if err := os.WriteFile(blobFile, blob, 0o600); err != nil {
		t.Fatal(err)
	}
	awpOK(t, "send", "--data", b.dir, "--to", a.Key(), "--th", th, "--text", "b-blob", "--blob", blobFile)
	var ref string
	eventually(t, "the blob complete at A", func() (bool, string) {
		bs := awpJSON[[]peer.BlobInfo](t, "blobs", "--data", a.dir, "--json")
		for _, bi := range bs {
			if bi.From.String() == b.Key() && bi.Name == "payload.bin" {
				if bi.Corrupt {
					t.Fatalf("A's blob is corrupt: %+v", bi)
				}
				ref = bi.Ref
				return bi.Complete && bi.Size == int64(len(blob)), fmt.Sprintf("%+v", bi)
			}
		}
		return false, fmt.Sprintf("A's blobs: %+v", bs)
	})
	got := filepath.Join(t.TempDir(), "got.bin")
	awpOK(t, "blob", "get", "--data", a.dir, "--from", b.Key(), "-o", got, ref)
	if g, err := os.ReadFile(got); err != nil || !bytes.Equal(g, blob) {
		t.Fatalf("blob get wrote %d bytes (%v), want the %d sent", len(g), err, len(blob))
	}
	want := []string{"b-0", "a-0", "b-blob"}
	waitThread(t, a, b, th, want)

	// Kill -9 the listener A; B queues msgs meanwhile; A restarts on the
	// same UDP port and B's dialer resumes.
	a.kill9()
	for i := range 3 {
		txt := fmt.Sprintf("b-queued-%d", i)
		awpOK(t, "send", "--data", b.dir, "--to", a.Key(), "--th", th, "--text", txt)
		want = append(want, txt)
	}
	t0 := time.Now()
	a.restart("--listen", wgBind(addrA))
	if l := wgListen(t, a); l != addrA {
		t.Fatalf("A restarted on %s, want %s", l, addrA)
	}
	waitThread(t, a, b, th, want)
	t.Logf("after a kill -9 of the listener A, the queued msgs arrived %v after its restart began", time.Since(t0))

	// Kill -9 the dialer B; A queues msgs meanwhile; B restarts and
	// redials A by itself.
	b.kill9()
	for i := range 3 {
		txt := fmt.Sprintf("a-queued-%d", i)
		awpOK(t, "send", "--data", a.dir, "--to", b.Key(), "--th", th, "--text", txt)
		want = append(want, txt)
	}
	t0 = time.Now()
	b.restart("--listen", wgBind(addrB))
	waitThread(t, a, b, th, want)
	t.Logf("after a kill -9 of the dialer B, A's queued msgs arrived %v after its restart began", time.Since(t0))

	// Kill -9 the listener A again, now with nothing queued on B: A
	// queues msgs after its restart, and B, which has nothing to write on
	// its old connection, must still notice and redial.
	a.kill9()
	t0 = time.Now()
	a.restart("--listen", wgBind(addrA))
	for i := range 3 {
		txt := fmt.Sprintf("a-after-restart-%d", i)
		awpOK(t, "send", "--data", a.dir, "--to", b.Key(), "--th", th, "--text", txt)
		want = append(want, txt)
	}
	waitThread(t, a, b, th, want)
	t.Logf("after a kill -9 of the listener A with nothing queued on B, A's msgs arrived %v after its restart began", time.Since(t0))

	// A stranger C: A never configured its key, so the WireGuard handshake
	// is never answered; C's connect says why (issue 18 item 16), and A's
	// log names the key whose handshake it dropped.
	c := newDaemon(t, "wg-stranger", "--listen", "wg://127.0.0.1:0")
	out, errs, code, err := awpExec(t.Context(), "connect", "--data", c.dir, "--timeout", "30s", addrA)
	if err != nil || code != 1 || !strings.Contains(errs, a.Key()+" has not added your invite") {
		t.Fatalf("stranger's connect: exit %d (%v), stdout %q, stderr %q; want exit 1, %s has not added your invite", code, err, out, errs, a.Key())
	}
	eventually(t, "A logs the stranger's dropped handshake", func() (bool, string) {
		l := a.logs()
		return strings.Contains(l, "you have not added this key's invite") && strings.Contains(l, c.Key()), ""
	})
	for _, pi := range awpJSON[[]peer.PeerInfo](t, "peers", "--data", a.dir, "--json") {
		if pi.Key.String() == c.Key() && pi.Up {
			t.Fatalf("A lists the stranger as up: %+v", pi)
		}
	}
	for _, pi := range awpJSON[[]peer.PeerInfo](t, "peers", "--data", c.dir, "--json") {
		if pi.Key.String() == a.Key() && pi.Up {
			t.Fatalf("the stranger is up with A: %+v", pi)
		}
	}
	// Control: once A trusts C, C's dialer (still retrying) gets through,
	// so the refusal above came from the key, not a slow machine.
	awpOK(t, "trust", "--data", a.dir, c.Key())
	waitPeerUp(t, a, c.Key())
}

// wgListen returns the daemon's one bound wg address.
// wgDaemons starts two `awp run` processes, NAME-a and NAME-b, each
// listening on a wg://127.0.0.1 port of its own, and returns them with the
// addresses they bound. It skips the test in -short mode.
func wgDaemons(t *testing.T, name string) (a, b *daemon, addrA, addrB string) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs real peers over WireGuard")
	}
	awpBinary(t)
	a = newDaemon(t, name+"-a", "--listen", "wg://127.0.0.1:0")
	b = newDaemon(t, name+"-b", "--listen", "wg://127.0.0.1:0")
	return a, b, wgListen(t, a), wgListen(t, b)
}

// wgListen returns d's one listen address, checking it is a bound
// wg://127.0.0.1:PORT#KEY.
func wgListen(t *testing.T, d *daemon) string {
	t.Helper()
	ls := d.Listen()
	if len(ls) != 1 || !strings.HasPrefix(ls[0], "wg://127.0.0.1:") || !strings.HasSuffix(ls[0], "#"+d.Key()) ||
		strings.Contains(ls[0], ":0#") {
		t.Fatalf("%s listens on %q, want one bound wg://127.0.0.1:PORT#%s", d.name, ls, d.Key())
	}
	return ls[0]
}

// wgBind drops the key from a wg address, leaving wg://HOST:PORT.
func wgBind(addr string) string {
	s, _, _ := strings.Cut(addr, "#")
	return s
}

// waitPeerUp waits until d lists k as up.
func waitPeerUp(t *testing.T, d *daemon, k string) {
	t.Helper()
	eventually(t, fmt.Sprintf("%s sees %s up", d.name, k), func() (bool, string) {
		ps := awpJSON[[]peer.PeerInfo](t, "peers", "--data", d.dir, "--json")
		for _, p := range ps {
			if p.Key.String() == k && p.Up {
				return true, ""
			}
		}
		return false, fmt.Sprintf("peers: %+v", ps)
	})
}

// waitThread waits until both a and b hold thread th with exactly the msgs
// texts, in order, each side's out lines acked.
func waitThread(t *testing.T, a, b *daemon, th string, texts []string) {
	t.Helper()
	eventually(t, fmt.Sprintf("thread %s with %d msgs on both sides", th, len(texts)), func() (bool, string) {
		for _, d := range []*daemon{a, b} {
			ls := mirrorShow(t, d, th, "")
			if len(ls) < len(texts) {
				return false, fmt.Sprintf("%s has %d lines", d.name, len(ls))
			}
			if len(ls) > len(texts) {
				t.Fatalf("%s has %d lines, want %d: %+v", d.name, len(ls), len(texts), ls)
			}
			for i, l := range ls {
				if l.text() != texts[i] {
					t.Fatalf("%s line %d is %q, want %q", d.name, i, l.text(), texts[i])
				}
				if l.Dir == "out" && !l.Acked {
					return false, fmt.Sprintf("%s: line %d not acked", d.name, i)
				}
			}
		}
		return true, ""
	})
}

// TestWireGuardRestartBothDial (issue 18 item 16): two people who added
// each other's invites (so each node dials the other) and one of them is
// kill -9'ed and restarted. The survivor held a stale session the crossed
// dials rule preferred, and refused the restarted side's connections until
// a WireGuard timeout reset it: the restarted side logged peer up / peer
// down eight times in ~22 s. Now the stale session is found dead and
// replaced: after its restart each side logs at most one peer down (a
// crossing of the two sides' dials resolving) before the msgs flow.
func TestWireGuardRestartBothDial(t *testing.T) {
	a, b, addrA, addrB := wgDaemons(t, "wg2")
	invA := strings.TrimSpace(awpOK(t, "invite", "--data", a.dir))
	invB := strings.TrimSpace(awpOK(t, "invite", "--data", b.dir))
	// A adds B's invite first: B has not added A's, so A's dial is refused
	// (and A keeps dialing).
	if _, errs, code, _ := awpExec(t.Context(), "add", "--data", a.dir, "--timeout", "1s", invB); code != 1 {
		t.Fatalf("A's add before B knows A: exit %d, %s", code, errs)
	}
	if got := strings.TrimSpace(awpOK(t, "add", "--data", b.dir, invA)); got != a.Key() {
		t.Fatalf("add printed %q", got)
	}
	waitPeerUp(t, a, b.Key())
	waitPeerUp(t, b, a.Key())
	res := awpJSON[peer.SendResult](t, "send", "--data", a.dir, "--to", b.Key(), "--subject", "both dial", "--text", "a-0")
	want := []string{"a-0"}
	waitThread(t, a, b, res.Th, want)

	for i, d := range []*daemon{a, b, a, b} {
		other, bind := b, wgBind(addrA)
		if d == b {
			other, bind = a, wgBind(addrB)
		}
		d.kill9()
		t0 := time.Now()
		logFrom := len(d.logs())
		d.restart("--listen", bind)
		txt := fmt.Sprintf("%s-after-restart-%d", d.name, i)
		awpOK(t, "send", "--data", d.dir, "--to", other.Key(), "--th", res.Th, "--text", txt)
		want = append(want, txt)
		waitThread(t, a, b, res.Th, want)
		took := time.Since(t0)
		if downs := strings.Count(d.logs()[logFrom:], `msg="peer down"`); downs > 1 {
			t.Fatalf("%s logged %d peer downs after its restart, want at most 1:\n%s", d.name, downs, d.logs()[logFrom:])
		}
		t.Logf("%s kill -9'ed and restarted: its msg arrived after %v", d.name, took)
	}
}
