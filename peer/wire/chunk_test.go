package wire

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"strconv"
	"testing"
	"unicode/utf8"
)

// generalChunk is the general decode path written out independently of
// Decode: UTF-8 check, encoding/json into a Chunk, then validate.
func generalChunk(raw []byte) (*Chunk, bool) {
	if !utf8.Valid(raw) {
		return nil, false
	}
	var c Chunk
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, false
	}
	if c.T != TypeChunk || c.validate() != nil {
		return nil, false
	}
	return &c, true
}

func sameChunk(a, b *Chunk) bool {
	return a.T == b.T && a.ID == b.ID && a.TS == b.TS && a.Th == b.Th && a.Ref == b.Ref &&
		a.Off == b.Off && a.End == b.End && bytes.Equal(a.Data, b.Data)
}

// checkChunkDifferential: whatever the fast path accepts, the general path
// accepts with the same fields; and Decode agrees with the general path on
// every chunk line.
func checkChunkDifferential(t *testing.T, raw []byte) {
	t.Helper()
	in := append([]byte(nil), raw...)
	fast, fok := decodeChunkFast(in)
	gen, gok := generalChunk(in)
	if fok {
		if !gok {
			t.Fatalf("fast path accepts, general path rejects: %q", clipBytes(raw))
		}
		if !sameChunk(fast, gen) {
			t.Fatalf("fast and general differ on %q:\nfast %+v\ngen  %+v", clipBytes(raw), fast, gen)
		}
		if !bytes.Equal(fast.Raw(), in) {
			t.Fatalf("fast path Raw differs from input")
		}
	}
	// DecodeTemp agrees with Decode (on a copy it may keep).
	tf, terr := DecodeTemp(in, make([]byte, 0, 64))
	df, derr := Decode(append([]byte(nil), in...))
	if (terr == nil) != (derr == nil) {
		t.Fatalf("DecodeTemp err %v, Decode err %v: %q", terr, derr, clipBytes(raw))
	}
	if terr == nil {
		tc, tok := tf.(*Chunk)
		dc, dok := df.(*Chunk)
		if tok != dok || (tok && !sameChunk(tc, dc)) || (fok && tf.Raw() != nil) {
			t.Fatalf("DecodeTemp %T differs from Decode %T on %q", tf, df, clipBytes(raw))
		}
	}
	f, err := Decode(in)
	if gok {
		c, ok := f.(*Chunk)
		if err != nil || !ok {
			t.Fatalf("general path accepts, Decode = %T, %v: %q", f, err, clipBytes(raw))
		}
		if !sameChunk(c, gen) {
			t.Fatalf("Decode and general differ on %q:\nDecode %+v\ngen    %+v", clipBytes(raw), c, gen)
		}
	} else if c, ok := f.(*Chunk); ok && err == nil {
		t.Fatalf("general path rejects, Decode accepts %+v: %q", c, clipBytes(raw))
	}
}

func clipBytes(b []byte) []byte {
	if len(b) > 300 {
		return append(b[:300:300], "…"...)
	}
	return b
}

