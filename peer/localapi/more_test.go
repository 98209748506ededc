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

var _ localapi.Backend = (*localapitest.Fake)(nil)

func TestGrantRoundTrip(t *testing.T) {
	f, c, _ := setup(t)
	// Spaces inside the grant survive: the answer is the node's bytes.
	f.GrantRaw = json.RawMessage(`{"caps":["exec"], "note":"<x>","sig":"s"}`)
	req := localapi.GrantRequest{To: kto, Caps: []string{"exec", "fs:read"}, TTL: "90m", On: []key.PublicKey{kon}, Note: "n"}
	g, err := c.Grant(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if string(g) != string(f.GrantRaw) {
		t.Fatalf("grant = %s, want %s", g, f.GrantRaw)
	}
	want := localapitest.GrantCall{To: kto, Caps: []string{"exec", "fs:read"}, TTL: 90 * time.Minute, On: []key.PublicKey{kon}, Note: "n"}
	if len(f.Granted) != 1 || !reflect.DeepEqual(f.Granted[0], want) {
		t.Fatalf("granted = %+v, want %+v", f.Granted, want)
	}
	// A ttl that is not a positive duration is a bad request.
	for _, ttl := range []string{"", "1 hour", "-1h", "0s"} {
		req.TTL = ttl
		_, err := c.Grant(context.Background(), req)
		var re *localapi.RemoteError
		if !errors.As(err, &re) || re.Code != "bad_request" {
			t.Errorf("ttl %q: err = %v, want bad_request", ttl, err)
		}
	}
}

func TestGrantsAndRevoke(t *testing.T) {
	f, c, _ := setup(t)
	gs, err := c.Grants(context.Background())
	wantEmpty(t, "grants", gs, err)
	f.GrantList = []peer.GrantInfo{{ID: "g_1", Grant: json.RawMessage(`{"caps":["exec"]}`), Issued: true, Exp: "2026-01-01T00:00:00Z"}}
	gs, err = c.Grants(context.Background())
	if err != nil || !reflect.DeepEqual(gs, f.GrantList) {
		t.Fatalf("grants = %+v, %v", gs, err)
	}
	if err := c.RevokeGrant(context.Background(), "g_1"); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.Revoked, []string{"g_1"}) {
		t.Fatalf("revoked = %q", f.Revoked)
	}
}

