package render

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

// Keys as text (names, avatars, lines on the wire) and as keys (the API
// types); their short forms are AAAAAAAA and BBBBBBBB.
const (
	alice = "ed25519:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAE"
	bob   = "ed25519:BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBA"
)

var aliceK, bobK = key.MustParsePublic(alice), key.MustParsePublic(bob)

func line(dir, from, js string) peer.LineInfo {
	return peer.LineInfo{Dir: dir, From: key.MustParsePublic(from), Line: json.RawMessage(js), Seq: 1}
}

func decodeParts(t *testing.T, js string) []Part {
	t.Helper()
	e := Decode(line("in", alice, js))
	if e.Type != "msg" {
		t.Fatalf("type %q, want msg", e.Type)
	}
	return e.Parts
}

func TestDecodeMessageParts(t *testing.T) {
	parts := decodeParts(t, `{"t":"msg","id":"01J9","ts":"2026-09-25T17:03:11Z","th":"thr_9k2","subject":"Port auth",
		"parts":[{"k":"text","text":"Here is the diff."},
		{"k":"code","lang":"diff","path":"auth.go","text":"--- a\n+++ b"},
		{"k":"data","mime":"application/json","data":{"branch":"feature/x","n":[1,2]}},
		{"k":"blob","ref":"blob_44","name":"test.log","mime":"text/plain","size":183422,"sha256":"9f86"},
		{"k":"sticker","id":7}]}`)
	if len(parts) != 5 {
		t.Fatalf("%d parts, want 5", len(parts))
	}
	if p := parts[0]; p.Kind != PartText || p.Text != "Here is the diff." || p.Mono {
		t.Errorf("text part = %+v", p)
	}
	if p := parts[1]; p.Kind != PartCode || !p.Mono || p.Lang != "diff" || p.Path != "auth.go" || p.Title != "auth.go (diff)" || p.Text != "--- a\n+++ b" {
		t.Errorf("code part = %+v", p)
	}
	wantJSON := "{\n  \"branch\": \"feature/x\",\n  \"n\": [\n    1,\n    2\n  ]\n}"
	if p := parts[2]; p.Kind != PartData || p.Text != wantJSON || p.Mime != "application/json" || !p.Mono {
		t.Errorf("data part = %+v\nwant text %q", p, wantJSON)
	}
	if p := parts[3]; p.Kind != PartBlob || p.Blob == nil || p.Blob.Ref != "blob_44" || p.Blob.Size != 183422 || p.Blob.Name != "test.log" || p.Blob.Sha256 != "9f86" {
		t.Errorf("blob part = %+v", p)
	}
	if p := parts[4]; p.Kind != PartUnsupported || !strings.Contains(p.Title, `"sticker"`) || p.Text != `{"k":"sticker","id":7}` {
		t.Errorf("unknown part = %+v", p)
	}
}

func TestDecodeEnvelope(t *testing.T) {
	li := peer.LineInfo{Dir: "out", From: bobK, Acked: true, Seq: 9, MirroredFrom: aliceK,
		Line: json.RawMessage(`{"t":"msg","id":"01JX","ts":"2026-09-25T17:03:11Z","th":"thr_1","re":"01JW","subject":"S","parts":[{"k":"text","text":"x"}]}`)}
	e := Decode(li)
	if e.Seq != 9 || e.Dir != "out" || e.From != bob || !e.Acked || e.ID != "01JX" || e.Re != "01JW" ||
		e.Subject != "S" || e.Time != "2026-09-25T17:03:11Z" || e.MirroredFrom != alice || e.Hidden {
		t.Errorf("entry = %+v", e)
	}
}

