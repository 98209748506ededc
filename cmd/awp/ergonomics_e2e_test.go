package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/localapi"
	"github.com/awp-tray/awp-tray/peer/localapi/localapitest"
)

// The command line's ergonomics against two real `awp run` processes,
// driven with the built binary: KEY arguments by name and prefix, blob
// get without --from, the queued note, errors that name each layer once,
// a failed connect that says the peer keeps redialing, durations in days.
func TestCommandLineE2E(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs two peers")
	}
	dirA, dirB := localapitest.ShortTempDir(t), localapitest.ShortTempDir(t)
	a := startPeer(t, "alice", dirA)
	b := startPeer(t, "bob", dirB)
	cli(t, "connect", "--data", dirA, b.listen[0])

	// bob by name, and by the 8 characters tables print.
	res := decodeJSON[peer.SendResult](t, cli(t, "send", "--data", dirA, "--to", "bob", "--text", "by name"))
	if out, code, errs := cliCode(t, "send", "--data", dirA, "--to", key.ShortText(b.key), "--th", res.Th, "--text", "by prefix"); code != 0 || errs != "" {
		t.Fatalf("send --to PREFIX: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	cli(t, "trust", "--data", dirB, "ALICE")
	peersB := decodeJSON[[]peer.PeerInfo](t, cli(t, "peers", "--data", dirB, "--json"))
	if len(peersB) != 1 || peersB[0].Key.String() != a.key || !peersB[0].Trusted {
		t.Fatalf("bob's peers after `trust ALICE`: %+v", peersB)
	}

	// A grant for 7 days, to bob by name.
	g := decodeJSON[map[string]any](t, cli(t, "grant", "--data", dirA, "--to", "bob", "--caps", "fs:read", "--ttl", "7d"))
	exp, err := time.Parse(time.RFC3339, g["exp"].(string))
	if err != nil || g["sub"] != b.key || time.Until(exp) < 7*24*time.Hour-time.Hour || time.Until(exp) > 7*24*time.Hour+time.Hour {
		t.Fatalf("grant --ttl 7d = %v (exp %v)", g, exp)
	}

	// A key that never connected: queued, and said so on stderr.
	stranger, err := key.NewPrivate()
	if err != nil {
		t.Fatal(err)
	}
	out, code, errs := cliCode(t, "send", "--data", dirA, "--to", stranger.Public().String(), "--text", "later")
	if code != 0 || !strings.HasPrefix(out, `{"id":"`) || errs != "awp: "+stranger.Public().String()+
		" has never connected to this peer: the msg is queued until it connects (`awp connect ADDR` or `awp add INVITE` reaches it)\n" {
		t.Fatalf("send to a stranger: exit %d, stdout %q, stderr %q", code, out, errs)
	}

	// A blob, fetched at bob without --from.
	blobFile := filepath.Join(t.TempDir(), "r.bin")
	data := bytes.Repeat([]byte{1, 2, 3}, 1000)
	if err := os.WriteFile(blobFile, data, 0o600); err != nil {
		t.Fatal(err)
	}
	cli(t, "send", "--data", dirA, "--to", "bob", "--blob", blobFile)
	ref := ""
	for deadline := time.Now().Add(30 * time.Second); ref == "" && time.Now().Before(deadline); {
		for _, bi := range decodeJSON[[]peer.BlobInfo](t, cli(t, "blobs", "--data", dirB, "--json")) {
			if bi.Complete {
				ref = bi.Ref
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if ref == "" {
		t.Fatal("the blob never completed at bob")
	}
	if got := cli(t, "blob", "get", "--data", dirB, ref); got != string(data) {
		t.Fatalf("blob get without --from: %d bytes, want %d", len(got), len(data))
	}

	// Errors name each layer once.
	_, code, errs = cliCode(t, "state", "--data", dirA, "--th", "thr_nosuch", "done")
	if code != 1 || errs != "awp state: peer: no such thread: thr_nosuch\n" {
		t.Fatalf("state of an unknown thread: exit %d, stderr %q", code, errs)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "tcp://" + l.Addr().String()
	l.Close()
	_, code, errs = cliCode(t, "connect", "--data", dirA, "--timeout", "20s", closed)
	if code != 1 || errs != "awp connect: peer: connect "+closed+": connection refused; the peer keeps redialing it (backing off up to 30s; `awp peers` shows when it is up)\n" {
		t.Fatalf("connect to a closed port: exit %d, stderr %q", code, errs)
	}
	// It does keep redialing: once something listens there, the peer
	// connects without being asked again.
	c := startPeer(t, "carol", localapitest.ShortTempDir(t), "--listen", closed)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	w, err := localapi.NewClient(localapi.SocketPath(dirA)).Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for !peerUp(t, dirA, c.key) {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("alice never redialed carol at %s: %v", closed, err)
		}
		_ = ev
	}
	if out := cli(t, "--version"); !strings.HasPrefix(out, "awp "+peer.Version+" (") {
		t.Errorf("--version = %q", out)
	}
}

// peerUp reports whether the peer of dir has k up.
func peerUp(t *testing.T, dir, k string) bool {
	for _, p := range decodeJSON[[]peer.PeerInfo](t, cli(t, "peers", "--data", dir, "--json")) {
		if p.Key.String() == k && p.Up {
			return true
		}
	}
	return false
}
