package profile

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"os"
	"path/filepath"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/awp-tray/awp-tray/peer/key"
)

// read runs an fs:read request.
func (r *Runner) read(w *workspace, from key.PublicKey, req ReadRequest, wantBlobs bool) (ReadResult, []Attachment) {
	res, atts := r.readIn(w, req, wantBlobs)
	r.log().Info("profile: fs:read", "from", from.Short(), "path", req.Path, "error", res.Error, "blobs", len(atts))
	return res, atts
}

func (r *Runner) readIn(w *workspace, req ReadRequest, wantBlobs bool) (ReadResult, []Attachment) {
	res := ReadResult{Path: req.Path, Offset: req.Offset}
	rel, e := w.rel(req.Path)
	if e == "" {
		rel, e = w.resolveFinal(rel)
	}
	if e != "" {
		res.Error = e
		return res, nil
	}
	f, e := w.open(rel, os.O_RDONLY|oNonblock, 0, false)
	if e != "" {
		res.Error = e
		return res, nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		res.Error = errText(err)
		return res, nil
	}
	if st.IsDir() {
		return readDir(w.g, f, res), nil
	}
	if !st.Mode().IsRegular() {
		res.Error = "not a regular file"
		return res, nil
	}
	res.Size = st.Size()
	n := int64(InlineMax)
	if req.Length != nil && *req.Length < n {
		n = *req.Length
	}
	buf := make([]byte, max(0, min(n, res.Size-req.Offset)))
	got, err := f.ReadAt(buf, req.Offset)
	if err != nil && err != io.EOF {
		res.Error = errText(err)
		return res, nil
	}
	buf = buf[:got]
	end := req.Offset + int64(got)
	if !utf8.Valid(buf) && end < res.Size {
		// A read cut through a character: stop before it, so text stays text.
		for k := 1; k < utf8.UTFMax && k < len(buf); k++ {
			if !utf8.FullRune(buf[len(buf)-k:]) && utf8.Valid(buf[:len(buf)-k]) {
				buf = buf[:len(buf)-k]
				break
			}
		}
	}
	if utf8.Valid(buf) {
		res.Encoding, res.Content = "utf-8", string(buf)
	} else {
		res.Encoding, res.Content = "base64", base64.StdEncoding.EncodeToString(buf)
	}
	res.EOF = req.Offset+int64(len(buf)) >= res.Size
	if !wantBlobs || req.Length != nil || req.Offset != 0 || res.Size <= InlineMax {
		return res, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		res.Error = errText(err)
		return res, nil
	}
	path, size, sum, err := spool(r.tempDir(), "awp-read-*", f)
	if err != nil {
		res.Error = "attachment: " + errText(err)
		return res, nil
	}
	name := filepath.Base(rel)
	m := mime.TypeByExtension(filepath.Ext(name))
	if m == "" {
		m = "application/octet-stream"
	}
	return res, []Attachment{{Name: name, Mime: m, Path: path, Size: size, Sha256: sum}}
}

// readDir lists the open directory f. Entries that are hidden (the data
// directory, a hard link to one of its files, or a symbolic link to
// either) are left out, as if they were not there.
func readDir(g *guard, f *os.File, res ReadResult) ReadResult {
	res.Dir = true
	names, err := f.Readdirnames(16 * MaxEntries)
	if err != nil && err != io.EOF {
		return ReadResult{Path: res.Path, Error: errText(err)}
	}
	if len(names) == 16*MaxEntries {
		res.EntriesTruncated = true
	}
	slices.Sort(names)
	if len(names) > MaxEntries {
		names, res.EntriesTruncated = names[:MaxEntries], true
	}
	res.Entries = make([]Entry, 0, len(names))
	for _, name := range names {
		info, hidden, err := g.entry(f, name)
		if err != nil || hidden {
			continue // removed since it was listed, or never to be seen
		}
		e := Entry{
			Name:  name,
			Dir:   info.IsDir(),
			Size:  info.Size(),
			Mode:  fmt.Sprintf("%04o", info.Mode().Perm()),
			MTime: info.ModTime().UTC().Format(time.RFC3339),
		}
		res.Entries = append(res.Entries, e)
	}
	return res
}

// write runs an fs:write request.
func (r *Runner) write(w *workspace, from key.PublicKey, req WriteRequest, content []byte) (WriteResult, []Attachment) {
	res := WriteResult{Path: req.Path}
	if e := r.writeIn(w, req, content); e != "" {
		res.Error = e
	} else {
		res.Written = int64(len(content))
	}
	r.log().Info("profile: fs:write", "from", from.Short(), "path", req.Path, "bytes", res.Written, "append", req.Append, "error", res.Error)
	return res, nil
}

// writeIn writes (or appends) content to req.Path in workspace w and
// returns the error text, "" on success.
func (r *Runner) writeIn(w *workspace, req WriteRequest, content []byte) string {
	rel, e := w.rel(req.Path)
	if e != "" {
		return e
	}
	// A symbolic link as the last component is written through (to its
	// target inside the root), as an editor would.
	rel, e = w.resolveFinal(rel)
	if e != "" {
		return e
	}
	if req.Append {
		return appendIn(w, rel, req.Mkdir, content)
	}
	// Replace atomically: a temporary file beside the target, fsync, rename,
	// fsync the directory, all relative to the checked parent directory.
	d, base, e := w.parent(rel, req.Mkdir)
	if e != "" {
		return e
	}
	defer d.close()
	if base == "" {
		return "is a directory"
	}
	perm := fs.FileMode(0o644)
	if mode, hidden, err := w.g.statAt(d, base); err == nil {
		switch {
		case hidden:
			return ErrOutside
		case mode.IsDir():
			return "is a directory"
		case !mode.IsRegular():
			return "not a regular file"
		}
		perm = mode.Perm()
	} else if !isNotExist(err) {
		return errText(err)
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := "." + truncate(base, 100) + ".awp-tmp-" + hex.EncodeToString(rnd[:])
	f, err := openAt(d, tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return errText(err)
	}
	ok := false
	defer func() {
		if !ok {
			_ = removeAt(d, tmp)
		}
	}()
	_, err = f.Write(content)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return errText(err)
	}
	if err := renameAt(d, tmp, base); err != nil {
		return errText(err)
	}
	ok = true
	_ = d.f.Sync() // best effort: the data itself is already durable
	return ""
}

// appendIn appends content to the regular file rel of w, creating it (and
// its directories when mkdir), and syncs it.
func appendIn(w *workspace, rel string, mkdir bool, content []byte) string {
	f, e := w.open(rel, os.O_WRONLY|os.O_APPEND|os.O_CREATE|oNonblock, 0o644, mkdir)
	if e != "" {
		return e
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return "not a regular file"
	}
	if _, err := f.Write(content); err != nil {
		return errText(err)
	}
	if err := f.Sync(); err != nil {
		return errText(err)
	}
	return ""
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