func TestDecodeStateChunkAndNotices(t *testing.T) {
	st := Decode(line("in", alice, `{"t":"state","id":"1","ts":"x","th":"thr_1","state":"working","note":"running tests"}`))
	if len(st.Parts) != 1 || st.Parts[0].Kind != PartState || st.Parts[0].Title != "working" || st.Parts[0].Text != "running tests" {
		t.Errorf("state = %+v", st)
	}
	ch := Decode(line("in", alice, `{"t":"chunk","id":"2","ts":"x","th":"thr_1","ref":"b","off":0,"data":"AA==","end":true}`))
	if !ch.Hidden || len(ch.Parts) != 0 {
		t.Errorf("chunk = %+v, want hidden", ch)
	}
	pr := Decode(line("in", alice, `{"t":"private","id":"3","ts":"x","th":"thr_1"}`))
	if pr.Parts[0].Kind != PartNotice || !strings.Contains(pr.Parts[0].Title, "private") {
		t.Errorf("private = %+v", pr)
	}
	wd := Decode(line("in", alice, `{"t":"mirror","id":"4","ts":"x","th":"thr_1","withdraw":true}`))
	if wd.Parts[0].Kind != PartNotice || !strings.Contains(wd.Parts[0].Title, "withdrew") {
		t.Errorf("withdraw = %+v", wd)
	}
	un := Decode(line("in", alice, `{"t":"future","id":"5","ts":"x"}`))
	if un.Parts[0].Kind != PartNotice || !strings.Contains(un.Parts[0].Title, `"future"`) {
		t.Errorf("unknown type = %+v", un)
	}
	bad := Decode(line("in", alice, `[1,2`))
	if bad.Type != "?" || bad.Parts[0].Kind != PartNotice || bad.Parts[0].Text != "[1,2" {
		t.Errorf("malformed = %+v", bad)
	}
	empty := Decode(line("in", alice, `{"t":"msg","id":"6","ts":"x","th":"thr_1","parts":[]}`))
	if len(empty.Parts) != 1 || empty.Parts[0].Kind != PartNotice {
		t.Errorf("empty msg = %+v", empty)
	}
}

func TestDecodeRawMirrorLine(t *testing.T) {
	e := Decode(line("in", alice, `{"t":"mirror","id":"9","ts":"x","th":"thr_1","of":"`+bob+`","dir":"out",
		"line":{"t":"msg","id":"01A","ts":"2026-01-01T00:00:00Z","th":"thr_1","parts":[{"k":"text","text":"inner"}]}}`))
	if e.Type != "msg" || e.ID != "01A" || e.Dir != "out" || e.Parts[0].Text != "inner" {
		t.Errorf("mirror unwrapped = %+v", e)
	}
}

func TestDecodeIntroduce(t *testing.T) {
	e := Decode(line("in", alice, `{"t":"introduce","id":"1","ts":"x","th":"thr_1",
		"peer":{"key":"`+bob+`","name":"codex@builder","listen":["tcp://10.0.0.2:7000"],"about":"Builds"},
		"note":"codex will build","grant":{"iss":"`+alice+`","sub":"`+bob+`","caps":["introduce"],"exp":"2027-01-01T00:00:00Z"}}`))
	p := e.Parts[0]
	if p.Kind != PartIntroduce || p.Title != "introduces codex@builder (BBBBBBBB)" || p.Text != "codex will build" {
		t.Fatalf("introduce = %+v", p)
	}
	want := []Field{{"key", bob}, {"about", "Builds"}, {"listen", "tcp://10.0.0.2:7000"}, {"with", "grant: introduce"}}
	if !equalFields(p.Fields, want) {
		t.Errorf("fields = %v, want %v", p.Fields, want)
	}
}

