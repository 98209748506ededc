package wire

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/awp-tray/awp-tray/internal/vectors"
	"github.com/awp-tray/awp-tray/peer/key"
)

// goldenLines returns testdata/golden.jsonl: one line of every type, each
// written in the field order Encode uses, so the constructor test can compare
// bytes.
func goldenLines(t testing.TB) [][]byte {
	t.Helper()
	b, err := os.ReadFile("testdata/golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if len(l) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// goldenByName indexes the golden lines by a short name; mirror withdraw is
// "withdraw" and the unknown type is "unknown".
func goldenByName(t testing.TB) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	for _, l := range goldenLines(t) {
		var p struct {
			T        string `json:"t"`
			Withdraw bool   `json:"withdraw"`
		}
		if err := json.Unmarshal(l, &p); err != nil {
			t.Fatalf("golden line %s: %v", l, err)
		}
		name := p.T
		switch {
		case p.T == TypeMirror && p.Withdraw:
			name = "withdraw"
		case p.T == "typing":
			name = "unknown"
		}
		if _, dup := m[name]; dup {
			t.Fatalf("golden: two lines named %q", name)
		}
		m[name] = l
	}
	return m
}

var goldenNames = []string{
	"hello", "auth", "resume", "msg", "state", "ack", "err", "chunk",
	"introduce", "presence", "mirror", "withdraw", "private", "unknown",
}

func presenceVector(t testing.TB) (line, docRaw, docCanon string) {
	t.Helper()
	var v struct {
		Line     string `json:"line"`
		DocRaw   string `json:"doc_raw"`
		DocCanon string `json:"doc_canonical"`
	}
	vectors.Read(t, "presence.json", &v)
	return v.Line, v.DocRaw, v.DocCanon
}

func TestGoldenCoversEveryType(t *testing.T) {
	m := goldenByName(t)
	if len(m) != len(goldenNames) {
		t.Errorf("golden has %d lines, want %d", len(m), len(goldenNames))
	}
	for _, n := range goldenNames {
		if m[n] == nil {
			t.Errorf("golden has no %s line", n)
		}
	}
	line, _, _ := presenceVector(t)
	if string(m["presence"]) != line {
		t.Errorf("golden presence line is not the vector's line")
	}
}

func TestGoldenDecode(t *testing.T) {
	m := goldenByName(t)
	for _, name := range goldenNames {
		t.Run(name, func(t *testing.T) {
			in := m[name]
			raw := append([]byte(nil), in...)
			f, err := Decode(raw)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !bytes.Equal(f.Raw(), in) {
				t.Errorf("Raw() = %s\nwant     %s", f.Raw(), in)
			}
			enc, err := Encode(f)
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			if !bytes.Equal(enc, in) {
				t.Errorf("Encode(decoded) = %s\nwant             %s", enc, in)
			}
			h := f.Header()
			checkGoldenFields(t, name, f, h)
		})
	}
}

func checkGoldenFields(t *testing.T, name string, f Frame, h *Head) {
	t.Helper()
	want := func(what string, got, exp any) {
		t.Helper()
		if !reflect.DeepEqual(got, exp) {
			t.Errorf("%s: %s = %#v, want %#v", name, what, got, exp)
		}
	}
	switch name {
	case "hello":
		x := frameAs[*Hello](t, f)
		want("T", h.T, TypeHello)
		want("ID", h.ID, "01J9ZX00000000000000000001")
		want("TS", h.TS, "2026-09-25T17:03:11Z")
		want("V", string(x.V), "0")
		want("Key", x.Key, "ed25519:ebVWLo_mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ")
		want("Name", x.Name, "alice@laptop")
		want("Nonce", x.Nonce, "oaGhoaGhoaGhoaGhoaGhoQ")
		want("Caps", x.Caps, []string{"chat", "blob", "grant", "introduce", "presence", "mirror"})
		want("About", x.About, "Coding agent <acme/api> & friends")
		want("Listen", x.Listen, []string{"tcp://127.0.0.1:7650", "wg://203.0.113.7:51820#ed25519:ebVWLo_mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ"})
		k, err := x.CheckHello()
		if err != nil {
			t.Fatalf("CheckHello: %v", err)
		}
		want("CheckHello key", k.String(), x.Key)
		want("HasCap(mirror)", x.HasCap("mirror"), true)
		want("HasCap(exec)", x.HasCap("exec"), false)
	case "auth":
		x := frameAs[*Auth](t, f)
		want("TS", h.TS, "2026-09-25T17:03:11.120Z")
		want("Sig", x.Sig, "WLulv7nVMeS53z4yWfvU2PZ1AM7RuTpXpVURIuQ2g00kTRxWOG8uDDzp0kkAkLfX8jn6-UkcTfwl567GUXVZBA")
	case "resume":
		x := frameAs[*Resume](t, f)
		want("Seen", x.Seen, map[string]string{"thr_9k2": "01J9ZX0000000000000000000Z", "thr_vrw6443w": "01J9ZX0000000000000000000Y"})
	case "msg":
		x := frameAs[*Msg](t, f)
		want("Th", h.Th, "thr_9k2")
		want("Subject", x.Subject, "Port the auth middleware")
		want("Re", x.Re, "01J9ZX0000000000000000000Z")
		ps := x.DecodeParts()
		if len(ps) != 5 {
			t.Fatalf("%d parts, want 5", len(ps))
		}
		want("part 0", ps[0], Part{K: PartText, Text: "Here is the diff so far: a < b && c > d"})
		want("part 1", ps[1], Part{K: PartCode, Text: "--- a/auth.go\n+++ b/auth.go\n", Lang: "diff", Path: "auth.go"})
		want("part 2 mime", ps[2].Mime, "application/json")
		want("part 2 data", string(ps[2].Data), `{"branch":"feature/retry-queue","n":[1,2]}`)
		want("part 3", ps[3], Part{K: PartBlob, Ref: "blob_44", Name: "test-output.log", Mime: "text/plain", Size: 183422, Sha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"})
		want("part 4 k", ps[4].K, "sketch")
		// The unknown part survives byte for byte.
		want("part 4 raw", string(x.Parts[4]), `{"k":"sketch","svg":"<svg/>","future":{"x":1}}`)
	case "state":
		x := frameAs[*State](t, f)
		want("State", x.State, StateWorking)
		want("Note", x.Note, "running tests")
	case "ack":
		x := frameAs[*Ack](t, f)
		want("ID", h.ID, "")
		want("Th", h.Th, "thr_9k2")
		want("Of", x.Of, "01J9ZX00000000000000000004")
	case "err":
		x := frameAs[*Err](t, f)
		want("Code", x.Code, CodeRateLimited)
		want("Msg", x.Msg, "slow down")
		want("Re", x.Re, "01J9ZX00000000000000000004")
		want("RetryMS", x.RetryMS, int64(250))
		want("Th", h.Th, "thr_9k2")
		want("Error()", x.Error(), "awp: rate_limited: slow down")
		want("FatalCode", FatalCode(x.Code), false)
	case "chunk":
		x := frameAs[*Chunk](t, f)
		want("Ref", x.Ref, "blob_44")
		want("Off", x.Off, int64(524288))
		want("Data", string(x.Data), "Hello, world")
		want("End", x.End, true)
		if _, ok := decodeChunkFast(f.Raw()); !ok {
			t.Errorf("golden chunk does not take the fast path")
		}
	case "introduce":
		x := frameAs[*Introduce](t, f)
		want("Peer", x.Peer, Card{
			Key:    "ed25519:6kpsY-KcUgq-9VB7Ey7F-ZVHdq6-vnuSQh7qaRRG0iw",
			Name:   "codex@builder",
			Listen: []string{"wg://203.0.113.7:51820#ed25519:6kpsY-KcUgq-9VB7Ey7F-ZVHdq6-vnuSQh7qaRRG0iw"},
			About:  "Builds release artifacts",
		})
		want("Note", x.Note, "codex will take the release build")
		checkIntroduceGrant(t, x.Grant)
	case "presence":
		x := frameAs[*Presence](t, f)
		_, docRaw, _ := presenceVector(t)
		want("Hops", x.Hops, 1)
		want("Doc", string(x.Doc), docRaw)
		want("ID", h.ID, "01J9ZX0000000000000000000B")
	case "mirror":
		x := frameAs[*Mirror](t, f)
		want("Of", x.Of, "ed25519:2inpWwLgD_oVZFd1-x0roiKhlDOV7qBrlOLAV7e-adA")
		want("Dir", x.Dir, "out")
		want("Withdraw", x.Withdraw, false)
		inner, err := Decode(x.Line)
		if err != nil {
			t.Fatalf("mirrored line: %v", err)
		}
		if _, ok := inner.(*Msg); !ok {
			t.Errorf("mirrored line is %T, want *Msg", inner)
		}
	case "withdraw":
		x := frameAs[*Mirror](t, f)
		want("Withdraw", x.Withdraw, true)
		want("Line", len(x.Line), 0)
		want("Th", h.Th, "thr_9k2")
	case "private":
		frameAs[*Private](t, f)
		want("Th", h.Th, "thr_9k2")
	case "unknown":
		frameAs[*Unknown](t, f)
		want("T", h.T, "typing")
		want("ID", h.ID, "01J9ZX00000000000000000014")
	default:
		t.Fatalf("no checks for %s", name)
	}
	want("IsContent", IsContent(h.T), name == "msg" || name == "state" || name == "chunk" ||
		name == "introduce" || name == "mirror" || name == "withdraw" || name == "private")
}

// frameAs returns f as a T, failing the test if it is another type.
func frameAs[T Frame](t *testing.T, f Frame) T {
	t.Helper()
	x, ok := f.(T)
	if !ok {
		t.Fatalf("type %T, want %T", f, x)
	}
	return x
}

// checkIntroduceGrant checks that the grant carried by the golden introduce
// is the vector's introduce grant and that its signature verifies over the
// canonical bytes.
func checkIntroduceGrant(t *testing.T, g json.RawMessage) {
	t.Helper()
	var v struct {
		IntroduceGrant struct {
			Canonical string `json:"canonical"`
		} `json:"introduce_grant"`
	}
	vectors.Read(t, "grants.json", &v)
	c, err := CanonicalWithout(g, "sig")
	if err != nil {
		t.Fatal(err)
	}
	if string(c) != v.IntroduceGrant.Canonical {
		t.Fatalf("grant canonical = %s\nwant %s", c, v.IntroduceGrant.Canonical)
	}
	var obj struct {
		Iss string `json:"iss"`
		Sig string `json:"sig"`
	}
	if err := json.Unmarshal(g, &obj); err != nil {
		t.Fatal(err)
	}
	if !key.MustParsePublic(obj.Iss).VerifyText(c, obj.Sig) {
		t.Errorf("introduce grant signature does not verify")
	}
}

// goldenBuilt builds every golden line with the constructors (and struct
// literals where there is no constructor), as the node would.
func goldenBuilt(t *testing.T) map[string]Frame {
	t.Helper()
	alice := key.MustParsePublic("ed25519:ebVWLo_mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ")
	m := map[string]Frame{}

	h := NewHello("01J9ZX00000000000000000001", "2026-09-25T17:03:11Z", alice, "alice@laptop",
		"Coding agent <acme/api> & friends",
		[]string{"chat", "blob", "grant", "introduce", "presence", "mirror"},
		[]string{"tcp://127.0.0.1:7650", "wg://203.0.113.7:51820#" + alice.String()})
	if n, err := b64url.DecodeString(h.Nonce); err != nil || len(n) != 16 {
		t.Errorf("NewHello nonce %q: %d bytes, %v", h.Nonce, len(n), err)
	}
	h.Nonce = "oaGhoaGhoaGhoaGhoaGhoQ"
	m["hello"] = h

	a := &Auth{Sig: "WLulv7nVMeS53z4yWfvU2PZ1AM7RuTpXpVURIuQ2g00kTRxWOG8uDDzp0kkAkLfX8jn6-UkcTfwl567GUXVZBA"}
	a.T, a.ID, a.TS = TypeAuth, "01J9ZX00000000000000000002", "2026-09-25T17:03:11.120Z"
	m["auth"] = a

	r := &Resume{Seen: map[string]string{"thr_vrw6443w": "01J9ZX0000000000000000000Y", "thr_9k2": "01J9ZX0000000000000000000Z"}}
	r.T, r.ID, r.TS = TypeResume, "01J9ZX00000000000000000003", "2026-09-25T17:03:11.130Z"
	m["resume"] = r

	data, err := DataPart("application/json", json.RawMessage(`{"branch": "feature/retry-queue", "n": [1, 2]}`))
	if err != nil {
		t.Fatal(err)
	}
	msg := &Msg{Subject: "Port the auth middleware", Re: "01J9ZX0000000000000000000Z", Parts: []json.RawMessage{
		TextPart("Here is the diff so far: a < b && c > d"),
		CodePart("--- a/auth.go\n+++ b/auth.go\n", "diff", "auth.go"),
		data,
		BlobPart("blob_44", "test-output.log", "text/plain", 183422, "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"),
		json.RawMessage(`{"k":"sketch","svg":"<svg/>","future":{"x":1}}`),
	}}
	msg.T, msg.ID, msg.TS, msg.Th = TypeMsg, "01J9ZX00000000000000000004", "2026-09-25T17:03:12.000Z", "thr_9k2"
	m["msg"] = msg

	st := &State{State: StateWorking, Note: "running tests"}
	st.T, st.ID, st.TS, st.Th = TypeState, "01J9ZX00000000000000000005", "2026-09-25T17:03:13Z", "thr_9k2"
	m["state"] = st

	m["ack"] = NewAck("thr_9k2", "01J9ZX00000000000000000004")

	e := NewErr("01J9ZX00000000000000000006", "2026-09-25T17:03:14Z", CodeRateLimited, "slow down", "01J9ZX00000000000000000004", "thr_9k2")
	e.RetryMS = 250
	m["err"] = e

	m["chunk"] = NewChunk("01J9ZX00000000000000000007", "2026-09-25T17:03:15Z", "thr_9k2", "blob_44", 524288, []byte("Hello, world"), true)

	gl := goldenByName(t)
	var gi Introduce
	if err := json.Unmarshal(gl["introduce"], &gi); err != nil {
		t.Fatal(err)
	}
	in := &Introduce{
		Peer: Card{
			Key:    "ed25519:6kpsY-KcUgq-9VB7Ey7F-ZVHdq6-vnuSQh7qaRRG0iw",
			Name:   "codex@builder",
			Listen: []string{"wg://203.0.113.7:51820#ed25519:6kpsY-KcUgq-9VB7Ey7F-ZVHdq6-vnuSQh7qaRRG0iw"},
			About:  "Builds release artifacts",
		},
		Note:  "codex will take the release build",
		Grant: gi.Grant,
	}
	in.T, in.ID, in.TS, in.Th = TypeIntroduce, "01J9ZX00000000000000000008", "2026-09-25T17:03:16Z", "thr_9k2"
	m["introduce"] = in

	_, docRaw, _ := presenceVector(t)
	p := &Presence{Hops: 1, Doc: json.RawMessage(docRaw)}
	p.T, p.ID, p.TS = TypePresence, "01J9ZX0000000000000000000B", "2026-09-25T17:03:12Z"
	m["presence"] = p

	mi := &Mirror{Of: "ed25519:2inpWwLgD_oVZFd1-x0roiKhlDOV7qBrlOLAV7e-adA", Dir: "out",
		Line: json.RawMessage(`{"t":"msg","id":"01J9ZX00000000000000000010","ts":"2026-09-25T17:03:20Z","th":"thr_9k2","parts":[{"k":"text","text":"hi"}]}`)}
	mi.T, mi.ID, mi.TS, mi.Th = TypeMirror, "01J9ZX00000000000000000011", "2026-09-25T17:03:21Z", "thr_9k2"
	m["mirror"] = mi

	w := &Mirror{Withdraw: true}
	w.T, w.ID, w.TS, w.Th = TypeMirror, "01J9ZX00000000000000000012", "2026-09-25T17:03:22Z", "thr_9k2"
	m["withdraw"] = w

	pr := &Private{}
	pr.T, pr.ID, pr.TS, pr.Th = TypePrivate, "01J9ZX00000000000000000013", "2026-09-25T17:03:23Z", "thr_9k2"
	m["private"] = pr
	return m
}

// TestGoldenBuild encodes locally built frames and compares them with the
// golden lines byte for byte: this pins field names, field order, omitempty
// and escaping of what this peer writes.
func TestGoldenBuild(t *testing.T) {
	gl := goldenByName(t)
	built := goldenBuilt(t)
	for _, name := range goldenNames {
		if name == "unknown" {
			continue // never built locally
		}
		t.Run(name, func(t *testing.T) {
			f := built[name]
			if f.Raw() != nil {
				t.Fatalf("Raw() before Encode = %q, want nil", f.Raw())
			}
			b, err := Encode(f)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b, gl[name]) {
				t.Errorf("Encode =\n%s\nwant\n%s", b, gl[name])
			}
			if !bytes.Equal(f.Raw(), b) {
				t.Errorf("Raw() after Encode differs from the encoded bytes")
			}
			// A second Encode returns the recorded bytes, even after a change.
			f.Header().TS = "2030-01-01T00:00:00Z"
			b2, err := Encode(f)
			if err != nil || !bytes.Equal(b2, b) {
				t.Errorf("second Encode = %s, %v; want the first bytes", b2, err)
			}
			if _, err := Decode(append([]byte(nil), b...)); err != nil {
				t.Errorf("Decode(Encode) = %v", err)
			}
		})
	}
}

// wireFields is every field name AWP puts on the wire (docs/protocol/: from
// framing.md to grants.md, presence.md and mirror.md), at the level this package writes them (lines, parts, cards).
var wireFields = []string{
	"t", "id", "ts", "th", "v", "key", "name", "nonce", "caps", "about", "listen", "sig", "seen",
	"subject", "re", "parts", "k", "text", "lang", "path", "mime", "data", "ref", "size", "sha256",
	"state", "note", "of", "code", "msg", "retry_ms", "off", "end", "peer", "grant", "hops", "doc",
	"dir", "line", "withdraw",
}

// TestWireFieldNames collects the keys of every built frame (top level, each
// part and the introduce card) and checks that together they are exactly the
// pinned names, so renaming a struct tag fails here.
func TestWireFieldNames(t *testing.T) {
	built := goldenBuilt(t)
	got := map[string]bool{}
	collect := func(b []byte) {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		for k := range m {
			got[k] = true
		}
	}
	for _, f := range built {
		b, err := Encode(f)
		if err != nil {
			t.Fatal(err)
		}
		collect(b)
		switch x := f.(type) {
		case *Msg:
			for _, p := range x.Parts[:4] { // the fifth is the unknown part
				collect(p)
			}
		case *Introduce:
			pb, _ := json.Marshal(x.Peer)
			collect(pb)
		case *Presence, *Mirror:
			// doc and line contents are not this package's fields.
		}
	}
	want := map[string]bool{}
	for _, k := range wireFields {
		want[k] = true
	}
	for k := range want {
		if !got[k] {
			t.Errorf("no built frame writes %q", k)
		}
	}
	var extra []string
	for k := range got {
		if !want[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		t.Errorf("built frames write unpinned fields %v", extra)
	}
}

// TestPartConstructors pins the part builders' output exactly.
func TestPartConstructors(t *testing.T) {
	d, err := DataPart("application/vnd.awp.grant+json", json.RawMessage(`{"a": "<&>"}`))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := DataPart("", json.RawMessage(`[1]`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ got, want string }{
		{string(TextPart("a<b")), `{"k":"text","text":"a<b"}`},
		{string(TextPart("")), `{"k":"text","text":""}`}, // text is required, even empty
		{string(CodePart("x := 1\n", "", "")), `{"k":"code","text":"x := 1\n"}`},
		{string(CodePart("x", "go", "main.go")), `{"k":"code","text":"x","lang":"go","path":"main.go"}`},
		{string(d), `{"k":"data","mime":"application/vnd.awp.grant+json","data":{"a":"<&>"}}`},
		{string(plain), `{"k":"data","mime":"application/json","data":[1]}`}, // no mime: JSON's
		{string(BlobPart("r", "n", "m", 0, "")), `{"k":"blob","ref":"r","name":"n","mime":"m","size":0}`},
	} {
		if c.got != c.want {
			t.Errorf("got  %s\nwant %s", c.got, c.want)
		}
	}
	if _, err := DataPart("application/json", json.RawMessage(`{"a":`)); err == nil {
		t.Errorf("DataPart accepted invalid JSON")
	}
}

// TestPresenceRelayKeepsDoc relays the vector's presence line the way a node
// does (new envelope, hops+1, same Doc) and checks doc stays byte for byte
// (docs/protocol/presence.md) and its signature still verifies.
func TestPresenceRelayKeepsDoc(t *testing.T) {
	line, docRaw, docCanon := presenceVector(t)
	f, err := Decode([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	in := f.(*Presence)
	out := &Presence{Hops: in.Hops + 1, Doc: in.Doc}
	out.T, out.ID, out.TS = TypePresence, "01J9ZX0000000000000000000C", "2026-09-25T17:03:13Z"
	b, err := Encode(out)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"t":"presence","id":"01J9ZX0000000000000000000C","ts":"2026-09-25T17:03:13Z","hops":2,"doc":` + docRaw + `}`
	if string(b) != want {
		t.Fatalf("relayed line\n%s\nwant\n%s", b, want)
	}
	c, err := CanonicalWithout(in.Doc, "sig")
	if err != nil {
		t.Fatal(err)
	}
	if string(c) != docCanon {
		t.Fatalf("doc canonical\n%s\nwant\n%s", c, docCanon)
	}
	var d struct {
		Origin string `json:"origin"`
		Sig    string `json:"sig"`
	}
	if err := json.Unmarshal(in.Doc, &d); err != nil {
		t.Fatal(err)
	}
	if !key.MustParsePublic(d.Origin).VerifyText(c, d.Sig) {
		t.Errorf("presence doc signature does not verify")
	}
	// A doc that would break framing (a newline) is compacted instead.
	nl := &Presence{Hops: 1, Doc: json.RawMessage("{\"a\":\n1}")}
	nl.T = TypePresence
	b, err = Encode(nl)
	if err != nil || string(b) != `{"t":"presence","hops":1,"doc":{"a":1}}` {
		t.Errorf("doc with newline: %s, %v", b, err)
	}
}

// TestWriterRoundTrip writes every golden frame with Writer and reads them
// back with Reader.
func TestWriterRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	lines := goldenLines(t)
	for _, l := range lines {
		f, err := Decode(append([]byte(nil), l...))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteFrame(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	r := NewReader(&buf)
	for i, l := range lines {
		got, err := r.ReadLine()
		if err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if !bytes.Equal(got, l) {
			t.Errorf("line %d = %s, want %s", i, got, l)
		}
	}
	if err := w.WriteLine(make([]byte, MaxLine+1)); err != ErrTooLong {
		t.Errorf("WriteLine(MaxLine+1) = %v, want ErrTooLong", err)
	}
	big := NewChunk("01J9ZX00000000000000000007", "2026-09-25T17:03:15Z", "thr_9k2", "r", 0, make([]byte, MaxLine), false)
	if _, err := Encode(big); err == nil || !strings.Contains(err.Error(), "over 1 MiB") {
		t.Errorf("Encode of a chunk over MaxLine = %v, want ErrTooLong", err)
	}
}
