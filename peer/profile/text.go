package profile

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// inlineText reads the start of rd (size bytes in all) as an inline string:
// at most InlineMax bytes of UTF-8, cut at a character boundary, with each
// byte that is not part of valid UTF-8 replaced by U+FFFD. truncated says
// whether it covers less than the whole stream. It reads at most
// InlineMax+3 bytes: each input byte yields at least one output byte.
func inlineText(rd io.Reader, size int64) (s string, truncated bool, err error) {
	buf := make([]byte, min(size, InlineMax+utf8.UTFMax-1))
	n, err := io.ReadFull(rd, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return "", false, err
	}
	buf = buf[:n]
	var out strings.Builder
	out.Grow(min(len(buf), InlineMax))
	used := 0
	for used < len(buf) {
		r, w := utf8.DecodeRune(buf[used:])
		if r == utf8.RuneError && w <= 1 && !utf8.FullRune(buf[used:]) && int64(len(buf)) < size {
			break // a character cut by the read, not an invalid byte
		}
		if out.Len()+utf8.RuneLen(r) > InlineMax {
			break
		}
		out.WriteRune(r)
		used += w
	}
	return out.String(), int64(used) < size, nil
}

// spool copies rd to a new temporary file in dir, returning its path, size
// and sha256. It holds no more than a copy buffer in memory.
func spool(dir, pattern string, rd io.Reader) (path string, size int64, sum string, err error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", 0, "", fmt.Errorf("profile: spool: %w", err)
	}
	h := sha256.New()
	size, err = io.Copy(io.MultiWriter(f, h), rd)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", 0, "", fmt.Errorf("profile: spool: %w", err)
	}
	return f.Name(), size, hex.EncodeToString(h.Sum(nil)), nil
}

// hashFile returns the sha256 of f from its start, and its length.
func hashFile(f *os.File) (string, int64, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", 0, err
	}
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}