func equalFields(a, b []Field) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestDecodeProfileParts(t *testing.T) {
	for _, tc := range []struct {
		name   string
		part   string
		kind   PartKind
		title  string
		fields []Field
		text   string
	}{
		{"exec argv", `{"k":"data","mime":"application/vnd.awp.exec+json","data":{"cmd":["make","test","a b"],"cwd":"services/api","env":{"CI":"1"},"timeout":600}}`,
			PartRequest, `exec: make test "a b"`, []Field{{"cwd", "services/api"}, {"env", "CI=1"}, {"timeout", "10 minutes"}}, ""},
		{"exec shell", `{"k":"data","mime":"application/vnd.awp.exec+json","data":{"cmd":"go test ./... | tail"}}`,
			PartRequest, "exec: go test ./... | tail", []Field{{"cwd", "(workspace root)"}}, ""},
		{"exec result", `{"k":"data","mime":"application/vnd.awp.exec-result+json","data":{"exit":2,"duration_ms":8123,"stdout":"ok\n","stderr":"FAIL x","stdout_truncated":true}}`,
			PartResult, "exec result: exit 2 in 8.1s", nil, "ok\n\n… stdout truncated (full output attached)\n── stderr ──\nFAIL x"},
		{"exec timeout", `{"k":"data","mime":"application/vnd.awp.exec-result+json","data":{"exit":-1,"error":"timeout","stdout":""}}`,
			PartResult, "exec result: exit -1", []Field{{"error", "timeout"}}, ""},
		{"fs read", `{"k":"data","mime":"application/vnd.awp.fs-read+json","data":{"path":"go.mod","offset":10,"length":20}}`,
			PartRequest, "read go.mod", []Field{{"offset", "10"}, {"length", "20"}}, ""},
		{"fs read result", `{"k":"data","mime":"application/vnd.awp.fs-read-result+json","data":{"path":"go.mod","size":812,"encoding":"utf-8","content":"module x","eof":true}}`,
			PartResult, "read go.mod (812 B)", nil, "module x"},
		{"fs read base64", `{"k":"data","mime":"application/vnd.awp.fs-read-result+json","data":{"path":"a.bin","size":4,"encoding":"base64","content":"AAECAw==","eof":false}}`,
			PartResult, "read a.bin (4 B)", []Field{{"partial", "more follows (not at end of file)"}}, "(8 characters of base64: binary content)"},
		{"fs dir", `{"k":"data","mime":"application/vnd.awp.fs-read-result+json","data":{"path":".","dir":true,"entries":[{"name":"cmd","dir":true,"mode":"0755"},{"name":"go.mod","size":2048,"mode":"0644"}]}}`,
			PartResult, "listed . (2 entries)", nil, "0755 cmd/\n0644 go.mod  2.0 KiB"},
		{"fs write", `{"k":"data","mime":"application/vnd.awp.fs-write+json","data":{"path":"notes/todo.md","content":"hi","append":true,"mkdir":true}}`,
			PartRequest, "append to notes/todo.md", []Field{{"mkdir", "create missing directories"}}, "hi"},
		{"fs write result", `{"k":"data","mime":"application/vnd.awp.fs-write-result+json","data":{"path":"notes/todo.md","written":42}}`,
			PartResult, "wrote 42 B to notes/todo.md", nil, ""},
		{"fs error", `{"k":"data","mime":"application/vnd.awp.fs-write-result+json","data":{"path":"../x","error":"path outside workspace"}}`,
			PartResult, "write ../x failed", []Field{{"error", "path outside workspace"}}, ""},
		{"grant", `{"k":"data","mime":"application/vnd.awp.grant+json","data":{"iss":"` + alice + `","sub":"` + bob + `","caps":["exec","fs:read"],"exp":"2026-09-25T20:00:00Z","on":["` + alice + `"],"nonce":"n","sig":"s","note":"tests"}}`,
			PartGrant, "grant: exec, fs:read", []Field{{"issuer", "AAAAAAAA"}, {"holder", "BBBBBBBB"}, {"on", "AAAAAAAA"}, {"expires", "2026-09-25T20:00:00Z"}}, "tests"},
		{"grant request", `{"k":"data","mime":"application/vnd.awp.grant-request+json","data":{"caps":["exec"],"sub":"` + bob + `","on":["` + alice + `"],"ttl":3600,"reason":"run the suite"}}`,
			PartGrantRequest, "asks for a grant: exec", []Field{{"for", "BBBBBBBB"}, {"on", "AAAAAAAA"}, {"for how long", "1 hour"}}, "run the suite"},
		{"grant denied", `{"k":"data","mime":"application/vnd.awp.grant-denied+json","data":{"reason":"not today"}}`,
			PartGrantDenied, "grant denied", nil, "not today"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parts := decodeParts(t, `{"t":"msg","id":"1","ts":"x","th":"thr_1","parts":[`+tc.part+`]}`)
			p := parts[0]
			if p.Kind != tc.kind || p.Title != tc.title || p.Text != tc.text || !equalFields(p.Fields, tc.fields) {
				t.Errorf("got kind=%s title=%q text=%q fields=%v\nwant kind=%s title=%q text=%q fields=%v",
					p.Kind, p.Title, p.Text, p.Fields, tc.kind, tc.title, tc.text, tc.fields)
			}
			if p.Mime == "" {
				t.Error("mime not kept")
			}
		})
	}
}

func TestDecodeMalformedPart(t *testing.T) {
	parts := decodeParts(t, `{"t":"msg","id":"1","ts":"x","th":"thr_1","parts":[7,{"k":"data","mime":"application/vnd.awp.exec+json","data":"nope"}]}`)
	if parts[0].Kind != PartUnsupported || parts[0].Text != "7" {
		t.Errorf("non-object part = %+v", parts[0])
	}
	// A string cmd decodes, but "nope" is not an object: the request is shown raw.
	if parts[1].Kind != PartRequest || !strings.Contains(parts[1].Title, "malformed") {
		t.Errorf("malformed exec = %+v", parts[1])
	}
}
