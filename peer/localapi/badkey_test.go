package localapi_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/localapi"
)

// rawHTTP sends one request on the control socket and returns the answer.
func rawHTTP(t *testing.T, dir, method, path, body string) string {
	t.Helper()
	c, err := net.Dial("unix", localapi.SocketPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: awp\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", method, path, len(body), body)
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A malformed key in a request body or a query is refused at the edge with
// 400 and the key's parse error, and the backend is never called.
func TestBadKeyIs400(t *testing.T) {
	f, _, dir := setup(t)
	bad := "ed25519:not-a-key"
	cases := []struct{ method, path, body string }{
		{"POST", "/v0/send", `{"to":"` + bad + `","parts":[{"k":"text","text":"hi"}]}`},
		{"POST", "/v0/trust", `{"key":"` + bad + `","trusted":true}`},
		{"POST", "/v0/read", `{"th":"thr_1","from":"` + bad + `"}`},
		{"POST", "/v0/private", `{"th":"thr_1","from":"` + bad + `"}`},
		{"POST", "/v0/grant", `{"to":"` + kx.String() + `","caps":["exec"],"ttl":"1h","on":["` + bad + `"]}`},
		{"POST", "/v0/request", `{"to":"` + bad + `","mime":"application/vnd.awp.exec+json","data":{}}`},
		{"POST", "/v0/mirror/hosts", `{"hosts":["` + bad + `"]}`},
		{"GET", "/v0/lines?th=thr_1&from=" + bad, ""},
		{"GET", "/v0/lines?th=thr_1&last=5&from=" + bad, ""},
		{"GET", "/v0/thread?th=thr_1&from=" + bad, ""},
		{"GET", "/v0/blob?ref=blob_1&from=" + bad, ""},
	}
	for _, c := range cases {
		ans := rawHTTP(t, dir, c.method, c.path, c.body)
		if !strings.HasPrefix(ans, "HTTP/1.1 400") || !strings.Contains(ans, `"code":"bad_request"`) ||
			!strings.Contains(ans, "malformed ed25519 key") || !strings.Contains(ans, bad) {
			t.Errorf("%s %s: answer %q", c.method, c.path, ans)
		}
	}
	f.Lock()
	defer f.Unlock()
	if len(f.Sent)+len(f.TrustSet)+len(f.Reads)+len(f.Privates)+len(f.Granted)+len(f.Requests)+len(f.Hosts) != 0 {
		t.Errorf("the backend was called: %+v", f)
	}
}

// A key the node refuses (none, or its own: peer.ErrBadKey) is the
// caller's mistake: 400 with the node's message, not 500.
func TestBackendBadKeyIs400(t *testing.T) {
	f, c, _ := setup(t)
	f.Err = fmt.Errorf("%w: that is this node's own key", peer.ErrBadKey)
	_, err := c.Send(context.Background(), peer.SendRequest{To: f.PubKey})
	var re *localapi.RemoteError
	if !errors.As(err, &re) || re.Status != 400 || re.Code != "bad_request" || re.Msg != f.Err.Error() {
		t.Fatalf("err = %#v, want 400 bad_request with the node's message", err)
	}
}
