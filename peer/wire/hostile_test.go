package wire

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/awp-tray/awp-tray/peer/key"
)

const (
	tID  = "01J9ZX00000000000000000001"
	tTS  = "2026-09-25T17:03:11Z"
	tKey = "ed25519:ebVWLo_mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ"
)

// padLine returns an unknown-type line of exactly n bytes (n >= 30).
func padLine(n int) []byte {
	const head, tail = `{"t":"pad","x":"`, `"}`
	b := make([]byte, 0, n)
	b = append(b, head...)
	b = append(b, bytes.Repeat([]byte("a"), n-len(head)-len(tail))...)
	return append(b, tail...)
}

// TestDecodeHostile feeds Decode lines that are not valid frames, or valid
// frames that are malformed lines, and checks the DecodeError code.
func TestDecodeHostile(t *testing.T) {
	msg := func(extra string) string {
		return `{"t":"msg","id":"` + tID + `","ts":"` + tTS + `","th":"thr_a"` + extra + `}`
	}
	for _, c := range []struct {
		name, line string
		code       string // "" = decodes
		typ        string // concrete type when it decodes
	}{
		{"empty", "", CodeBadFrame, ""},
		{"blank", " \t\r", CodeBadFrame, ""},
		{"not json", "hello there", CodeBadFrame, ""},
		{"truncated object", `{"t":"msg"`, CodeBadFrame, ""},
		{"array", `[{"t":"msg"}]`, CodeBadFrame, ""},
		{"string", `"msg"`, CodeBadFrame, ""},
		{"number", `5`, CodeBadFrame, ""},
		{"null", `null`, CodeBadFrame, ""},
		{"true", `true`, CodeBadFrame, ""},
		{"no t", `{}`, CodeBadFrame, ""},
		{"t number", `{"t":5}`, CodeBadFrame, ""},
		{"t null", `{"t":null}`, CodeBadFrame, ""},
		{"t object", `{"t":{"x":"msg"}}`, CodeBadFrame, ""},
		{"t array", `{"t":["msg"]}`, CodeBadFrame, ""},
		{"trailing garbage", `{"t":"x"} {"t":"y"}`, CodeBadFrame, ""},
		{"trailing comma", `{"t":"x",}`, CodeBadFrame, ""},
		{"single quotes", `{'t':'x'}`, CodeBadFrame, ""},
		{"NUL first", "\x00{\"t\":\"x\"}", CodeBadFrame, ""},
		{"invalid UTF-8 in type", "{\"t\":\"x\xff\"}", CodeBadFrame, ""},
		{"invalid UTF-8 in text", msg(`,"parts":[{"k":"text","text":"` + "\xfe" + `"}]`), CodeBadFrame, ""},
		{"surrogate bytes", "{\"t\":\"x\",\"s\":\"\xed\xa0\x80\"}", CodeBadFrame, ""},
		{"overlong NUL", "{\"t\":\"x\",\"s\":\"\xc0\x80\"}", CodeBadFrame, ""},
		{"chunk prefix, bad json", `{"t":"chunk",`, CodeBadFrame, ""},
		{"deep nesting", `{"t":"x","a":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`, CodeBadFrame, ""},

		{"unknown type", `{"t":"zzz"}`, "", "*wire.Unknown"},
		{"empty type", `{"t":""}`, "", "*wire.Unknown"},
		{"unknown with junk id", `{"t":"zzz","id":[1]}`, "", "*wire.Unknown"},
		{"leading white space", " \t{\"t\":\"zzz\"}", "", "*wire.Unknown"},
		{"CR at end", "{\"t\":\"zzz\"}\r", "", "*wire.Unknown"},
		{"escaped t key", `{"\u0074":"zzz"}`, "", "*wire.Unknown"},
		{"duplicate t, one a number", `{"t":5,"t":"zzz"}`, CodeBadFrame, ""}, // encoding/json reports the first type error

		{"hello bad key type", `{"t":"hello","id":"` + tID + `","ts":"` + tTS + `","key":5}`, CodeBadHello, ""},
		{"hello caps string", `{"t":"hello","caps":"chat"}`, CodeBadHello, ""},
		{"hello minimal", `{"t":"hello"}`, "", "*wire.Hello"}, // checked by CheckHello
		{"msg ok", msg(`,"parts":[{"k":"text","text":"hi"}]`), "", "*wire.Msg"},
		{"msg CRLF", msg(`,"parts":[{"k":"text","text":"hi"}]`) + "\r", "", "*wire.Msg"},
		{"msg no parts", msg(``), CodeBadRequest, ""},
		{"msg empty parts", msg(`,"parts":[]`), CodeBadRequest, ""},
		{"msg parts null", msg(`,"parts":null`), CodeBadRequest, ""},
		{"msg parts object", msg(`,"parts":{}`), CodeBadRequest, ""},
		{"msg part not object", msg(`,"parts":["text"]`), CodeBadRequest, ""},
		{"msg part null", msg(`,"parts":[null]`), CodeBadRequest, ""},
		{"msg part without k", msg(`,"parts":[{"text":"hi"}]`), CodeBadRequest, ""},
		{"msg part k number", msg(`,"parts":[{"k":1}]`), CodeBadRequest, ""},
		{"msg unknown part", msg(`,"parts":[{"k":"zzz","q":[1]}]`), "", "*wire.Msg"},
		{"msg bad re", msg(`,"re":"nope","parts":[{"k":"text"}]`), CodeBadRequest, ""},
		{"msg blob without ref", msg(`,"parts":[{"k":"blob","size":1}]`), CodeBadRequest, ""},
		{"msg blob negative size", msg(`,"parts":[{"k":"blob","ref":"r","size":-1}]`), CodeBadRequest, ""},
		{"msg no id", `{"t":"msg","ts":"` + tTS + `","th":"thr_a","parts":[{"k":"text"}]}`, CodeBadRequest, ""},
		{"msg id number", `{"t":"msg","id":5,"ts":"` + tTS + `","th":"thr_a","parts":[{"k":"text"}]}`, CodeBadRequest, ""},
		{"msg bad ts", `{"t":"msg","id":"` + tID + `","ts":"2026-09-25T17:03:11+00:00","th":"thr_a","parts":[{"k":"text"}]}`, CodeBadRequest, ""},
		{"msg bad th", `{"t":"msg","id":"` + tID + `","ts":"` + tTS + `","th":"thr_A","parts":[{"k":"text"}]}`, CodeBadRequest, ""},
		{"msg no th", `{"t":"msg","id":"` + tID + `","ts":"` + tTS + `","parts":[{"k":"text"}]}`, CodeBadRequest, ""},
		{"state empty", `{"t":"state","id":"` + tID + `","ts":"` + tTS + `","th":"thr_a"}`, CodeBadRequest, ""},
		{"state unknown kept", `{"t":"state","id":"` + tID + `","ts":"` + tTS + `","th":"thr_a","state":"pondering"}`, "", "*wire.State"},
		{"ack no of", `{"t":"ack","th":"thr_a"}`, CodeBadRequest, ""},
		{"ack no th", `{"t":"ack","of":"` + tID + `"}`, CodeBadRequest, ""},
		{"ack ok", `{"t":"ack","th":"thr_a","of":"` + tID + `"}`, "", "*wire.Ack"},
		{"resume bad entry", `{"t":"resume","seen":{"thr_a":"x"}}`, CodeBadRequest, ""},
		{"resume bad thread", `{"t":"resume","seen":{"a":"` + tID + `"}}`, CodeBadRequest, ""},
		{"resume seen number", `{"t":"resume","seen":{"thr_a":5}}`, CodeBadRequest, ""},
		{"err ok", `{"t":"err","code":"zzz"}`, "", "*wire.Err"},
		{"err retry float", `{"t":"err","code":"rate_limited","retry_ms":1.5}`, CodeBadRequest, ""},
		{"chunk negative off", `{"t":"chunk","id":"` + tID + `","ts":"` + tTS + `","th":"thr_a","ref":"r","off":-1,"data":"","end":true}`, CodeBadRequest, ""},
		{"chunk bad base64", `{"t":"chunk","id":"` + tID + `","ts":"` + tTS + `","th":"thr_a","ref":"r","off":0,"data":"!!!!","end":true}`, CodeBadRequest, ""},
		{"chunk no ref", `{"t":"chunk","id":"` + tID + `","ts":"` + tTS + `","th":"thr_a","off":0,"data":"","end":true}`, CodeBadRequest, ""},
		{"chunk spaced", `{ "t": "chunk", "id": "` + tID + `", "ts": "` + tTS + `", "th": "thr_a", "ref": "r", "off": 0, "data": "AA==", "end": true }`, "", "*wire.Chunk"},
		{"introduce bad key", `{"t":"introduce","id":"` + tID + `","ts":"` + tTS + `","th":"thr_a","peer":{"key":"ed25519:x"}}`, CodeBadRequest, ""},
		{"presence no doc", `{"t":"presence","hops":1}`, CodeBadRequest, ""},
		{"presence doc array", `{"t":"presence","hops":1,"doc":[]}`, CodeBadRequest, ""},
		{"presence hops 0", `{"t":"presence","hops":0,"doc":{}}`, CodeBadRequest, ""},
		{"mirror bad dir", `{"t":"mirror","id":"` + tID + `","ts":"` + tTS + `","th":"thr_a","dir":"up","line":{}}`, CodeBadRequest, ""},
		{"mirror no line", `{"t":"mirror","id":"` + tID + `","ts":"` + tTS + `","th":"thr_a","dir":"in"}`, CodeBadRequest, ""},
		{"mirror line string", `{"t":"mirror","id":"` + tID + `","ts":"` + tTS + `","th":"thr_a","dir":"in","line":"{}"}`, CodeBadRequest, ""},
		{"private no th", `{"t":"private","id":"` + tID + `","ts":"` + tTS + `"}`, CodeBadRequest, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := []byte(c.line)
			f, err := Decode(in)
			if c.code == "" {
				if err != nil {
					t.Fatalf("Decode(%.80q) = %v, want ok", c.line, err)
				}
				if got := typeName(f); got != c.typ {
					t.Errorf("type %s, want %s", got, c.typ)
				}
				if !bytes.Equal(f.Raw(), in) {
					t.Errorf("Raw differs from input")
				}
				return
			}
			if err == nil {
				t.Fatalf("Decode(%.80q) = %T, want %s", c.line, f, c.code)
			}
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %T %v is not a *DecodeError", err, err)
			}
			if de.Code != c.code {
				t.Errorf("code %s (%v), want %s", de.Code, err, c.code)
			}
			if c.code == CodeBadFrame {
				if !errors.Is(err, ErrBadFrame) || errors.Is(err, ErrBadRequest) {
					t.Errorf("bad_frame error does not wrap ErrBadFrame only")
				}
			} else if !errors.Is(err, ErrBadRequest) || errors.Is(err, ErrBadFrame) {
				t.Errorf("%s error does not wrap ErrBadRequest only", c.code)
			}
		})
	}
}

