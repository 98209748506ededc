package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
)

// TestCopySync copies sizes around the page and block sizes (whole blocks
// are written directly where the file system allows, the rest buffered) and
// more than the pipeline's blocks, and checks the count, the sha256 and the
// copy's bytes.
func TestCopySync(t *testing.T) {
	for _, size := range []int64{0, 1, 4095, 4096, stageBlock - 1, stageBlock, stageBlock + 1, 2*stageBlocks*stageBlock + 12345} {
		want := sha256.New()
		src := io.TeeReader(io.LimitReader(rand.New(rand.NewSource(size)), size), want)
		p := filepath.Join(t.TempDir(), "copy")
		dst, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		n, sum, err := CopySync(dst, src)
		dst.Close()
		if err != nil || n != size {
			t.Fatalf("size %d: copied %d, %v", size, n, err)
		}
		if string(sum[:]) != string(want.Sum(nil)) {
			t.Fatalf("size %d: sha256 differs from the bytes read", size)
		}
		got, _, err := HashFile(p)
		if err != nil || got != hex.EncodeToString(sum[:]) {
			t.Fatalf("size %d: file sha %s, %v", size, got, err)
		}
	}
}

var errBroken = errors.New("broken source")

type brokenReader struct{ n int }

func (r *brokenReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, errBroken
	}
	m := min(len(p), r.n)
	r.n -= m
	return m, nil
}

// TestCopySyncReadError: a failing source fails the copy.
func TestCopySyncReadError(t *testing.T) {
	dst, err := os.Create(filepath.Join(t.TempDir(), "copy"))
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	if _, _, err := CopySync(dst, &brokenReader{n: 3*stageBlock + 7}); !errors.Is(err, errBroken) {
		t.Fatalf("err %v, want the source's error", err)
	}
}

// BenchmarkCopySync stages a 256 MiB file that is in the page cache (as a
// file just written is) into a fresh file, fsync included.
func BenchmarkCopySync(b *testing.B) {
	const size = 256 << 20
	dir := b.TempDir()
	srcPath := filepath.Join(dir, "src")
	data := make([]byte, size)
	rand.New(rand.NewSource(1)).Read(data)
	if err := os.WriteFile(srcPath, data, 0o600); err != nil {
		b.Fatal(err)
	}
	data = nil
	b.SetBytes(size)
	for b.Loop() {
		src, err := os.Open(srcPath)
		if err != nil {
			b.Fatal(err)
		}
		p := filepath.Join(dir, "copy")
		os.Remove(p)
		dst, err := os.Create(p)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := CopySync(dst, src); err != nil {
			b.Fatal(err)
		}
		dst.Close()
		src.Close()
	}
}

// TestBlobReader reads pieces of a file the ways chunkLine does: aligned
// pieces with room to read whole blocks (direct where allowed), the
// unaligned tail, memory that is not aligned, no spare capacity, and past
// the end of the file (an error).
func TestBlobReader(t *testing.T) {
	want := make([]byte, 3<<20+777)
	rand.New(rand.NewSource(3)).Read(want)
	p := filepath.Join(t.TempDir(), "blob")
	if err := os.WriteFile(p, want, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := OpenBlobReader(p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.direct == nil {
		t.Log("no direct reads here: buffered reads only")
	}
	buf := make([]byte, 1<<20+8192) // page-aligned, as pool buffers are
	for _, c := range []struct {
		name      string
		off, n    int
		shift     int // misaligns the memory
		noRoomCap bool
	}{
		{"aligned", 0, 512 << 10, 0, false},
		{"tail", 3 << 20, 777, 0, false},
		{"second", 512 << 10, 512 << 10, 0, false},
		{"memory not aligned", 1 << 20, 512 << 10, 1, false},
		{"no spare capacity", 3 << 20, 777, 0, true},
		{"offset not aligned", 100, 5000, 0, false},
		{"aligned again", 2 << 20, 1 << 20, 0, false},
	} {
		d := buf[c.shift : c.shift+c.n]
		if c.noRoomCap {
			d = d[:c.n:c.n]
		}
		clear(d)
		if n, err := r.ReadAt(d, int64(c.off), len(d)); err != nil || n != len(d) {
			t.Fatalf("%s: %d bytes, %v", c.name, n, err)
		}
		if !bytes.Equal(d, want[c.off:c.off+c.n]) {
			t.Fatalf("%s: wrong bytes", c.name)
		}
	}
	if _, err := r.ReadAt(buf[:8192], int64(len(want)-100), 8192); err == nil {
		t.Fatal("a read past the end of the file succeeded")
	}
	if _, err := r.ReadAt(buf[:512<<10], 3<<20, 512<<10); err == nil {
		t.Fatal("an aligned read past the end of the file succeeded")
	}
	// Read-ahead: a window past the end is fine when what is needed is there.
	if n, err := r.ReadAt(buf[:1<<20], 3<<20, 777); err != nil || n != 777 || !bytes.Equal(buf[:777], want[3<<20:]) {
		t.Fatalf("window over the end: %d bytes, %v", n, err)
	}
	if n, err := r.ReadAt(buf[:1<<20], 2<<20, 4096); err != nil || n != 1<<20 || !bytes.Equal(buf[:n], want[2<<20:3<<20]) {
		t.Fatalf("window: %d bytes, %v", n, err)
	}
}
