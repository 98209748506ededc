package localapi

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

// stdThreads is what encoding/json writes for ths (the local API's
// writeJSON settings).
func stdThreads(t testing.TB, ths []peer.ThreadInfo) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(ths); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var trickyThreads = []peer.ThreadInfo{
	{},
	{Th: "thr_a", Peer: key.MustParsePublic("ed25519:ebVWLo_mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ"), PeerName: "bob", Subject: `say "hi" \ <b>&`, Mine: "working", Theirs: "done",
		Unread: 3, Updated: "2026-12-01T10:00:00.000Z", Lines: 1 << 40, LastText: "line\nbreak\ttab\x01\x1f\u2028\u2029 é 日本", LastFrom: key.MustParsePublic("ed25519:11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"),
		MirroredFrom: key.MustParsePublic("ed25519:ebVWLo_mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ"), Mirror: true, Private: true, Withdrawn: true},
	{Th: "thr_b", Subject: "bad utf-8: \xff\xfe end", Unread: -5, Lines: -1},
	{LastText: "\u007f\u0080\U0001F600"},
}

// TestThreadsJSONSame: appendThreads writes what encoding/json writes, and
// parseThreads reads it back to the same values encoding/json reads.
func TestThreadsJSONSame(t *testing.T) {
	for _, ths := range [][]peer.ThreadInfo{nil, {}, trickyThreads} {
		want := stdThreads(t, nonNil(ths))
		got := appendThreads(nil, ths)
		if !bytes.Equal(got, want) {
			t.Fatalf("appendThreads:\n got %s\nwant %s", got, want)
		}
		back, ok := parseThreads(got)
		if !ok {
			t.Fatalf("parseThreads declined its own output %s", got)
		}
		var std []peer.ThreadInfo
		if err := json.Unmarshal(got, &std); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, std) {
			t.Fatalf("parseThreads:\n got %+v\nwant %+v", back, std)
		}
	}
	// Other shapes are declined (the caller falls back to encoding/json).
	for _, s := range []string{`null`, `[null]`, `[{"TH":"x"}]`, `[{"unread":1.5}]`, `[{"unread":01}]`, `[{"th":null}]`,
		`[{"other":1}]`, `[{"th":"x"}] x`, `[{"th":"x",}]`, "[{\"th\":\"a\x01\"}]", `[{"mirror":truex}]`, `{}`, ``} {
		if _, ok := parseThreads([]byte(s)); ok {
			t.Errorf("parseThreads accepted %q", s)
		}
	}
	// Escaped strings and keys, whitespace and repeated keys, as encoding/json reads them.
	in := " [ {\"t\\u0068\" : \"a\\\"b\\u00e9\" , \"unread\":-0,\"th\":\"c\", \"lines\": 7 } ]\n"
	back, ok := parseThreads([]byte(in))
	if !ok || len(back) != 1 || back[0].Th != "c" || back[0].Lines != 7 {
		t.Fatalf("parseThreads(%q) = %+v, %v", in, back, ok)
	}
}

// TestThreadsJSONFields fails when ThreadInfo changes: appendThreads and
// parseThreads list its fields by hand and must learn a new one.
func TestThreadsJSONFields(t *testing.T) {
	var names []string
	rt := reflect.TypeFor[peer.ThreadInfo]()
	for i := range rt.NumField() {
		names = append(names, rt.Field(i).Name+" "+rt.Field(i).Type.String()+" "+string(rt.Field(i).Tag))
	}
	want := []string{
		`Th string json:"th"`, `Peer key.PublicKey json:"peer"`, `PeerName string json:"peer_name,omitempty"`,
		`Subject string json:"subject"`, `Mine string json:"mine"`, `Theirs string json:"theirs"`,
		`Unread int json:"unread"`, `Updated string json:"updated"`, `Lines int json:"lines"`,
		`LastText string json:"last_text,omitempty"`, `LastFrom key.PublicKey json:"last_from,omitzero"`, `MirroredFrom key.PublicKey json:"mirrored_from,omitzero"`,
		`Mirror bool json:"mirror"`, `Private bool json:"private"`, `Withdrawn bool json:"withdrawn,omitempty"`,
	}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("peer.ThreadInfo changed: teach appendThread and jsonParser.thread (threadsjson.go) its fields\n got %q\nwant %q", names, want)
	}
}

// FuzzThreadsJSON: whatever parseThreads accepts, encoding/json reads to
// the same values; and a list built from the input's strings is written
// as encoding/json writes it.
func FuzzThreadsJSON(f *testing.F) {
	f.Add(appendThreads(nil, trickyThreads))
	f.Add([]byte(`[{"th":"a","unread":1,"mirror":true}]`))
	f.Add([]byte(`[{"TH":"a"}]`))
	f.Add([]byte(`[{"peer":"","last_from":"ed25519:nope"}]`)) // keys: "" is none, a bad one fails both ways
	f.Add([]byte("[{\"subject\":\"\\ud800\\udc00 \xff\"}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, ok := parseThreads(data); ok {
			var want []peer.ThreadInfo
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatalf("parseThreads accepted %q, encoding/json: %v", data, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("parseThreads(%q)\n got %+v\nwant %+v", data, got, want)
			}
		}
		s := string(data)
		ths := []peer.ThreadInfo{{Th: s, Subject: s, LastText: s, PeerName: s, Unread: len(s), Mirror: len(s)%2 == 0}}
		if got, want := appendThreads(nil, ths), stdThreads(t, ths); !bytes.Equal(got, want) {
			t.Fatalf("appendThreads(%q):\n got %s\nwant %s", s, got, want)
		}
	})
}