func typeName(f Frame) string {
	switch f.(type) {
	case *Hello:
		return "*wire.Hello"
	case *Msg:
		return "*wire.Msg"
	case *State:
		return "*wire.State"
	case *Ack:
		return "*wire.Ack"
	case *Err:
		return "*wire.Err"
	case *Chunk:
		return "*wire.Chunk"
	case *Unknown:
		return "*wire.Unknown"
	}
	return "other"
}

// TestDecodeErrorCarriesEnvelope checks the fields a session needs to answer
// a malformed line (err.re and err.th).
func TestDecodeErrorCarriesEnvelope(t *testing.T) {
	_, err := Decode([]byte(`{"t":"msg","id":"` + tID + `","ts":"` + tTS + `","th":"thr_a","parts":[]}`))
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("%v", err)
	}
	if de.Code != CodeBadRequest || de.T != TypeMsg || de.ID != tID || de.Th != "thr_a" || de.Msg == "" {
		t.Errorf("DecodeError = %+v", de)
	}
	if !strings.Contains(de.Error(), "msg line") {
		t.Errorf("Error() = %q", de.Error())
	}
	_, err = Decode([]byte(`[]`))
	if !errors.As(err, &de) || de.T != "" || de.ID != "" || !strings.HasPrefix(de.Error(), "wire: bad_frame: ") {
		t.Errorf("bad frame error = %v", err)
	}
}

