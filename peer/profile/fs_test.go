package profile

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestReadFile(t *testing.T) {
	e := newEnv(t)
	e.file(filepath.Join(e.ws, "bin"), "\x00\xff\xfeabc")
	big := bytes.Repeat([]byte("0123456789abcdef"), 200<<10/16) // 200 KiB
	if err := os.WriteFile(filepath.Join(e.ws, "big"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	// A 3-byte character straddles the 65,536-byte boundary.
	cut := append(bytes.Repeat([]byte("a"), InlineMax-1), []byte("€€")...)
	if err := os.WriteFile(filepath.Join(e.ws, "cut"), cut, 0o644); err != nil {
		t.Fatal(err)
	}
	length := func(n int) *int { return &n }
	tests := []struct {
		name    string
		path    string
		off     int
		length  *int
		enc     string
		content string
		eof     bool
		size    float64
	}{
		{name: "text", path: "inside.txt", enc: "utf-8", content: "inside", eof: true, size: 6},
		{name: "binary", path: "bin", enc: "base64", content: base64.StdEncoding.EncodeToString([]byte("\x00\xff\xfeabc")), eof: true, size: 6},
		{name: "offset+length", path: "inside.txt", off: 1, length: length(3), enc: "utf-8", content: "nsi", size: 6},
		{name: "offset to end", path: "inside.txt", off: 4, enc: "utf-8", content: "de", eof: true, size: 6},
		{name: "offset past end", path: "inside.txt", off: 100, enc: "utf-8", content: "", eof: true, size: 6},
		{name: "length 0", path: "inside.txt", length: length(0), enc: "utf-8", content: "", size: 6},
		{name: "length capped", path: "big", length: length(1 << 20), enc: "utf-8", content: string(big[:InlineMax]), size: float64(len(big))},
		{name: "cut character kept whole", path: "cut", enc: "utf-8", content: string(cut[:InlineMax-1]), size: float64(len(cut))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := map[string]any{"path": tc.path, "offset": tc.off}
			if tc.length != nil {
				req["length"] = *tc.length
			}
			res, m := e.must(MimeRead, req, false)
			if str(m, "encoding") != tc.enc || str(m, "content") != tc.content || m["eof"] != tc.eof ||
				m["size"] != tc.size || m["offset"] != float64(tc.off) || str(m, "path") != tc.path || len(res.Attachments) != 0 {
				t.Errorf("got enc %q len %d eof %v size %v offset %v, %d attachments", str(m, "encoding"),
					len(str(m, "content")), m["eof"], m["size"], m["offset"], len(res.Attachments))
			}
			if _, ok := m["error"]; ok {
				t.Errorf("error: %v", m["error"])
			}
		})
	}

	// Large file without length: inline start, eof false, and the whole file
	// as an attachment when the requester takes blobs.
	res, m := e.must(MimeRead, map[string]any{"path": "big"}, true)
	if str(m, "content") != string(big[:InlineMax]) || m["eof"] != false || len(res.Attachments) != 1 {
		t.Fatalf("big: eof %v, %d attachments", m["eof"], len(res.Attachments))
	}
	a := res.Attachments[0]
	sum := sha256.Sum256(big)
	got, err := os.ReadFile(a.Path)
	if err != nil || !bytes.Equal(got, big) || a.Size != int64(len(big)) || a.Sha256 != hex.EncodeToString(sum[:]) || a.Name != "big" || a.Mime != "application/octet-stream" {
		t.Errorf("attachment %+v: %v", a, err)
	}
	res.Remove()
	res, m = e.must(MimeRead, map[string]any{"path": "big"}, false)
	if len(res.Attachments) != 0 || m["eof"] != false || len(str(m, "content")) != InlineMax {
		t.Errorf("big without blobs: %d attachments", len(res.Attachments))
	}
	assertEmpty(t, e.tmp)
}

func TestReadDir(t *testing.T) {
	e := newEnv(t)
	if err := os.Chmod(filepath.Join(e.ws, "inside.txt"), 0o640); err != nil {
		t.Fatal(err)
	}
	mt := time.Date(2026, 9, 25, 17, 3, 11, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(e.ws, "inside.txt"), mt, mt); err != nil {
		t.Fatal(err)
	}
	_, m := e.must(MimeRead, map[string]any{"path": "."}, true)
	if m["dir"] != true || str(m, "path") != "." {
		t.Fatalf("dir result %v", m)
	}
	for _, k := range []string{"content", "encoding", "eof", "size", "error"} {
		if _, ok := m[k]; ok {
			t.Errorf("dir result has %q", k)
		}
	}
	ents := m["entries"].([]any)
	var names []string
	for _, x := range ents {
		en := x.(map[string]any)
		names = append(names, en["name"].(string))
		switch en["name"] {
		case "inside.txt":
			if en["mode"] != "0640" || en["size"] != 6.0 || en["dir"] != false || en["mtime"] != "2026-09-25T17:03:11Z" {
				t.Errorf("inside.txt entry %v", en)
			}
		case "sub":
			if en["dir"] != true {
				t.Errorf("sub entry %v", en)
			}
		case "toout":
			if en["dir"] != false { // the link itself, not followed
				t.Errorf("toout entry %v", en)
			}
		}
	}
	if strings.Join(names, ",") != "dangling,inside.txt,loop1,loop2,okln,okln_abs,selfloop,sub,toout,toout_abs,toroot" {
		t.Errorf("names %v", names)
	}
	_, m = e.must(MimeRead, map[string]any{"path": "okln"}, true)
	if m["dir"] != true || len(m["entries"].([]any)) != 2 {
		t.Errorf("okln listing %v", m)
	}
	_, m = e.must(MimeRead, map[string]any{"path": "nope"}, true)
	if str(m, "error") != "no such file or directory" {
		t.Errorf("missing: %v", m)
	}
}

func TestWrite(t *testing.T) {
	e := newEnv(t)
	rd := func(p string) string {
		b, err := os.ReadFile(filepath.Join(e.ws, p))
		if err != nil {
			return "ERR:" + err.Error()
		}
		return string(b)
	}
	type w = map[string]any
	steps := []struct {
		req     w
		written float64
		errStr  string
		path    string
		want    string
	}{
		{req: w{"path": "n.txt", "content": "héllo"}, written: 6, path: "n.txt", want: "héllo"},
		{req: w{"path": "n.txt", "content": "new"}, written: 3, path: "n.txt", want: "new"},
		{req: w{"path": "n.txt", "content": "+more", "append": true}, written: 5, path: "n.txt", want: "new+more"},
		{req: w{"path": "b.bin", "content": "AP/+", "encoding": "base64"}, written: 3, path: "b.bin", want: "\x00\xff\xfe"},
		{req: w{"path": "a.txt", "content": "x", "append": true}, written: 1, path: "a.txt", want: "x"},
		{req: w{"path": "d1/d2/f", "content": "deep", "mkdir": true}, written: 4, path: "d1/d2/f", want: "deep"},
		{req: w{"path": "d1/d3/f", "content": "deep", "mkdir": true, "append": true}, written: 4, path: "d1/d3/f", want: "deep"},
		{req: w{"path": "nodir/f", "content": "x"}, errStr: "no such file or directory"},
		{req: w{"path": "nodir/f", "content": "x", "append": true}, errStr: "no such file or directory"},
		{req: w{"path": "sub", "content": "x"}, errStr: "is a directory"},
		{req: w{"path": ".", "content": "x"}, errStr: "is a directory"},
		{req: w{"path": "okln/f.txt", "content": "via link"}, written: 8, path: "sub/f.txt", want: "via link"},
		{req: w{"path": "empty", "content": ""}, written: 0, path: "empty", want: ""},
		{req: w{"path": e.ws + "/abs.txt", "content": "abs"}, written: 3, path: "abs.txt", want: "abs"},
	}
	for i, s := range steps {
		_, m := e.must(MimeWrite, s.req, false)
		if str(m, "error") != s.errStr || m["written"] != s.written || str(m, "path") != s.req["path"] {
			t.Errorf("%d %v: %v", i, s.req, m)
		}
		if s.path != "" && rd(s.path) != s.want {
			t.Errorf("%d: %s = %q, want %q", i, s.path, rd(s.path), s.want)
		}
	}
	// A symlink as the last component is written through, the link stays.
	if err := os.Symlink("sub/f.txt", filepath.Join(e.ws, "flink")); err != nil {
		t.Fatal(err)
	}
	e.must(MimeWrite, w{"path": "flink", "content": "through"}, false)
	if st, err := os.Lstat(filepath.Join(e.ws, "flink")); err != nil || st.Mode()&os.ModeSymlink == 0 || rd("sub/f.txt") != "through" {
		t.Errorf("write through link: %v %q", err, rd("sub/f.txt"))
	}
	// Replacing keeps the file's mode; no temporary files are left.
	if err := os.Chmod(filepath.Join(e.ws, "n.txt"), 0o751); err != nil {
		t.Fatal(err)
	}
	e.must(MimeWrite, w{"path": "n.txt", "content": "mode"}, false)
	if st, _ := os.Stat(filepath.Join(e.ws, "n.txt")); st.Mode().Perm() != 0o751 {
		t.Errorf("mode %v", st.Mode())
	}
	filepath.WalkDir(e.ws, func(p string, d os.DirEntry, err error) error {
		if strings.Contains(p, "awp-tmp") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}
