package localapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/key/keytest"
	"github.com/awp-tray/awp-tray/peer/localapi"
	"github.com/awp-tray/awp-tray/peer/localapi/localapitest"
	"github.com/awp-tray/awp-tray/peer/profile"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// remote serves a fake and dials a Remote to it.
func remote(t *testing.T) (*localapitest.Fake, *localapi.Remote) {
	t.Helper()
	f, _, dir := setup(t)
	f.WorkspaceV, f.DataDirV = "/home/me/work", "/home/me/.config/awp"
	r, err := localapi.DialRemote(context.Background(), localapi.SocketPath(dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return f, r
}

// TestRemoteIsTheBackend calls every Backend method through a Remote and
// checks that it reached the node (the fake) and returned what the node
// returned: the windows of the tray app see the same node over the socket.
func TestRemoteIsTheBackend(t *testing.T) {
	f, r := remote(t)
	ctx := context.Background()
	other := keytest.NewPublic(t)

	if r.Key() != f.PubKey || r.Name() != "tester" || !reflect.DeepEqual(r.ListenAddrs(), f.Listens) {
		t.Errorf("identity: %s %q %v", r.Key(), r.Name(), r.ListenAddrs())
	}
	if r.Workspace() != "/home/me/work" || r.DataDir() != "/home/me/.config/awp" {
		t.Errorf("workspace %q, data dir %q", r.Workspace(), r.DataDir())
	}
	f.ConnectKey = other
	if k, err := r.Connect(ctx, "tcp://127.0.0.1:9"); err != nil || k != other {
		t.Errorf("Connect = %s, %v", k, err)
	}

	f.SendResult = peer.SendResult{ID: "01ID", Th: "thr_x"}
	if res, err := r.Send(ctx, peer.SendRequest{To: other, Subject: "s"}); err != nil || res != f.SendResult || f.Sent[0].Subject != "s" {
		t.Errorf("Send = %+v, %v (sent %+v)", res, err, f.Sent)
	}
	if res, err := r.SetState(ctx, "thr_x", "done", "n"); err != nil || res != f.SendResult || f.States[0] != [3]string{"thr_x", "done", "n"} {
		t.Errorf("SetState = %+v, %v (%v)", res, err, f.States)
	}

	th := peer.ThreadInfo{Th: "thr_x", Peer: other, Subject: "s", Unread: 2}
	mirrored := peer.ThreadInfo{Th: "thr_x", Peer: other, MirroredFrom: other}
	f.ThreadList = []peer.ThreadInfo{th, mirrored}
	var lines []peer.LineInfo
	for seq := uint64(1); seq <= 5; seq++ {
		lines = append(lines, peer.LineInfo{Dir: "in", From: other, Line: json.RawMessage(`{"t":"msg"}`), Seq: seq})
	}
	f.LinesByTh = map[string][]peer.LineInfo{"thr_x|": lines}
	if ts, err := r.Threads(); err != nil || !reflect.DeepEqual(ts, f.ThreadList) {
		t.Errorf("Threads = %+v, %v", ts, err)
	}
	if got, err := r.Thread("thr_x", other); err != nil || !reflect.DeepEqual(got, mirrored) {
		t.Errorf("Thread(mirrored) = %+v, %v", got, err)
	}
	if _, err := r.Thread("thr_none", key.PublicKey{}); err == nil {
		t.Error("Thread of an unknown thread: no error")
	}
	if ls, err := r.Lines("thr_x", key.PublicKey{}); err != nil || len(ls) != 5 {
		t.Errorf("Lines = %d, %v", len(ls), err)
	}
	if ls, err := r.LinesLast("thr_x", key.PublicKey{}, 2); err != nil || len(ls) != 2 || ls[0].Seq != 4 || ls[1].Seq != 5 {
		t.Errorf("LinesLast(2) = %+v, %v", ls, err)
	}
	if ls, err := r.LinesAfter("thr_x", key.PublicKey{}, 2, 2); err != nil || len(ls) != 2 || ls[0].Seq != 3 || ls[1].Seq != 4 {
		t.Errorf("LinesAfter(2, 2) = %+v, %v", ls, err)
	}
	if ls, err := r.LinesAfter("thr_x", key.PublicKey{}, 3, 0); err != nil || len(ls) != 2 || ls[1].Seq != 5 {
		t.Errorf("LinesAfter(3, all) = %+v, %v", ls, err)
	}
	if err := r.MarkRead("thr_x", key.PublicKey{}); err != nil || len(f.Reads) != 1 {
		t.Errorf("MarkRead: %v (%v)", err, f.Reads)
	}

	f.PeerList = []peer.PeerInfo{{Key: other, Name: "o", Up: true, Listen: []string{}}}
	if ps, err := r.Peers(); err != nil || !reflect.DeepEqual(ps, f.PeerList) {
		t.Errorf("Peers = %+v, %v", ps, err)
	}
	if err := r.Trust(other, true); err != nil || !f.TrustSet[other] {
		t.Errorf("Trust: %v (%v)", err, f.TrustSet)
	}
	f.BlobList = []peer.BlobInfo{{Ref: "b1", From: other, Size: 3, Complete: true}}
	f.BlobData = map[string][]byte{other.String() + "|b1": []byte("abc")}
	if bs, err := r.Blobs(); err != nil || !reflect.DeepEqual(bs, f.BlobList) {
		t.Errorf("Blobs = %+v, %v", bs, err)
	}
	rc, info, err := r.OpenBlob(other, "b1")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(rc)
	rc.Close()
	if string(b) != "abc" || info.Ref != "b1" {
		t.Errorf("OpenBlob = %q %+v", b, info)
	}

	f.PendingList = []peer.ApprovalRequest{{ID: "ap1", From: other, Caps: []string{"exec"}}}
	if ps := r.Pending(); len(ps) != 1 || ps[0].ID != "ap1" {
		t.Errorf("Pending = %+v", ps)
	}
	d := peer.Decision{Allow: true, For: time.Hour, By: "user"}
	if err := r.Decide("ap1", d); err != nil || f.Decisions["ap1"] != d {
		t.Errorf("Decide: %v (%+v)", err, f.Decisions)
	}
	if hs := r.ApprovalHistory(); hs == nil || len(hs) != 0 {
		t.Errorf("empty ApprovalHistory = %#v, want an empty list", hs)
	}
	f.History = []peer.ApprovalRecord{{Request: f.PendingList[0], Decision: d, At: "2026-12-01T15:04:05.000Z"}}
	if hs := r.ApprovalHistory(); !reflect.DeepEqual(hs, f.History) {
		t.Errorf("ApprovalHistory = %+v", hs)
	}
	f.GrantRaw = json.RawMessage(`{"caps":["exec"]}`)
	if g, err := r.Grant(ctx, other, []string{"exec"}, 90*time.Minute, nil, "n"); err != nil || string(g) != string(f.GrantRaw) || f.Granted[0].TTL != 90*time.Minute {
		t.Errorf("Grant = %s, %v (%+v)", g, err, f.Granted)
	}
	f.GrantList = []peer.GrantInfo{{ID: "g1", Grant: f.GrantRaw, Issued: true}}
	if gs, err := r.Grants(); err != nil || len(gs) != 1 || gs[0].ID != "g1" {
		t.Errorf("Grants = %+v, %v", gs, err)
	}
	if err := r.RevokeGrant("g1"); err != nil || f.Revoked[0] != "g1" {
		t.Errorf("RevokeGrant: %v (%v)", err, f.Revoked)
	}
	f.RequestResult = json.RawMessage(`{"exit":0}`)
	if res, err := r.Request(ctx, other, "application/vnd.awp.exec+json", json.RawMessage(`{"cmd":"true"}`), ""); err != nil || string(res) != `{"exit":0}` {
		t.Errorf("Request = %s, %v", res, err)
	}
	f.RequestErr = &wire.Err{Code: wire.CodeForbidden, Msg: "no"}
	var we *wire.Err
	if _, err := r.Request(ctx, other, "application/vnd.awp.exec+json", json.RawMessage(`{}`), ""); !errors.As(err, &we) || we.Code != wire.CodeForbidden {
		t.Errorf("Request refused: %v, want the err line", err)
	}

	f.PresenceList = []peer.PresenceInfo{{Doc: json.RawMessage(`{"origin":"x"}`), Hops: 1, From: other}}
	if ps := r.Presence(); len(ps) != 1 || string(ps[0].Doc) != `{"origin":"x"}` {
		t.Errorf("Presence = %+v", ps)
	}
	if err := r.SetPresenceDetail("peers"); err != nil || r.PresenceDetail() != "peers" {
		t.Errorf("presence detail: %v, %q", err, r.PresenceDetail())
	}
	if err := r.SetMirrorHosts([]key.PublicKey{other}); err != nil || !reflect.DeepEqual(r.MirrorHosts(), []key.PublicKey{other}) {
		t.Errorf("mirror hosts: %v, %v", err, r.MirrorHosts())
	}
	if err := r.SetMirror("thr_x", true); err != nil || !f.MirrorSet["thr_x"] {
		t.Errorf("SetMirror: %v (%v)", err, f.MirrorSet)
	}
	if _, err := r.SetPrivate("thr_x", key.PublicKey{}); err != nil || len(f.Privates) != 1 {
		t.Errorf("SetPrivate: %v (%v)", err, f.Privates)
	}
	f.InviteV = "awp:abc"
	if s := r.Invite(); s != "awp:abc" {
		t.Errorf("Invite = %q", s)
	}
	if err := r.SetExecSandbox(profile.SandboxNone); err != nil || r.ExecSandbox().Mode != profile.SandboxNone || f.SandboxMode != profile.SandboxNone {
		t.Errorf("exec sandbox: %v, %+v", err, r.ExecSandbox())
	}
	if err := r.SetExecSandbox("chroot"); err == nil {
		t.Error("SetExecSandbox(chroot) accepted")
	}
	keep := peer.Retention{KeepThreads: 90 * 24 * time.Hour, KeepBlobs: 36 * time.Hour}
	if err := r.SetRetention(keep); err != nil || f.Keep != keep {
		t.Errorf("SetRetention: %v (the node holds %+v)", err, f.Keep)
	}
	if got, err := r.Retention(); err != nil || got != keep {
		t.Errorf("Retention = %+v, %v; want %+v", got, err, keep)
	}
	if err := r.SetRetention(peer.Retention{KeepBlobs: -time.Hour}); err == nil {
		t.Error("SetRetention of a negative duration accepted")
	}
	f.AddKey, f.AddErr = other, errors.New("recorded, but it does not answer")
	if k, err := r.AddInvite(ctx, "awp:xyz"); k != other || err == nil || err.Error() != "recorded, but it does not answer" {
		t.Errorf("AddInvite = %s, %v: want the key with the node's error", k, err)
	}
}

// TestRemoteSubscribe: events published by the node arrive on the
// channel in order; cancel ends the node's subscription and closes the
// channel; a node that ends its subscriptions (shutting down) closes it.
func TestRemoteSubscribe(t *testing.T) {
	f, r := remote(t)
	_, subbed, _ := f.Subscribers()
	ch, cancel := r.Subscribe(16)
	<-subbed
	for _, th := range []string{"thr_1", "thr_2"} {
		f.Publish(peer.Event{Type: peer.EventLine, Th: th})
	}
	for _, want := range []string{"thr_1", "thr_2"} {
		if ev := <-ch; ev.Type != peer.EventLine || ev.Th != want {
			t.Fatalf("event %+v, want a line of %s", ev, want)
		}
	}
	_, _, unsubbed := f.Subscribers()
	cancel()
	<-unsubbed
	for range ch { // drained and closed
	}

	_, subbed, _ = f.Subscribers()
	ch, cancel = r.Subscribe(16)
	defer cancel()
	<-subbed
	f.EndSubscriptions()
	for range ch {
	}
}

// A Remote to a socket nobody serves fails with ErrNotRunning.
func TestDialRemoteNotRunning(t *testing.T) {
	dir := localapitest.ShortTempDir(t)
	_, err := localapi.DialRemote(context.Background(), localapi.SocketPath(dir), nil)
	if !errors.Is(err, localapi.ErrNotRunning) {
		t.Fatalf("DialRemote = %v, want ErrNotRunning", err)
	}
}

// GET /v0/lines refuses an after or limit that is not a number.
func TestLinesAfterBadQuery(t *testing.T) {
	_, _, dir := setup(t)
	for _, q := range []string{"after=x", "limit=-1", "limit=two"} {
		c, err := net.Dial("unix", localapi.SocketPath(dir))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(c, "GET /v0/lines?th=thr_x&"+q+" HTTP/1.1\r\nHost: awp\r\nConnection: close\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(c)
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), "HTTP/1.1 400") || !strings.Contains(string(b), `"code":"bad_request"`) {
			t.Errorf("%s: answer = %q", q, b)
		}
	}
}
