package profile

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCapAndMimes(t *testing.T) {
	for mime, want := range map[string][2]string{
		MimeExec:   {"exec", MimeExecResult},
		MimeRead:   {"fs:read", MimeReadResult},
		MimeWrite:  {"fs:write", MimeWriteResult},
		"x":        {"", ""},
		MimeResult: {"", ""},
	} {
		if Cap(mime) != want[0] || ResultMime(mime) != want[1] {
			t.Errorf("%s: Cap %q ResultMime %q", mime, Cap(mime), ResultMime(mime))
		}
	}
	pins := map[string]string{
		MimeExec: "application/vnd.awp.exec+json", MimeExecResult: "application/vnd.awp.exec-result+json",
		MimeRead: "application/vnd.awp.fs-read+json", MimeReadResult: "application/vnd.awp.fs-read-result+json",
		MimeWrite: "application/vnd.awp.fs-write+json", MimeWriteResult: "application/vnd.awp.fs-write-result+json",
	}
	for got, want := range pins {
		if got != want {
			t.Errorf("mime %q, want %q", got, want)
		}
	}
}

// MimeResult is not a request mime; it checks Cap refuses result mimes.
const MimeResult = MimeExecResult

// TestWireFields pins the JSON field names of every result form.
func TestWireFields(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{ExecResult{Exit: 1, DurationMS: 2, Stdout: "<o>", Stderr: "e", StdoutTruncated: true},
			`{"exit":1,"duration_ms":2,"stdout":"<o>","stderr":"e","stdout_truncated":true,"stderr_truncated":false}`},
		{ExecResult{Exit: -1, Error: "timeout"},
			`{"exit":-1,"duration_ms":0,"stdout":"","stderr":"","stdout_truncated":false,"stderr_truncated":false,"error":"timeout"}`},
		{ReadResult{Path: "go.mod", Size: 812, Encoding: "utf-8", Content: "m", EOF: true},
			`{"path":"go.mod","size":812,"offset":0,"encoding":"utf-8","content":"m","eof":true}`},
		{ReadResult{Path: "d", Dir: true, Entries: []Entry{{Name: "a", Size: 1, Mode: "0644", MTime: "2026-09-25T17:03:11Z"}}},
			`{"path":"d","dir":true,"entries":[{"name":"a","dir":false,"size":1,"mode":"0644","mtime":"2026-09-25T17:03:11Z"}]}`},
		{ReadResult{Path: "d", Dir: true}, `{"path":"d","dir":true,"entries":[]}`},
		{ReadResult{Path: "x", Error: ErrOutside, Dir: true}, `{"path":"x","error":"path outside workspace"}`},
		{WriteResult{Path: "n", Written: 42}, `{"path":"n","written":42}`},
		{WriteResult{Path: "n", Error: "e"}, `{"path":"n","written":0,"error":"e"}`},
	} {
		b, err := marshal(c.v)
		if err != nil || string(b) != c.want {
			t.Errorf("%T:\n got %s\nwant %s (%v)", c.v, b, c.want, err)
		}
	}
}

