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
//
// The guard keeps the hidden directories (the node's data directory) out
// of reach inside the root: every directory a request opens is checked by
// identity (guard.inside), and the last component is then opened relative
// to that checked directory's descriptor (dirRef), never by name again.
type workspace struct {
	root       *os.Root
	names      []string // absolute spellings of the root, for absolute request paths
	g          *guard
	rootHidden bool // the root itself is in a hidden directory: nothing is reachable
}

// dirRef is a directory opened through the root and checked: f is open,
// rel is its path relative to the root (for errors and names only).
type dirRef struct {
	f    *os.File
	rel  string
	root *os.Root
}

func (d dirRef) close() { d.f.Close() }

func openWorkspace(dir string, hidden []string) (*workspace, error) {
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
	if w.g, err = newGuard(hidden); err != nil {
		root.Close()
		return nil, fmt.Errorf("%w: %w", ErrNoRoot, err)
	}
	if len(w.g.dirs) == 0 {
		return w, nil // nothing to hide: no walks, no root identity needed
	}
	f, err := root.OpenFile(".", os.O_RDONLY|oDirectory, 0)
	if err == nil {
		w.rootHidden, err = w.g.setRoot(f)
		f.Close()
	}
	if err != nil {
		root.Close()
		return nil, fmt.Errorf("%w: %w", ErrNoRoot, err)
	}
	return w, nil
}

// check returns ErrOutside when the open directory f is, or is inside, a
// hidden directory; "" when it is not.
func (w *workspace) check(f *os.File) string {
	if w.rootHidden {
		return ErrOutside
	}
	in, err := w.g.inside(f, true)
	switch {
	case err != nil:
		return errText(err)
	case in:
		return ErrOutside
	}
	return ""
}

// split cuts rel into its directory and last component without cleaning
// it (the os.Root resolves ".." after symbolic links, as the kernel does;
// a lexical clean would not). base is "" when rel names a directory by
// itself: the root, or a path ending in "." or "..".
func split(rel string) (dir, base string) {
	if strings.HasSuffix(rel, string(filepath.Separator)) {
		return rel, "" // "d/" names the directory d, a link there followed
	}
	if rel == "" {
		return ".", ""
	}
	i := strings.LastIndexByte(rel, filepath.Separator)
	dir, base = ".", rel
	if i >= 0 {
		dir, base = rel[:i], rel[i+1:]
		if dir == "" {
			dir = "."
		}
	}
	if base == "." || base == ".." {
		return rel, ""
	}
	return dir, base
}

// openDirRef opens the directory rel through the root and checks it.
func (w *workspace) openDirRef(rel string) (dirRef, string) {
	if w.rootHidden {
		return dirRef{}, ErrOutside
	}
	f, err := w.root.OpenFile(rel, os.O_RDONLY|oDirectory, 0)
	if err != nil {
		return dirRef{}, w.explain(rel, errText(err))
	}
	if st, err := f.Stat(); err != nil || !st.IsDir() {
		f.Close()
		return dirRef{}, "not a directory"
	}
	if e := w.check(f); e != "" {
		f.Close()
		return dirRef{}, e
	}
	return dirRef{f: f, rel: rel, root: w.root}, ""
}

// explain turns the error e of opening rel into ErrOutside when the
// deepest directory on rel's way that does open is hidden: a name that
// does not exist inside the data directory fails as one that does, so
// requests cannot learn what it holds.
func (w *workspace) explain(rel, e string) string {
	if e == ErrOutside || len(w.g.dirs) == 0 {
		return e
	}
	for p := rel; ; {
		i := strings.LastIndexByte(p, filepath.Separator)
		if i < 0 {
			return e // the root: checked when the workspace was opened
		}
		p = p[:i]
		if p == "" {
			return e
		}
		f, err := w.root.OpenFile(p, os.O_RDONLY|oDirectory, 0)
		if err != nil {
			continue
		}
		in := w.check(f) == ErrOutside
		f.Close()
		if in {
			return ErrOutside
		}
		return e
	}
}

