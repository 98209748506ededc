package localapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/localapi"
	"github.com/awp-tray/awp-tray/peer/localapi/localapitest"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// serveNode serves a real node (not started: the store is all these
// endpoints need) and returns it with a client.
func serveNode(t *testing.T) (*peer.Node, *localapi.Client) {
	t.Helper()
	k, err := key.NewPrivate()
	if err != nil {
		t.Fatal(err)
	}
	n, err := peer.New(peer.Config{Key: k, DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	dir, _ := localapitest.Serve(t, n)
	c := localapi.NewClient(localapi.SocketPath(dir))
	t.Cleanup(c.CloseIdle)
	return n, c
}

// TestRetentionEndpoints: GET and POST /v0/retention on a node: fields
// left out keep their value, bad ones are refused with the reason.
func TestRetentionEndpoints(t *testing.T) {
	n, c := serveNode(t)
	ctx := context.Background()
	str := func(s string) *string { return &s }
	got, err := c.Retention(ctx)
	if err != nil || *got.KeepThreads != "off" || *got.KeepBlobs != "off" {
		t.Fatalf("default = %+v, %v", got, err)
	}
	got, err = c.SetRetention(ctx, localapi.RetentionBody{KeepThreads: str("90d")})
	if err != nil || *got.KeepThreads != "90d" || *got.KeepBlobs != "off" {
		t.Fatalf("set threads = %+v, %v", got, err)
	}
	got, err = c.SetRetention(ctx, localapi.RetentionBody{KeepBlobs: str("36h")})
	if err != nil || *got.KeepThreads != "90d" || *got.KeepBlobs != "36h" {
		t.Fatalf("set blobs = %+v, %v", got, err)
	}
	if r, _ := n.Retention(); r.KeepThreads != 90*24*3600e9 || r.KeepBlobs != 36*3600e9 {
		t.Fatalf("node holds %+v", r)
	}
	var re *localapi.RemoteError
	if _, err := c.SetRetention(ctx, localapi.RetentionBody{KeepBlobs: str("soon")}); !errors.As(err, &re) || re.Status != 400 {
		t.Fatalf("bad value: %v, want a 400", err)
	}
	if r, _ := n.Retention(); r.KeepBlobs != 36*3600e9 {
		t.Fatal("a refused change changed the setting")
	}
	// A negative duration is not a setting (the node refuses it too).
	if _, err := c.SetRetention(ctx, localapi.RetentionBody{KeepThreads: str("-3d")}); !errors.As(err, &re) || re.Status != 400 {
		t.Fatalf("negative value: %v, want a 400", err)
	}
}

// TestLinesLastEndpoint: ?last=N gives the last N lines in order, from a
// node (read from the thread's end) and from the fake (cut from Lines);
// bad N is refused.
func TestLinesLastEndpoint(t *testing.T) {
	n, c := serveNode(t)
	ctx := context.Background()
	to, _ := key.NewPrivate()
	var th string
	for i := range 30 {
		r, err := n.Send(ctx, peer.SendRequest{To: to.Public(), Th: th, Parts: []json.RawMessage{wire.TextPart(fmt.Sprint("line ", i))}})
		if err != nil {
			t.Fatal(err)
		}
		th = r.Th
	}
	all, err := c.Lines(ctx, th, key.PublicKey{})
	if err != nil || len(all) != 30 {
		t.Fatalf("lines: %d, %v", len(all), err)
	}
	last, err := c.LinesLast(ctx, th, key.PublicKey{}, 7)
	if err != nil || !reflect.DeepEqual(last, all[23:]) {
		t.Fatalf("last 7 = %+v, %v", last, err)
	}
	if last, err := c.LinesLast(ctx, th, key.PublicKey{}, 100); err != nil || len(last) != 30 {
		t.Fatalf("last 100 of 30: %d, %v", len(last), err)
	}
	var re *localapi.RemoteError
	for _, bad := range []int{0, -1, localapi.MaxLast + 1} {
		if _, err := c.LinesLast(ctx, th, key.PublicKey{}, bad); !errors.As(err, &re) || re.Status != 400 {
			t.Fatalf("last=%d: %v, want a 400", bad, err)
		}
	}
	if _, err := c.LinesLast(ctx, "thr_none", key.PublicKey{}, 5); !errors.Is(err, peer.ErrNoThread) && (err == nil || !errors.As(err, &re)) {
		t.Fatalf("no such thread: %v", err)
	}

	f, fc, _ := setup(t)
	f.Lock()
	f.LinesByTh = map[string][]peer.LineInfo{"thr_1|": {{Dir: "in", Seq: 1}, {Dir: "in", Seq: 2}, {Dir: "out", Seq: 3}}}
	f.Unlock()
	if last, err := fc.LinesLast(ctx, "thr_1", key.PublicKey{}, 2); err != nil || len(last) != 2 || last[0].Seq != 2 || last[1].Seq != 3 {
		t.Fatalf("the fake's last 2 = %+v, %v", last, err)
	}
}

// TestThreadsFromNode: the thread list a node serves reads back as the
// node's own list (the direct writer and reader of threadsjson.go).
func TestThreadsFromNode(t *testing.T) {
	n, c := serveNode(t)
	ctx := context.Background()
	to, _ := key.NewPrivate()
	for _, s := range []string{"plain", `a "quoted" subject`, "tab\there\nnewline", "é and \u2028"} {
		if _, err := n.Send(ctx, peer.SendRequest{To: to.Public(), Subject: s, Parts: []json.RawMessage{wire.TextPart(s)}}); err != nil {
			t.Fatal(err)
		}
	}
	want, err := n.Threads()
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Threads(ctx)
	if err != nil || !reflect.DeepEqual(got, want) || len(got) != 4 {
		t.Fatalf("threads over the socket:\n got %+v\nwant %+v\n%v", got, want, err)
	}
}