// TestFieldNamesCaseSensitive documents a known gap: encoding/json matches
// field names case-insensitively, so {"T":"msg",…} decodes as a msg although
// it has no field "t" (docs/protocol/framing.md: bad_frame), and {"t":"ack","TH":…} fills Th.
func TestFieldNamesCaseSensitive(t *testing.T) {
	for _, l := range []string{`{"T":"zzz"}`, `{"T":"msg","id":"01J9ZX0000000000000000000A"}`} {
		_, err := Decode([]byte(l))
		var de *DecodeError
		if !errors.As(err, &de) || de.Code != CodeBadFrame {
			t.Errorf("Decode(%s) = %v, want bad_frame (the key is \"t\", exactly)", l, err)
		}
	}
}

func TestCheckHello(t *testing.T) {
	const nonce16 = "oaGhoaGhoaGhoaGhoaGhoQ" // 16 bytes
	hello := func(v, k, nonce string) string {
		s := `{"t":"hello","id":"` + tID + `","ts":"` + tTS + `"`
		if v != "" {
			s += `,"v":` + v
		}
		return s + `,"key":"` + k + `","nonce":"` + nonce + `","caps":["chat"]}`
	}
	for _, c := range []struct {
		name, line string
		want       error
	}{
		{"v 0", hello("0", tKey, nonce16), nil},
		{"v -0", hello("-0", tKey, nonce16), nil},
		{"v 0 spaced", strings.Replace(hello("0", tKey, nonce16), `"v":0`, `"v" : 0 `, 1), nil},
		{"v missing", hello("", tKey, nonce16), ErrBadHello},
		{"v null", hello("null", tKey, nonce16), ErrBadHello},
		{`v "0"`, hello(`"0"`, tKey, nonce16), ErrBadHello},
		{`v ""`, hello(`""`, tKey, nonce16), ErrBadHello},
		{"v 0.5", hello("0.5", tKey, nonce16), ErrBadHello},
		{"v 0.0", hello("0.0", tKey, nonce16), ErrBadHello},
		{"v 0e0", hello("0e0", tKey, nonce16), ErrBadHello},
		{"v 1e0", hello("1e0", tKey, nonce16), ErrBadHello},
		{"v true", hello("true", tKey, nonce16), ErrBadHello},
		{"v array", hello("[0]", tKey, nonce16), ErrBadHello},
		{"v object", hello(`{"major":0}`, tKey, nonce16), ErrBadHello},
		{"v 1", hello("1", tKey, nonce16), ErrUnsupportedVersion},
		{"v -1", hello("-1", tKey, nonce16), ErrUnsupportedVersion},
		{"v 2", hello("2", tKey, nonce16), ErrUnsupportedVersion},
		{"v huge", hello("123456789012345678901234567890", tKey, nonce16), ErrUnsupportedVersion},
		{"nonce 15 bytes", hello("0", tKey, "oaGhoaGhoaGhoaGhoaGh"), ErrBadHello},
		{"nonce empty", hello("0", tKey, ""), ErrBadHello},
		{"nonce padded", hello("0", tKey, nonce16+"=="), ErrBadHello},
		{"nonce std base64", hello("0", tKey, "+/+/+/+/+/+/+/+/+/+/+w"), ErrBadHello},
		{"nonce 32 bytes", hello("0", tKey, NewNonce(32)), nil},
		{"key missing", hello("0", "", nonce16), ErrBadHello},
		{"key no prefix", hello("0", strings.TrimPrefix(tKey, "ed25519:"), nonce16), ErrBadHello},
		{"key other algorithm", hello("0", "x25519:"+strings.TrimPrefix(tKey, "ed25519:"), nonce16), ErrBadHello},
		{"key short", hello("0", tKey[:len(tKey)-1], nonce16), ErrBadHello},
		{"key long", hello("0", tKey+"A", nonce16), ErrBadHello},
		{"key non-canonical", hello("0", tKey[:len(tKey)-1]+"R", nonce16), ErrBadHello},
		{"key std base64", hello("0", "ed25519:2inpWwLgD/oVZFd1+x0roiKhlDOV7qBrlOLAV7e+adA", nonce16), ErrBadHello},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := Decode([]byte(c.line))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			h, ok := f.(*Hello)
			if !ok {
				t.Fatalf("%T", f)
			}
			k, err := h.CheckHello()
			if c.want == nil {
				if err != nil {
					t.Fatalf("CheckHello = %v, want ok", err)
				}
				if k != key.MustParsePublic(tKey) {
					t.Errorf("key %v", k)
				}
				return
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("CheckHello = %v, want %v", err, c.want)
			}
			other := ErrBadHello
			if c.want == ErrBadHello {
				other = ErrUnsupportedVersion
			}
			if errors.Is(err, other) {
				t.Errorf("CheckHello = %v matches both errors", err)
			}
			if !k.IsZero() {
				t.Errorf("key %v returned with an error", k)
			}
		})
	}
}