func TestBadRequests(t *testing.T) {
	e := newEnv(t)
	bad := map[string][]string{
		MimeExec: {``, `null`, `[]`, `"ls"`, `{}`, `{"cmd":null}`, `{"cmd":""}`, `{"cmd":[]}`, `{"cmd":[""]}`,
			`{"cmd":[1]}`, `{"cmd":{"a":1}}`, `{"cmd":["a\u0000b"]}`, `{"cmd":"ls","timeout":-1}`,
			`{"cmd":"ls","timeout":1.5}`, `{"cmd":"ls","timeout":"9"}`, `{"cmd":"ls","timeout":86401}`,
			`{"cmd":"ls","env":{"A=B":"x"}}`, `{"cmd":"ls","env":{"":"x"}}`, `{"cmd":"ls","env":{"A":"x\u0000"}}`,
			`{"cmd":"ls","env":["A=1"]}`, `{"cmd":"ls","cwd":1}`, `{"cmd":"ls","stdin":1}`,
			`{"cmd":["ls"],"CMD":["rm","-rf","x"]}`, `{"cmd":["ls"],"cmd":["rm"]}`, `{"cmd":"ls","env":{"A":"1","A":"2"}}`,
			`{"cmd":"ls"}{}`, `{"cmd":"ls"`, `{"cmd":"ls","x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`},
		MimeRead: {`{}`, `{"path":""}`, `{"path":1}`, `{"path":"a","offset":-1}`, `{"path":"a","length":-1}`,
			`{"path":"a","length":"1"}`, `{"path":"a","Path":"b"}`, `[]`},
		MimeWrite: {`{}`, `{"path":"","content":"x"}`, `{"path":"a","content":1}`, `{"path":"a","content":"x","encoding":"utf-16"}`,
			`{"path":"a","content":"not base64!","encoding":"base64"}`, `{"path":"a","content":"QQ","encoding":"base64"}`,
			`{"path":"a","append":"yes"}`, `{"path":"a","mkdir":1}`},
	}
	for mime, list := range bad {
		for _, data := range list {
			if _, err := e.r.Handle(context.Background(), peerA, mime, json.RawMessage(data), true); !errors.Is(err, ErrBadRequest) {
				t.Errorf("%s %s: %v, want ErrBadRequest", Cap(mime), data, err)
			}
		}
	}
	if _, err := e.r.Handle(context.Background(), peerA, "text/plain", json.RawMessage(`{}`), true); !errors.Is(err, ErrUnknownMime) {
		t.Errorf("unknown mime: %v", err)
	}
	for _, root := range []string{"", e.ws + "/inside.txt", e.ws + "/nope"} {
		r := &Runner{Root: root}
		if _, err := r.Handle(context.Background(), peerA, MimeRead, json.RawMessage(`{"path":"x"}`), true); !errors.Is(err, ErrNoRoot) {
			t.Errorf("root %q: %v, want ErrNoRoot", root, err)
		}
	}
	if n := e.r.runningFor(peerA); n != 0 {
		t.Errorf("slots leaked: %d", n)
	}
}

func TestInlineText(t *testing.T) {
	a := func(n int) string { return strings.Repeat("a", n) }
	tests := []struct {
		name  string
		in    string
		want  string
		trunc bool
	}{
		{"empty", "", "", false},
		{"short", "héllo", "héllo", false},
		{"exact", a(InlineMax), a(InlineMax), false},
		{"one over", a(InlineMax + 1), a(InlineMax), true},
		{"char at boundary", a(InlineMax-1) + "€", a(InlineMax - 1), true},
		{"char fits", a(InlineMax-3) + "€", a(InlineMax-3) + "€", false},
		{"invalid byte", "a\xffb", "a\uFFFDb", false},
		{"truncated char at end of stream", "ab\xe2\x82", "ab\uFFFD\uFFFD", false},
		{"replacement grows past limit", a(InlineMax-2) + "\xff", a(InlineMax - 2), true},
		{"all invalid", strings.Repeat("\xff", InlineMax), strings.Repeat("\uFFFD", InlineMax/3), true},
		{"surrogate bytes", "\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD", false},
	}
	for _, tc := range tests {
		got, trunc, err := inlineText(strings.NewReader(tc.in), int64(len(tc.in)))
		if err != nil || got != tc.want || trunc != tc.trunc || !utf8.ValidString(got) || len(got) > InlineMax {
			t.Errorf("%s: len %d trunc %v (want len %d trunc %v) %v", tc.name, len(got), trunc, len(tc.want), tc.trunc, err)
		}
	}
}

func TestLoggerInjected(t *testing.T) {
	e := newEnv(t)
	var buf strings.Builder
	e.r.Logger = slog.New(slog.NewTextHandler(&buf, nil))
	e.must(MimeRead, map[string]any{"path": "toout/secret.txt"}, false)
	if s := buf.String(); !strings.Contains(s, "fs:read") || !strings.Contains(s, ErrOutside) || !strings.Contains(s, peerA.Short()) {
		t.Errorf("log: %q", s)
	}
}