// parent opens and checks the directory holding rel's last component,
// creating it and its missing ancestors (0755) when mkdir. Each directory
// is created relative to its checked parent's descriptor, so none is ever
// made inside a hidden one. base is "" when rel names a directory by
// itself (see split); the returned dirRef is then rel.
func (w *workspace) parent(rel string, mkdir bool) (dirRef, string, string) {
	dir, base := split(rel)
	if !mkdir || base == "" {
		d, e := w.openDirRef(dir)
		return d, base, e
	}
	if d, e := w.openDirRef(dir); e != "no such file or directory" {
		return d, base, e
	}
	cur, e := w.openDirRef(".")
	if e != "" {
		return dirRef{}, "", e
	}
	path := "."
	for _, c := range strings.Split(dir, string(filepath.Separator)) {
		if c == "" || c == "." {
			continue
		}
		next := path + string(filepath.Separator) + c
		d, e := w.openDirRef(next)
		if e == "no such file or directory" && c != ".." {
			if err := mkdirAt(cur, c, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				cur.close()
				return dirRef{}, "", errText(err)
			}
			d, e = w.openDirRef(next)
		}
		cur.close()
		if e != "" {
			return dirRef{}, "", e
		}
		cur, path = d, next
	}
	return cur, base, ""
}

// open opens rel (its last component not a link: see resolveFinal) with
// flag, creating missing parents when mkdir, and checks what it opened: a
// hidden directory, or a hard link to a hidden file, is ErrOutside.
func (w *workspace) open(rel string, flag int, perm fs.FileMode, mkdir bool) (*os.File, string) {
	d, base, e := w.parent(rel, mkdir)
	if e != "" {
		return nil, e
	}
	if base == "" {
		if flag&(os.O_WRONLY|os.O_RDWR) != 0 {
			d.close()
			return nil, "is a directory"
		}
		return d.f, "" // checked as a directory
	}
	defer d.close()
	if _, hidden, err := w.g.statAt(d, base); err == nil && hidden {
		return nil, ErrOutside // before the open, which may fail otherwise ("is a directory")
	}
	f, err := openAt(d, base, flag, perm)
	if err != nil {
		return nil, errText(err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, errText(err)
	}
	if w.g.hiddenInfo(st) {
		f.Close()
		return nil, ErrOutside
	}
	return f, ""
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
// while they stay inside) and checks it. It returns the open directory or
// a result error.
func (w *workspace) openDir(p string) (*os.File, string) {
	if p == "" {
		p = "."
	}
	rel, e := w.rel(p)
	if e != "" {
		return nil, e
	}
	d, e := w.openDirRef(rel)
	if e != "" {
		return nil, e
	}
	return d.f, ""
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

// reach says whether rel (after the runner's resolution of a final link)
// leads into a hidden directory (WhyDataDir) or out of the root
// (WhyOutside), walked as a write with mkdir would walk it: a directory on
// its way that exists is checked, a missing one is passed over (and a ".."
// after it steps back over it), and the last component is checked as the
// runner checks it (a hidden directory, a hard link to a hidden file). It
// changes nothing (CheckPath).
func (w *workspace) reach(rel string) string {
	if w.rootHidden {
		return WhyDataDir
	}
	if r, e := w.resolveFinal(rel); e == "" {
		rel = r
	}
	dir, base := split(rel)
	path, missing := ".", 0 // the real directory reached, and how many levels below it would be made
	for _, c := range strings.Split(dir, string(filepath.Separator)) {
		switch {
		case c == "" || c == ".":
			continue
		case missing > 0 && c == "..":
			missing--
			continue
		case missing > 0:
			missing++
			continue
		}
		next := path + string(filepath.Separator) + c
		f, err := w.root.OpenFile(next, os.O_RDONLY|oDirectory, 0)
		switch {
		case err == nil:
			in, _ := w.g.inside(f, true)
			f.Close()
			if in {
				return WhyDataDir
			}
			path = next
		case isEscape(err):
			return WhyOutside
		case errors.Is(err, fs.ErrNotExist):
			missing = 1
		default:
			return "" // the runner fails it otherwise ("not a directory"…)
		}
	}
	if missing > 0 || base == "" {
		return ""
	}
	d, e := w.openDirRef(path)
	if e != "" {
		return ""
	}
	defer d.close()
	if _, hidden, err := w.g.statAt(d, base); err == nil && hidden {
		return WhyDataDir
	}
	return ""
}
