package wire

import (
	"encoding/json"
	"testing"
	"time"
)

// A template stamped with an id and ts is byte for byte the line Encode
// writes for the msg with that id and ts.
func TestEncodeMsgTemplateStamp(t *testing.T) {
	var g IDGen
	for _, m := range []*Msg{
		{Subject: "hi \"there\"", Re: "01J9ZX0000000000000000000A", Parts: []json.RawMessage{TextPart("a b\tc"), json.RawMessage(`{ "k" : "data", "data": {"x": [1, 2]} }`)}},
		{Parts: []json.RawMessage{TextPart("")}},
	} {
		m.Th = "thr_stamp"
		tmpl, err := EncodeMsgTemplate(m)
		if err != nil {
			t.Fatal(err)
		}
		id, ts := g.New(), FormatTime(time.Now())
		if err := StampMsg(tmpl, id, ts); err != nil {
			t.Fatal(err)
		}
		full := *m
		full.T, full.ID, full.TS = TypeMsg, id, ts
		full.SetRaw(nil)
		want, err := Encode(&full)
		if err != nil {
			t.Fatal(err)
		}
		if string(tmpl) != string(want) {
			t.Fatalf("stamped template\n%s\nwant\n%s", tmpl, want)
		}
		f, err := Decode(tmpl)
		if err != nil {
			t.Fatal(err)
		}
		if h := f.Header(); h.ID != id || h.TS != ts {
			t.Fatalf("decoded id/ts %q %q", h.ID, h.TS)
		}
	}
	// Anything else is refused, not patched.
	for _, bad := range []struct{ raw, id, ts string }{
		{`{"t":"state","id":"00000000000000000000000000","ts":"0000-00-00T00:00:00.000Z"}`, g.New(), FormatTime(time.Now())},
		{`{"t":"msg","id":"00000000000000000000000000","ts":"0000-00-00T00:00:00.000Z","parts":[]}`, "short", FormatTime(time.Now())},
		{`{"t":"msg"}`, g.New(), FormatTime(time.Now())},
	} {
		raw := []byte(bad.raw)
		if err := StampMsg(raw, bad.id, bad.ts); err == nil || string(raw) != bad.raw {
			t.Fatalf("StampMsg(%s) = %v, line now %s", bad.raw, err, raw)
		}
	}
}
