package wire

import (
	"encoding/json"
	"math/rand"
	"testing"
)

// benchMsg is a typical msg line of about 200 bytes.
const benchMsg = `{"t":"msg","id":"01J9ZX00000000000000000004","ts":"2026-09-25T17:03:12.000Z","th":"thr_9k2ab4xq","subject":"Port the auth middleware","parts":[{"k":"text","text":"Here is the diff so far; tests pass locally."}]}`

func BenchmarkDecodeMsg(b *testing.B) {
	raw := []byte(benchMsg)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func chunkLine(b *testing.B) []byte {
	data := make([]byte, MaxChunkData)
	rand.New(rand.NewSource(1)).Read(data)
	line, err := Encode(NewChunk("01J9ZX00000000000000000007", "2026-09-25T17:03:15.123Z", "thr_9k2", "blob_44", 0, data, false))
	if err != nil {
		b.Fatal(err)
	}
	return line
}

// BenchmarkDecodeChunk512K measures the fast path; bytes are the decoded data.
func BenchmarkDecodeChunk512K(b *testing.B) {
	line := chunkLine(b)
	if _, ok := decodeChunkFast(line); !ok {
		b.Fatal("not on the fast path")
	}
	b.SetBytes(MaxChunkData)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(line); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeTempChunk512K is the fast path as the session reader uses
// it: the data decoded into a buffer it reuses (no allocation).
func BenchmarkDecodeTempChunk512K(b *testing.B) {
	line := chunkLine(b)
	buf := make([]byte, MaxChunkData+8)
	b.SetBytes(MaxChunkData)
	b.ReportAllocs()
	for b.Loop() {
		f, err := DecodeTemp(line, buf)
		if err != nil {
			b.Fatal(err)
		}
		if c := f.(*Chunk); &c.Data[0] != &buf[0] {
			b.Fatal("not decoded into the buffer")
		}
	}
}

// BenchmarkDecodeChunk512KGeneral is the encoding/json path, for comparison.
func BenchmarkDecodeChunk512KGeneral(b *testing.B) {
	line := chunkLine(b)
	b.SetBytes(MaxChunkData)
	b.ReportAllocs()
	for b.Loop() {
		var c Chunk
		if err := json.Unmarshal(line, &c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeChunk512K(b *testing.B) {
	data := make([]byte, MaxChunkData)
	rand.New(rand.NewSource(1)).Read(data)
	b.SetBytes(MaxChunkData)
	b.ReportAllocs()
	for b.Loop() {
		c := NewChunk("01J9ZX00000000000000000007", "2026-09-25T17:03:15.123Z", "thr_9k2", "blob_44", 0, data, false)
		if _, err := Encode(c); err != nil {
			b.Fatal(err)
		}
	}
}

// cycle repeats buf forever.
type cycle struct {
	buf []byte
	off int
}

func (c *cycle) Read(p []byte) (int, error) {
	n := copy(p, c.buf[c.off:])
	c.off = (c.off + n) % len(c.buf)
	return n, nil
}

// BenchmarkReadLine reads typical 200-byte msg lines from an endless stream.
func BenchmarkReadLine(b *testing.B) {
	var buf []byte
	for i := 0; i < 1000; i++ {
		buf = append(append(buf, benchMsg...), '\n')
	}
	r := NewReader(&cycle{buf: buf})
	b.SetBytes(int64(len(benchMsg) + 1))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.ReadLine(); err != nil {
			b.Fatal(err)
		}
	}
}