func TestRequestRoundTrip(t *testing.T) {
	f, c, _ := setup(t)
	f.RequestResult = json.RawMessage(`{"exit":0,"stdout":"ok\n"}`)
	req := localapi.ProfileRequest{To: kx, Mime: profile.MimeExec, Data: json.RawMessage(`{"cmd":["true"]}`), Th: "thr_1"}
	data, err := c.Request(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != string(f.RequestResult) {
		t.Fatalf("data = %s", data)
	}
	want := localapitest.RequestCall{To: kx, Mime: profile.MimeExec, Data: json.RawMessage(`{"cmd":["true"]}`), Th: "thr_1"}
	if len(f.Requests) != 1 || !reflect.DeepEqual(f.Requests[0], want) {
		t.Fatalf("requests = %+v", f.Requests)
	}
}

func TestRequestErrLine(t *testing.T) {
	f, c, _ := setup(t)
	f.RequestErr = wire.NewErr("01J9E", "2026-01-01T00:00:00Z", wire.CodeForbidden, "exec needs a grant", "01J9R", "thr_1")
	_, err := c.Request(context.Background(), localapi.ProfileRequest{To: kx, Mime: profile.MimeExec, Data: json.RawMessage(`{}`)})
	var re *localapi.RemoteError
	if !errors.As(err, &re) || re.Status != 502 || re.Code != "peer_err" {
		t.Fatalf("err = %#v, want a 502 peer_err", err)
	}
	var we *wire.Err
	if !errors.As(err, &we) {
		t.Fatalf("err = %v does not unwrap to *wire.Err", err)
	}
	if we.Code != "forbidden" || we.Msg != "exec needs a grant" || we.Re != "01J9R" || we.Th != "thr_1" {
		t.Fatalf("err line = %+v", we)
	}
	if err.Error() != "awp: forbidden: exec needs a grant" {
		t.Fatalf("message = %q", err)
	}
	// Other failures do not pretend to be err lines.
	f.Lock()
	f.RequestErr = errors.New("peer: unknown peer")
	f.Unlock()
	_, err = c.Request(context.Background(), localapi.ProfileRequest{To: kx, Mime: profile.MimeExec, Data: json.RawMessage(`{}`)})
	if errors.As(err, &we) || !errors.As(err, &re) || re.Code != "backend" {
		t.Fatalf("backend failure = %#v", err)
	}
}

func TestPresenceVerbatim(t *testing.T) {
	f, c, dir := setup(t)
	doc := `{"origin":"ed25519:o", "name":"a <b> & c" ,"seq":3}`
	f.PresenceList = []peer.PresenceInfo{{Doc: json.RawMessage(doc), Hops: 2, Received: "2026-01-01T00:00:00Z", From: kf}}
	ps, err := c.Presence(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || string(ps[0].Doc) != doc || ps[0].Hops != 2 || ps[0].From != kf {
		t.Fatalf("presence = %+v", ps)
	}
	// On the socket too, byte for byte.
	body := rawGet(t, dir, "/v0/presence")
	want := `[{"doc":` + doc + `,"hops":2,"received":"2026-01-01T00:00:00Z","from":"` + kf.String() + `"}]` + "\n"
	if body != want {
		t.Fatalf("GET /v0/presence =\n%s\nwant\n%s", body, want)
	}
	f.Lock()
	f.PresenceList = nil
	f.Unlock()
	if body := rawGet(t, dir, "/v0/presence"); body != "[]\n" {
		t.Fatalf("empty presence = %q", body)
	}
}

// rawGet does a GET on the control socket and returns the body.
func rawGet(t *testing.T, dir, path string) string {
	t.Helper()
	conn, err := net.Dial("unix", localapi.SocketPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET "+path+" HTTP/1.1\r\nHost: awp\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(conn)
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(b), "\r\n\r\n")
	if !ok || !strings.HasPrefix(string(b), "HTTP/1.1 200") {
		t.Fatalf("answer = %q", b)
	}
	return body
}

func TestPresenceDetail(t *testing.T) {
	f, c, _ := setup(t)
	ctx := context.Background()
	if d, err := c.PresenceDetail(ctx); err != nil || d != "full" {
		t.Fatalf("detail = %q, %v", d, err)
	}
	if err := c.SetPresenceDetail(ctx, "peers"); err != nil {
		t.Fatal(err)
	}
	if d, err := c.PresenceDetail(ctx); err != nil || d != "peers" || f.Detail != "peers" {
		t.Fatalf("detail after set = %q (%q), %v", d, f.Detail, err)
	}
	if err := c.SetPresenceDetail(ctx, "loud"); err == nil || !strings.Contains(err.Error(), "want full, peers or none") {
		t.Fatalf("bad detail: err = %v", err)
	}
}

func TestMirrorEndpoints(t *testing.T) {
	f, c, _ := setup(t)
	ctx := context.Background()
	hs, err := c.MirrorHosts(ctx)
	wantEmpty(t, "hosts", hs, err)
	hs, err = c.SetMirrorHosts(ctx, []key.PublicKey{ka, kb})
	if err != nil || !reflect.DeepEqual(hs, []key.PublicKey{ka, kb}) {
		t.Fatalf("set hosts = %q, %v", hs, err)
	}
	if hs, err = c.MirrorHosts(ctx); err != nil || !reflect.DeepEqual(hs, []key.PublicKey{ka, kb}) {
		t.Fatalf("hosts = %q, %v", hs, err)
	}
	// Setting none clears them (and the answer is [], not null).
	if hs, err = c.SetMirrorHosts(ctx, nil); err != nil || hs == nil || len(hs) != 0 || len(f.Hosts) != 0 {
		t.Fatalf("cleared hosts = %#v (fake %q), %v", hs, f.Hosts, err)
	}
	if err := c.SetMirror(ctx, "thr_1", true); err != nil {
		t.Fatal(err)
	}
	if err := c.SetMirror(ctx, "thr_2", false); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.MirrorSet, map[string]bool{"thr_1": true, "thr_2": false}) {
		t.Fatalf("mirror set = %v", f.MirrorSet)
	}
	f.SendResult = peer.SendResult{ID: "01J9P", Th: "thr_1"}
	res, err := c.SetPrivate(ctx, "thr_1", ksh)
	if err != nil || res != f.SendResult {
		t.Fatalf("private = %+v, %v", res, err)
	}
	if !reflect.DeepEqual(f.Privates, [][2]string{{"thr_1", ksh.String()}}) {
		t.Fatalf("privates = %q", f.Privates)
	}
	var re *localapi.RemoteError
	if err := c.SetMirror(ctx, "", true); !errors.As(err, &re) || re.Code != "bad_request" {
		t.Fatalf("mirror without th: %v", err)
	}
}

func TestInviteAndAdd(t *testing.T) {
	f, c, _ := setup(t)
	ctx := context.Background()
	f.InviteV = "awp:abc"
	if inv, err := c.Invite(ctx); err != nil || inv != "awp:abc" {
		t.Fatalf("invite = %q, %v", inv, err)
	}
	f.AddKey = keytest.NewPublic(t)
	k, err := c.AddInvite(ctx, "awp:xyz")
	if err != nil || k != f.AddKey {
		t.Fatalf("add = %q, %v", k, err)
	}
	// Recorded but not reached: the key comes back with the error.
	f.Lock()
	f.AddErr = errors.New("peer: connect tcp://127.0.0.1:9: refused")
	f.Unlock()
	k, err = c.AddInvite(ctx, "awp:xyz")
	if err == nil || err.Error() != "peer: connect tcp://127.0.0.1:9: refused" || k != f.AddKey {
		t.Fatalf("failed add = %q, %v", k, err)
	}
	// Not recorded (a bad invite): no key.
	f.Lock()
	f.AddKey, f.AddErr = key.PublicKey{}, peer.ErrBadInvite
	f.Unlock()
	if k, err = c.AddInvite(ctx, "nope"); err == nil || !k.IsZero() {
		t.Fatalf("bad invite = %q, %v", k, err)
	}
	if !reflect.DeepEqual(f.Added, []string{"awp:xyz", "awp:xyz", "nope"}) {
		t.Fatalf("added = %q", f.Added)
	}
}