func chunkVariants() []string {
	const env = `"id":"01J9ZX00000000000000000007","ts":"2026-09-25T17:03:15Z","th":"thr_9k2"`
	c := func(rest string) string { return `{"t":"chunk",` + env + rest + `}` }
	return []string{
		c(`,"ref":"blob_44","off":0,"data":"SGVsbG8=","end":false`),
		c(`,"ref":"blob_44","off":0,"data":"","end":true`),
		// The data string's end taken from Encode's tail, and lines that
		// end like it without being it (the data not right before "end").
		c(`,"ref":"blob_44","off":0,"data":"SGVsbG8=","end":true`) + " \t\r",
		c(`,"off":0,"data":"SGVsbG8=","ref":"blob_44","end":true`),
		c(`,"off":0,"data":"SGVsbG8=","ref":"","end":false`),
		c(`,"off":0,"data":"SGVs","ref":"bG8=","end":true`),
		c(`,"ref":"blob_44","off":0,"end":true,"data":"SGVsbG8="`),
		c(`,"ref":"blob_44","off":0,"data":"SGVsbG8=","end":true","end":true`),
		c(`,"ref":"blob_44","off":0,"data":"SGVsbG8=\",\"end\":true`),
		`{"t":"chunk","data":"","end":true}`,
		`{"t":"chunk","data":","end":true}`,
		c(`,"ref":"blob_44","off":0,"data":"SGVsbG8="`),               // no end
		c(`,"ref":"blob_44","data":"SGVsbG8=","end":false`),           // no off
		c(`,"ref":"blob_44","off":0,"end":false`),                     // no data
		c(`,"off":0,"data":"SGVsbG8=","end":false`),                   // no ref
		c(`,"ref":"","off":0,"data":"SGVsbG8=","end":false`),          // empty ref
		c(`,"ref":"blob_44","off":00,"data":"SGVsbG8=","end":false`),  // leading zero
		c(`,"ref":"blob_44","off":01,"data":"SGVsbG8=","end":false`),  // leading zero
		c(`,"ref":"blob_44","off":-1,"data":"SGVsbG8=","end":false`),  // negative
		c(`,"ref":"blob_44","off":1.0,"data":"SGVsbG8=","end":false`), // fraction
		c(`,"ref":"blob_44","off":1e3,"data":"SGVsbG8=","end":false`), // exponent
		c(`,"ref":"blob_44","off":9223372036854775807,"data":"","end":false`),
		c(`,"ref":"blob_44","off":9223372036854775808,"data":"","end":false`),
		c(`,"ref":"blob_44","off":0,"data":"SGVsbG8","end":false`),    // no padding
		c(`,"ref":"blob_44","off":0,"data":"SGVsbG9=","end":false`),   // non-zero pad bits
		c(`,"ref":"blob_44","off":0,"data":"AB==","end":false`),       // non-zero pad bits
		c(`,"ref":"blob_44","off":0,"data":"SGVs\nbG8=","end":false`), // raw newline
		c(`,"ref":"blob_44","off":0,"data":"SGVs\\nbG8=","end":false`),
		c(`,"ref":"blob_44","off":0,"data":"SGVs\\u0062G8=","end":false`),
		c(`,"ref":"blob_44","off":0,"data":"SGVs bG8=","end":false`),
		c(`,"ref":"blob_44","off":0,"data":"SGVs-bG8=","end":false`), // base64url
		c(`,"ref":"blob_44","off":0,"data":null,"end":false`),
		c(`,"ref":"blob_44","off":0,"data":"","end":null`),
		c(`,"ref":"blob_44","off":0,"data":"","end":1`),
		c(`,"ref":"blob_44","off":0,"data":"","end":truex`),
		c(`,"ref":"blob_44","off":0,"data":"","end":tru`),
		c(`,"ref":"blob_44","off":0,"data":"","end":true,"end":false`),
		c(`,"ref":"blob_44","off":0,"data":"","end":true,"ref":"x"`),
		c(`,"ref":"blob_44","off":0,"data":"","end":true,"extra":1`),
		c(`,"ref":"blob_44","off":0,"data":"","end":true,"REF":"x"`),
		c(`,"Ref":"blob_44","off":0,"data":"","end":true`),
		c(`,"ref":"blob\\"44","off":0,"data":"","end":true`),
		c(`,"ref":"blob_\u00e944","off":0,"data":"","end":true`),
		c(`,"ref":"blob_\\u00e944","off":0,"data":"","end":true`),
		c(`,"ref":"blob` + "\x01" + `44","off":0,"data":"","end":true`),
		c(`,"ref":"blob` + "\xff" + `44","off":0,"data":"","end":true`),
		c(`,"ref":"blob_44","off":0,"data":"","end":true`) + " \t\r",
		// A raw CR in data (which encoding/base64 would skip) is not JSON.
		c(`,"ref":"blob_44","off":0,"data":"SGVs` + "\r" + `bG8=","end":false`),
		c(`,"ref":"blob_44","off":0,"data":"QUJDREVGR0hJSktMTU5PUFFSU1RVVldY` + "\r" + `WVo=","end":false`),
		c(`,"ref":"blob_44","off":0,"data":"QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=` + "\r" + `","end":false`),
		c(`,"ref":"blob_44","off":0,"data":"QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=","end":false`),
		c(`,"ref":"blob_44","off":0,"data":"QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVp=","end":false`), // padding bits set
		c(`,"ref":"blob_44","off":0,"data":"","end":true`) + "\n",
		c(`,"ref":"blob_44","off":0,"data":"","end":true`) + "x",
		c(`,"ref":"blob_44","off":0,"data":"","end":true`) + "}",
		c(`,"ref":"blob_44","off":0,"data":"","end":true,`),
		c(`,"ref":"blob_44", "off":0,"data":"","end":true`),
		c(`,"ref":"blob_44","off": 0,"data":"","end":true`),
		c(`,"ref":"blob_44","off":0 ,"data":"","end":true`),
		`{"t":"chunk","id":"01J9ZX00000000000000000007","ts":"2026-09-25T17:03:15Z","th":"thr_9k2","t":"msg","ref":"r","off":0,"data":""}`,
		`{"t":"chunk","id":"01j9zx00000000000000000007","ts":"2026-09-25T17:03:15Z","th":"thr_9k2","ref":"r","off":0,"data":""}`,
		`{"t":"chunk","id":"01J9ZX00000000000000000007","ts":"2026-09-25T17:03:15+00:00","th":"thr_9k2","ref":"r","off":0,"data":""}`,
		`{"t":"chunk","id":"01J9ZX00000000000000000007","ts":"2026-09-25T17:03:15Z","th":"thr_X","ref":"r","off":0,"data":""}`,
		`{"t":"chunk","id":"x","ts":"2026-09-25T17:03:15Z","th":"thr_9k2","ref":"r","off":0,"data":""}`,
		`{"t":"chunk","ts":"2026-09-25T17:03:15Z","th":"thr_9k2","ref":"r","off":0,"data":""}`,
		`{"t":"chunk","id":"01J9ZX00000000000000000007","id":"01J9ZX00000000000000000008","ts":"2026-09-25T17:03:15Z","th":"thr_9k2","ref":"r","off":0,"data":""}`,
		`{"t":"chunk"}`,
		`{"t":"chunk",`,
		`{"t":"chunk",}`,
		`{"t":"chunk","":""}`,
		` {"t":"chunk","id":"01J9ZX00000000000000000007","ts":"2026-09-25T17:03:15Z","th":"thr_9k2","ref":"r","off":0,"data":""}`,
		`{"t":"chunk" ,"id":"01J9ZX00000000000000000007","ts":"2026-09-25T17:03:15Z","th":"thr_9k2","ref":"r","off":0,"data":""}`,
	}
}