// readAll reads lines until an error.
func readAll(r *Reader) ([]string, error) {
	var out []string
	for {
		l, err := r.ReadLine()
		if err != nil {
			return out, err
		}
		out = append(out, string(l))
	}
}

func TestReadLine(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     []string
		err      error // final error
	}{
		{"empty", "", nil, io.EOF},
		{"one", "{\"t\":\"a\"}\n", []string{`{"t":"a"}`}, io.EOF},
		{"CRLF keeps CR", "{\"t\":\"a\"}\r\n", []string{"{\"t\":\"a\"}\r"}, io.EOF},
		{"blank lines skipped", "\n\n \t\r\n{\"t\":\"a\"}\n\r\n\n{\"t\":\"b\"}\n", []string{`{"t":"a"}`, `{"t":"b"}`}, io.EOF},
		{"unterminated last line dropped", "{\"t\":\"a\"}\n{\"t\":\"b\"}", []string{`{"t":"a"}`}, io.EOF},
		{"only unterminated", "{\"t\":\"a\"}", nil, io.EOF},
		{"not JSON is still a line", "hello\n[1]\n", []string{"hello", "[1]"}, io.EOF},
		{"NUL line is not blank", "\x00\n{\"t\":\"a\"}\n", []string{"\x00", `{"t":"a"}`}, io.EOF},
		{"invalid UTF-8", "{\"t\":\"a\"}\n{\"t\":\"\xff\"}\n{\"t\":\"c\"}\n", []string{`{"t":"a"}`}, ErrBadFrame},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, one := range []bool{false, true} {
				var src io.Reader = strings.NewReader(c.in)
				if one {
					src = iotest.OneByteReader(src)
				}
				got, err := readAll(NewReader(src))
				if !errors.Is(err, c.err) {
					t.Errorf("one=%v: err %v, want %v", one, err, c.err)
				}
				if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
					t.Errorf("one=%v: lines %q, want %q", one, got, c.want)
				}
			}
		})
	}
}

