package wire

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

// DecodeLoose reads what a display needs from a line Decode would refuse
// for its fields (no id, a bad time), and still refuses what is no line.
func TestDecodeLoose(t *testing.T) {
	raw := []byte(`{"t":"msg","subject":"s","parts":[{"k":"text","text":"hi"},7]}`)
	if _, err := Decode(raw); err == nil {
		t.Fatal("Decode accepted a msg without id, ts and th")
	}
	f, err := DecodeLoose(raw)
	m, ok := f.(*Msg)
	if err != nil || !ok || m.Subject != "s" || !bytes.Equal(m.Raw(), raw) {
		t.Fatalf("DecodeLoose = %#v, %v", f, err)
	}
	parts := m.DecodeParts()
	if len(parts) != 2 || parts[0].K != PartText || parts[0].Text != "hi" || parts[1].K != PartMalformed {
		t.Fatalf("parts = %+v", parts)
	}
	st, err := DecodeLoose([]byte(`{"t":"state","state":"working","th":"x"}`))
	if s, ok := st.(*State); err != nil || !ok || s.State != "working" {
		t.Fatalf("state = %#v, %v", st, err)
	}
	for _, bad := range []string{`[1]`, `{"x":1}`, `{"t":1}`, `{"t":"msg","parts":"x"}`, `{"t":"state","state":5}`, "{\"t\":\"msg\",\"subject\":\"\xff\"}"} {
		var de *DecodeError
		if f, err := DecodeLoose([]byte(bad)); !errors.As(err, &de) {
			t.Errorf("DecodeLoose(%q) = %#v, %v; want a *DecodeError", bad, f, err)
		}
	}
}

// FuzzDecodeLoose: DecodeLoose never panics, and accepts every line Decode
// accepts, as the same type with the same fields.
func FuzzDecodeLoose(f *testing.F) {
	for _, l := range goldenLines(f) {
		f.Add(l)
	}
	f.Add([]byte(`{"t":"msg","parts":[1,{"k":"text"}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		loose, lerr := DecodeLoose(bytes.Clone(raw))
		strict, serr := Decode(bytes.Clone(raw))
		if serr != nil {
			return
		}
		if lerr != nil {
			t.Fatalf("Decode accepts %q, DecodeLoose refuses it: %v", raw, lerr)
		}
		lh, sh := loose.Header(), strict.Header()
		if reflect.TypeOf(loose) != reflect.TypeOf(strict) || lh.T != sh.T || lh.ID != sh.ID || lh.TS != sh.TS || lh.Th != sh.Th ||
			!bytes.Equal(loose.Raw(), strict.Raw()) {
			t.Fatalf("%q: loose %#v, strict %#v", raw, loose, strict)
		}
	})
}