func TestChunkFastDifferential(t *testing.T) {
	fastOK := 0
	for _, v := range chunkVariants() {
		checkChunkDifferential(t, []byte(v))
		if _, ok := decodeChunkFast([]byte(v)); ok {
			fastOK++
		}
	}
	if fastOK < 5 {
		t.Errorf("only %d variants took the fast path", fastOK)
	}
	for _, l := range goldenLines(t) {
		checkChunkDifferential(t, l)
	}
}

// TestChunkRoundTrip encodes chunks of several sizes and decodes them back
// through the fast path and through Decode.
func TestChunkRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 2, 3, 4, 5, 1000, MaxChunkData - 1, MaxChunkData} {
		data := make([]byte, n)
		rng.Read(data)
		for _, end := range []bool{false, true} {
			c := NewChunk("01J9ZX00000000000000000007", "2026-09-25T17:03:15.123Z", "thr_9k2", "blob_44", int64(n)*7, data, end)
			b, err := Encode(c)
			if err != nil {
				t.Fatalf("size %d: %v", n, err)
			}
			if len(b) > MaxLine {
				t.Fatalf("size %d: line of %d bytes", n, len(b))
			}
			if !json.Valid(b) {
				t.Fatalf("size %d: invalid JSON", n)
			}
			fc, ok := decodeChunkFast(append([]byte(nil), b...))
			if !ok {
				t.Fatalf("size %d: Encode output does not take the fast path", n)
			}
			if !sameChunk(fc, c) {
				t.Fatalf("size %d: fast decode differs", n)
			}
			f, err := Decode(append([]byte(nil), b...))
			if err != nil {
				t.Fatalf("size %d: %v", n, err)
			}
			if !sameChunk(f.(*Chunk), c) {
				t.Fatalf("size %d: Decode differs", n)
			}
			checkChunkDifferential(t, b)
		}
	}
}

// TestChunkEncodeEscapes: envelope strings that need escaping still encode to
// valid JSON that decodes to the same chunk (through the general path).
func TestChunkEncodeEscapes(t *testing.T) {
	for _, ref := range []string{`a"b`, `a\b`, "a\nb", "a\x00b", "é日本😀", "\u2028", "<&>"} {
		c := NewChunk("01J9ZX00000000000000000007", "2026-09-25T17:03:15Z", "thr_9k2", ref, 3, []byte{1, 2, 3}, true)
		b, err := Encode(c)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.IndexByte(b, '\n') >= 0 || !json.Valid(b) {
			t.Fatalf("ref %q: bad line %q", ref, b)
		}
		f, err := Decode(append([]byte(nil), b...))
		if err != nil {
			t.Fatalf("ref %q: %v", ref, err)
		}
		if !sameChunk(f.(*Chunk), c) {
			t.Fatalf("ref %q: got %+v", ref, f)
		}
	}
}

