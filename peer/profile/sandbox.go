package profile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// workspace is the root opened for one request. All file access goes
// through root, which refuses any path that resolves outside it — by "..",
// an absolute path, or a symbolic link anywhere along the way — and
// resolves every component with the directory handle of the previous one,
// so a path swapped during the walk cannot lead out.
type workspace struct {
	root  *os.Root
	names []string // absolute spellings of the root, for absolute request paths
}

func openWorkspace(dir string) (*workspace, error) {
	if dir == "" {
		return nil, fmt.Errorf("%w: Root not set", ErrNoRoot)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoRoot, err)
	}
	escapeOnce.Do(func() { probeEscape(root) })
	w := &workspace{root: root}
	if abs, err := filepath.Abs(dir); err == nil {
		w.names = append(w.names, abs)
		if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
			w.names = append(w.names, real)
		}
	}
	return w, nil
}

func (w *workspace) close() { _ = w.root.Close() }

// rel turns a request path into a path relative to the root. A relative
// path is returned as is (the os.Root resolves it) unless its ".." climb
// above the root lexically; an absolute path is allowed when it names the
// root or something beneath it, lexically.
// On failure the second result is the result error.
func (w *workspace) rel(p string) (string, string) {
	if hasNUL(p) {
		return "", ErrNUL
	}
	if !filepath.IsAbs(p) {
		// ".." that climbs above the root is outside even when a component
		// on the way does not exist (os.Root would say "no such file").
		if c := filepath.Clean(p); c == ".." || strings.HasPrefix(c, ".."+string(filepath.Separator)) {
			return "", ErrOutside
		}
		return p, ""
	}
	c := filepath.Clean(p)
	for _, n := range w.names {
		if c == n {
			return ".", ""
		}
		prefix := n
		if !strings.HasSuffix(prefix, string(filepath.Separator)) {
			prefix += string(filepath.Separator)
		}
		if strings.HasPrefix(c, prefix) {
			return c[len(prefix):], ""
		}
	}
	return "", ErrOutside
}

// escapeErr is the error value os.Root wraps for paths that escape it. The
// os package does not export it, so it is captured once from a probe.
var (
	escapeOnce sync.Once
	escapeErr  error
)

func probeEscape(root *os.Root) {
	_, err := root.Lstat("..")
	var pe *fs.PathError
	if errors.As(err, &pe) {
		escapeErr = pe.Err
	}
}

func isEscape(err error) bool {
	if err == nil {
		return false
	}
	if escapeErr != nil && errors.Is(err, escapeErr) {
		return true
	}
	return strings.Contains(err.Error(), "path escapes from parent")
}

// errText is the result error for a file system error: the fixed strings
// for escapes, loops and NUL, else the OS error without the operation and
// path (which could name the root's absolute location).
func errText(err error) string {
	switch {
	case isEscape(err):
		return ErrOutside
	case errors.Is(err, syscall.ELOOP):
		return ErrLoop
	case errors.Is(err, fs.ErrNotExist):
		return "no such file or directory"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err.Error()
	}
	return err.Error()
}

// openDir opens a directory inside the root (following symbolic links only
// while they stay inside). It returns the open directory or a result error.
func (w *workspace) openDir(p string) (*os.File, string) {
	if p == "" {
		p = "."
	}
	rel, e := w.rel(p)
	if e != "" {
		return nil, e
	}
	f, err := w.root.OpenFile(rel, os.O_RDONLY|oDirectory, 0)
	if err != nil {
		return nil, errText(err)
	}
	st, err := f.Stat()
	if err != nil || !st.IsDir() {
		f.Close()
		return nil, "not a directory"
	}
	return f, ""
}

// resolveFinal follows symbolic links in the last component of rel while
// they point inside the root, returning the path of the final non-link
// (which may not exist yet). Links pointing out fail with ErrOutside. This
// only decides where a replacing write goes; the os.Root still checks every
// access, so a link changed in the meantime cannot lead out.
func (w *workspace) resolveFinal(rel string) (string, string) {
	for range 40 {
		st, err := w.root.Lstat(rel)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			return rel, ""
		}
		target, err := w.root.Readlink(rel)
		if err != nil {
			return "", errText(err)
		}
		if filepath.IsAbs(target) {
			t, e := w.rel(target)
			if e != "" {
				return "", e
			}
			rel = t
		} else {
			rel = filepath.Join(filepath.Dir(rel), target)
		}
		if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", ErrOutside
		}
	}
	return "", ErrLoop
}
