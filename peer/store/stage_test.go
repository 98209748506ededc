package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
)

// TestCopySync copies sizes around the block, writeback and background
// fsync steps and checks the count, the sha256 and the copy's bytes.
func TestCopySync(t *testing.T) {
	for _, size := range []int64{0, 1, stageBlock - 1, stageBlock, stageBlock + 1, stageSync + stageWriteback + 12345} {
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