// TestChunkDataLimit documents that the decoder does not enforce
// MaxChunkData: a chunk carrying more than 512 KiB still fits in a line and
// decodes; enforcing the limit (too_large) is left to the receiver.
func TestChunkDataLimit(t *testing.T) {
	c := NewChunk("01J9ZX00000000000000000007", "2026-09-25T17:03:15Z", "thr_9k2", "r", 0, make([]byte, MaxChunkData+1), false)
	b, err := Encode(c)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.(*Chunk).Data); n != MaxChunkData+1 {
		t.Fatalf("decoded %d bytes", n)
	}
}

func FuzzChunkDecode(f *testing.F) {
	for _, v := range chunkVariants() {
		f.Add([]byte(v))
	}
	for _, l := range goldenLines(f) {
		f.Add(l)
	}
	for _, n := range []int{0, 1, 2, 3, 64} {
		c := NewChunk("01J9ZX00000000000000000007", "2026-09-25T17:03:15Z", "thr_"+strconv.Itoa(n), "r", int64(n), bytes.Repeat([]byte{byte(n)}, n), n%2 == 0)
		b, _ := Encode(c)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkChunkDifferential(t, raw)
	})
}

// TestChunkDataEscaped: data written with JSON escapes (legal JSON; this
// package never writes them) leaves the fast path and decodes the same,
// through DecodeTemp too.
func TestChunkDataEscaped(t *testing.T) {
	want := []byte("any carnal pleasure")
	plain, err := Encode(NewChunk(tID, tTS, "thr_9k2", "r", 0, want, true))
	if err != nil {
		t.Fatal(err)
	}
	// The first data character is 'Y' ("YW55…"), written as \u0059.
	line := bytes.Replace(plain, []byte(`"data":"Y`), []byte(`"data":"\u0059`), 1)
	if bytes.Equal(line, plain) {
		t.Fatal("no replacement")
	}
	if _, ok := decodeChunkFast(line); ok {
		t.Fatal("an escape took the fast path")
	}
	checkChunkDifferential(t, line)
	f, err := DecodeTemp(line, make([]byte, 64))
	if err != nil || !bytes.Equal(f.(*Chunk).Data, want) {
		t.Fatalf("\\u0059: %v, %+v", err, f)
	}
	// An escaped slash: base64 of 0xff 0xff 0xff is "////".
	raw, err := Encode(NewChunk(tID, tTS, "thr_9k2", "r", 0, []byte{0xff, 0xff, 0xff}, true))
	if err != nil {
		t.Fatal(err)
	}
	line = bytes.Replace(raw, []byte(`"////"`), []byte(`"\/\/\/\/"`), 1)
	f, err = DecodeTemp(line, nil)
	if err != nil || !bytes.Equal(f.(*Chunk).Data, []byte{0xff, 0xff, 0xff}) {
		t.Fatalf(`\/: %v, %+v`, err, f)
	}
}

// TestDataTail: on lines as Encode writes them, the data string's length
// comes from the tail (no scan); on others dataTail says it cannot tell.
func TestDataTail(t *testing.T) {
	for _, end := range []bool{false, true} {
		data := bytes.Repeat([]byte{1, 2, 3}, 1000)
		raw, err := Encode(NewChunk(tID, tTS, "thr_9k2", "r", 0, data, end))
		if err != nil {
			t.Fatal(err)
		}
		from := bytes.Index(raw, []byte(`"data":"`)) + len(`"data":"`)
		want := bytes.IndexByte(raw[from:], '"')
		for _, trail := range []string{"", "\r", " \t"} {
			if got := dataTail(append(append([]byte(nil), raw...), trail...), from); got != want {
				t.Errorf("end %v, trailing %q: %d, want %d", end, trail, got, want)
			}
		}
	}
	if got := dataTail([]byte(`{"t":"chunk","data":"QUJD","end":true,"x":1}`), 21); got != -1 {
		t.Errorf("another tail: %d, want -1", got)
	}
}