func TestReadLineInvalidUTF8IsDecodeError(t *testing.T) {
	_, err := NewReader(strings.NewReader("\xc3\x28\n")).ReadLine()
	var de *DecodeError
	if !errors.As(err, &de) || de.Code != CodeBadFrame {
		t.Fatalf("err = %v, want a bad_frame DecodeError", err)
	}
}

func TestReadLineLimit(t *testing.T) {
	exact := padLine(MaxLine)
	over := padLine(MaxLine + 1)
	if _, err := Decode(exact); err != nil {
		t.Fatalf("Decode of a MaxLine line: %v", err)
	}
	for _, c := range []struct {
		name string
		in   []byte
		want []int // lengths of the lines read before the error
		err  error
	}{
		{"exactly MaxLine", cat(exact, "\n", `{"t":"b"}`, "\n"), []int{MaxLine, 9}, io.EOF},
		{"MaxLine+1", cat(over, "\n"), nil, ErrTooLong},
		{"MaxLine then CR", cat(exact, "\r\n"), nil, ErrTooLong}, // the \r counts
		{"MaxLine-1 then CR", cat(padLine(MaxLine-1), "\r\n"), []int{MaxLine}, io.EOF},
		{"after a short line", cat(`{"t":"a"}`, "\n", over, "\n"), []int{9}, ErrTooLong},
		{"unterminated, exactly MaxLine", exact, nil, io.EOF},
		{"unterminated, over", over, nil, ErrTooLong},
		{"blank line over MaxLine", cat(string(bytes.Repeat([]byte(" "), MaxLine+1)), "\n"), nil, ErrTooLong},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, one := range []bool{false, true} {
				var got []int
				err := readLines(readerOf(c.in, one), func(l []byte) { got = append(got, len(l)) })
				if !errors.Is(err, c.err) {
					t.Errorf("half=%v: err %v, want %v", one, err, c.err)
				}
				if len(got) != len(c.want) {
					t.Fatalf("half=%v: lines %v, want %v", one, got, c.want)
				}
				for i := range got {
					if got[i] != c.want[i] {
						t.Errorf("half=%v: lines %v, want %v", one, got, c.want)
					}
				}
			}
		})
	}
}

