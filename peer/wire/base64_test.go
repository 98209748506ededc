package wire

import (
	"bytes"
	"encoding/base64"
	"math/rand"
	"testing"
)

// checkBase64 compares decodeBase64 with encoding/base64's strict decoder:
// the same bytes and the same verdict, except that a CR or LF is an error.
func checkBase64(t *testing.T, in []byte) {
	t.Helper()
	want := make([]byte, base64.StdEncoding.DecodedLen(len(in)))
	got := make([]byte, len(want))
	wn, werr := base64.StdEncoding.Strict().Decode(want, in)
	gn, gerr := decodeBase64(got, in)
	if bytes.ContainsAny(in, "\r\n") {
		if gerr == nil {
			t.Fatalf("%q: accepted with a newline", in)
		}
		return
	}
	if (werr == nil) != (gerr == nil) || (werr == nil && !bytes.Equal(want[:wn], got[:gn])) {
		t.Fatalf("%q: encoding/base64 %v %x, decodeBase64 %v %x", in, werr, want[:wn], gerr, got[:gn])
	}
}

// bothPaths runs f with the vector loops (where this CPU has them) and
// without them.
func bothPaths(t *testing.T, f func(t *testing.T)) {
	had := b64SIMD
	defer func() { b64SIMD = had }()
	if had {
		t.Run("vector", f)
	} else {
		t.Log("no AVX-512 VBMI here: only the table loops are tested")
	}
	b64SIMD = false
	t.Run("table", f)
}

func TestBase64RoundTrip(t *testing.T) { bothPaths(t, testBase64RoundTrip) }

func testBase64RoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, n := range append([]int{MaxChunkData, MaxChunkData - 1, 4096}, func() []int {
		var s []int
		for i := 0; i < 200; i++ {
			s = append(s, i)
		}
		return s
	}()...) {
		src := make([]byte, n)
		rng.Read(src)
		want := base64.StdEncoding.EncodeToString(src)
		got := make([]byte, len(want))
		encodeBase64(got, src)
		if string(got) != want {
			t.Fatalf("encode %d bytes: differs from encoding/base64", n)
		}
		checkBase64(t, got)
		dec := make([]byte, base64.StdEncoding.DecodedLen(len(got)))
		m, err := decodeBase64(dec, got)
		if err != nil || !bytes.Equal(dec[:m], src) {
			t.Fatalf("decode %d bytes: %v", n, err)
		}
	}
}

// TestBase64Mutations damages valid encodings (alphabet and non-alphabet
// characters, padding, newlines, truncation) at every kind of position.
// Inputs up to 600 bytes put damage inside the vector loop's 64-character
// blocks as well as in the table loop's and encoding/base64's parts; the
// characters include ones whose low 7 bits are in the alphabet.
func TestBase64Mutations(t *testing.T) { bothPaths(t, testBase64Mutations) }

func testBase64Mutations(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	chars := []byte("AZaz09+/=\r\n !\x00\x80\xff-_.\xc1\xb0\xab\xaf\x7f")
	src := make([]byte, 600)
	rng.Read(src)
	for i := 0; i < 100000; i++ {
		// Odd offsets into a bigger buffer: unaligned loads and stores.
		off := rng.Intn(3)
		in := []byte(base64.StdEncoding.EncodeToString(src[off : off+rng.Intn(len(src)-off)]))
		for k := rng.Intn(3); k > 0 && len(in) > 0; k-- {
			in[rng.Intn(len(in))] = chars[rng.Intn(len(chars))]
		}
		if rng.Intn(6) == 0 && len(in) > 0 {
			in = in[:rng.Intn(len(in))]
		}
		checkBase64(t, in)
	}
}

func FuzzBase64Decode(f *testing.F) {
	for _, s := range []string{"", "QQ==", "QUI=", "QUJD", "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=", "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVp=",
		"QUJDREVGR0hJSktMTU5P\rUFFSU1RVVldYWVo=", "QUJD=EVGR0hJSktMTU5PUFFSU1RVVldYWVo="} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		checkBase64(t, in)
		if b64SIMD {
			b64SIMD = false
			checkBase64(t, in)
			b64SIMD = true
		}
	})
}

func BenchmarkBase64Encode512K(b *testing.B) {
	src := make([]byte, MaxChunkData)
	rand.New(rand.NewSource(1)).Read(src)
	dst := make([]byte, base64.StdEncoding.EncodedLen(len(src)))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		encodeBase64(dst, src)
	}
}

func BenchmarkBase64Decode512K(b *testing.B) {
	src := make([]byte, MaxChunkData)
	rand.New(rand.NewSource(1)).Read(src)
	enc := []byte(base64.StdEncoding.EncodeToString(src))
	dst := make([]byte, base64.StdEncoding.DecodedLen(len(enc)))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := decodeBase64(dst, enc); err != nil {
			b.Fatal(err)
		}
	}
}
