package peer

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/awp-tray/awp-tray/peer/key"
)

var updateAPIJSON = flag.Bool("update-apijson", false, "rewrite testdata/apijson.golden")

// Keys of the API JSON fixture.
var (
	fxA = key.MustParsePublic("ed25519:ebVWLo_mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ")
	fxB = key.MustParsePublic("ed25519:11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo")
)

// apiFixture is one value of every public API type that carries a key, once
// with every key field set and once with every key field zero, so the test
// sees both a key's text and how an absent key is written (omitted, or "").
func apiFixture() []any {
	line := &LineInfo{Dir: "in", From: fxA, Line: json.RawMessage(`{"t":"msg"}`), Seq: 3, MirroredFrom: fxB, Stored: "2026-12-01T22:00:00Z"}
	blob := &BlobInfo{Ref: "sha256:ab", From: fxB, Th: "t1", Name: "a.txt", Mime: "text/plain", Size: 4, Dir: "in"}
	appr := ApprovalRequest{ID: "a1", Kind: ApprovalGrantRequest, From: fxA, FromName: "ann", Sub: fxB, Caps: []string{"exec"},
		On: []key.PublicKey{fxA, fxB}, Th: "t1", ReqID: "r1", Created: "2026-12-01T22:00:00Z", Deadline: "2026-12-01T22:05:00Z"}
	return []any{
		ThreadInfo{Th: "t1", Peer: fxA, PeerName: "ann", Subject: "s", Updated: "2026-12-01T22:00:00Z", Lines: 2,
			LastText: "hi", LastFrom: fxB, MirroredFrom: fxA, Mirror: true},
		ThreadInfo{Th: "t2"},
		*line,
		LineInfo{Dir: "out", Line: json.RawMessage(`{}`)},
		PeerInfo{Key: fxA, Name: "ann", Up: true, Trusted: true, IntroducedBy: fxB, Listen: []string{"127.0.0.1:1"}},
		PeerInfo{},
		*blob,
		BlobInfo{Ref: "sha256:cd", Dir: "out"},
		SendRequest{To: fxA, Th: "t1", Subject: "s"},
		SendRequest{},
		Event{Type: EventLine, Time: "2026-12-01T22:00:00Z", Peer: fxA, PeerName: "ann", Th: "t1", Line: line, Blob: blob, Approval: &appr},
		Event{Type: EventSettings, Time: "2026-12-01T22:00:00Z"},
		appr,
		ApprovalRequest{ID: "a2", Kind: ApprovalProfile, On: []key.PublicKey{}},
		ApprovalRecord{Request: appr, Decision: Decision{Allow: true, By: "user"}, At: "2026-12-01T22:01:00Z"},
		PresenceInfo{Doc: json.RawMessage(`{}`), Hops: 1, Received: "2026-12-01T22:00:00Z", From: fxB},
		PresenceInfo{},
	}
}

// TestAPIJSONUnchanged compares the JSON of the API types on a fixture with
// the golden file written before keys were typed (key.PublicKey in place of
// strings): the local API, `awp … --json` and `awp watch` print these, and
// their shapes are a contract.
func TestAPIJSONUnchanged(t *testing.T) {
	var buf bytes.Buffer
	for _, v := range apiFixture() {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%T: %v", v, err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	path := filepath.Join("testdata", "apijson.golden")
	if *updateAPIJSON {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := bytes.Split(buf.Bytes(), []byte("\n"))
	for i, w := range bytes.Split(want, []byte("\n")) {
		if i >= len(got) || !bytes.Equal(got[i], w) {
			var g []byte
			if i < len(got) {
				g = got[i]
			}
			t.Errorf("line %d:\n got %s\nwant %s", i+1, g, w)
		}
	}
	if len(got) != len(bytes.Split(want, []byte("\n"))) {
		t.Errorf("%d lines, want %d", len(got), len(bytes.Split(want, []byte("\n"))))
	}
}

// BlobInfo.State is the one wording of a blob's state: the node's error
// for a blob not ready, awp blobs, awp blob get and awp watch.
func TestBlobInfoState(t *testing.T) {
	for _, c := range []struct {
		b    BlobInfo
		want string
	}{
		{BlobInfo{Size: 10, Received: 3}, "incomplete (3 of 10 bytes)"},
		{BlobInfo{Size: 10, Received: 10, Complete: true}, "complete"},
		{BlobInfo{Size: 10, Received: 10, Complete: true, Corrupt: true}, "corrupt"},
		{BlobInfo{Size: 10, Received: 4, Corrupt: true}, "corrupt"},
	} {
		if got := c.b.State(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.b, got, c.want)
		}
	}
}