// readerOf reads in, through iotest.HalfReader when half is set.
func readerOf(in []byte, half bool) *Reader {
	var src io.Reader = bytes.NewReader(in)
	if half {
		src = iotest.HalfReader(src)
	}
	return NewReader(src)
}

// readLines calls each with every line r reads and returns the error that
// ended the reading (io.EOF at a clean end).
func readLines(r *Reader, each func(l []byte)) error {
	for {
		l, err := r.ReadLine()
		if err != nil {
			return err
		}
		each(l)
	}
}

func cat(parts ...any) []byte {
	var b []byte
	for _, p := range parts {
		switch p := p.(type) {
		case string:
			b = append(b, p...)
		case []byte:
			b = append(b, p...)
		}
	}
	return b
}

// endless delivers 'a' forever and counts what was read.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	e.n += int64(len(p))
	return len(p), nil
}

// TestReadLineStopsEarly checks that a line over the limit is refused as soon
// as the limit is passed, without reading the whole (here endless) stream.
func TestReadLineStopsEarly(t *testing.T) {
	for _, prefix := range []string{"", "{\"t\":\"a\"}\n"} {
		src := &endless{}
		r := NewReader(io.MultiReader(strings.NewReader(prefix), src))
		var err error
		for i := 0; i < 3; i++ {
			if _, err = r.ReadLine(); err != nil {
				break
			}
		}
		if err != ErrTooLong {
			t.Fatalf("err %v, want ErrTooLong", err)
		}
		if max := int64(MaxLine + 128<<10); src.n > max {
			t.Errorf("read %d bytes of an endless line, want at most %d", src.n, max)
		}
		t.Logf("prefix %q: read %d bytes (MaxLine+%d) before ErrTooLong", prefix, src.n, src.n-MaxLine)
	}
}

// TestReaderGrow: a long line takes the reader to the buffer SetGrow's
// function supplies, once, in one step; short lines never do; TakeBuffer
// hands that buffer back (and only that one). A function that returns too
// small a buffer is ignored.
func TestReaderGrow(t *testing.T) {
	long := padLine(700 << 10)
	short := `{"t":"a"}`
	for _, c := range []struct {
		name      string
		in        []byte
		size      int // of the buffers get returns
		wantGets  int
		wantTaken bool
	}{
		{"short lines only", cat(short, "\n", padLine(20<<10), "\n", short, "\n"), ReadBufMax, 0, false},
		{"one long line among short", cat(short, "\n", long, "\n", short, "\n", long, "\n"), ReadBufMax, 1, true},
		{"grown by doubling first", cat(padLine(20<<10), "\n", padLine(100<<10), "\n", long, "\n"), ReadBufMax, 1, true},
		{"too small a buffer", cat(long, "\n", long, "\n"), 1 << 20, 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, half := range []bool{false, true} {
				r := readerOf(c.in, half)
				var given []*byte
				r.SetGrow(func() []byte {
					b := make([]byte, c.size)
					given = append(given, &b[0])
					return b
				})
				var got []byte
				if err := readLines(r, func(l []byte) { got = append(append(got, l...), '\n') }); err != io.EOF {
					t.Fatalf("half=%v: %v", half, err)
				}
				if !bytes.Equal(got, c.in) {
					t.Errorf("half=%v: lines read differ from the input", half)
				}
				if len(given) != c.wantGets {
					t.Errorf("half=%v: grow called %d times, want %d", half, len(given), c.wantGets)
				}
				b := r.TakeBuffer()
				if (b != nil) != c.wantTaken {
					t.Fatalf("half=%v: TakeBuffer = %d bytes, want one: %v", half, len(b), c.wantTaken)
				}
				if b != nil && &b[0] != given[0] {
					t.Errorf("half=%v: TakeBuffer returned another buffer than grow gave", half)
				}
				if r.TakeBuffer() != nil {
					t.Errorf("half=%v: a second TakeBuffer returned a buffer", half)
				}
			}
		})
	}
}

// TestDecodeTempInvalidUTF8: the session reader skips the reader's UTF-8
// check (ReadLineUnchecked) because DecodeTemp refuses invalid UTF-8
// itself, on the chunk path too: a byte that breaks UTF-8 anywhere in a
// chunk line (a string, the data, a key, around the object) is bad_frame,
// "invalid UTF-8".
func TestDecodeTempInvalidUTF8(t *testing.T) {
	good, err := Encode(NewChunk(tID, tTS, "thr_abcdefgh", "blob_x", 0, bytes.Repeat([]byte("abc"), 1000), false))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeTemp(good, nil); err != nil {
		t.Fatalf("the good line: %v", err)
	}
	s := string(good)
	for _, at := range []string{`"blob_x`, `"thr_`, `"data":"`, `"data":"YWJj`, `"off`, `,"end"`, `{`} {
		i := strings.Index(s, at)
		if i < 0 {
			t.Fatalf("%q not in the line", at)
		}
		for _, bad := range []string{"\xff", "\xc3", "\xe2\x82"} {
			raw := []byte(s[:i+len(at)] + bad + s[i+len(at):])
			_, err := DecodeTemp(raw, make([]byte, 4096))
			var de *DecodeError
			if !errors.As(err, &de) || de.Code != CodeBadFrame || de.Msg != "invalid UTF-8" {
				t.Errorf("%q after %q: err %v, want bad_frame invalid UTF-8", bad, at, err)
			}
		}
	}
	for _, tail := range []string{"\xff", " \xc3"} {
		_, err := DecodeTemp([]byte(s+tail), nil)
		var de *DecodeError
		if !errors.As(err, &de) || de.Code != CodeBadFrame || de.Msg != "invalid UTF-8" {
			t.Errorf("%q after the object: err %v, want bad_frame invalid UTF-8", tail, err)
		}
	}
	// The reader without its check hands the line on as it is.
	r := NewReader(strings.NewReader("\n \r\n{\"t\":\"\xff\"}\n"))
	line, err := r.ReadLineUnchecked()
	if err != nil || string(line) != "{\"t\":\"\xff\"}" {
		t.Fatalf("ReadLineUnchecked: %q, %v", line, err)
	}
}
