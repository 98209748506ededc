//go:build !unix

package profile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// guard keeps the hidden directories out of reach by identity
// (os.SameFile). Without descriptor-relative calls this version walks up
// by name, which a rename in the same instant could mislead; the Unix one
// (guard_unix.go) does not. See docs/profile.md.
type guard struct {
	paths []string
	dirs  []fs.FileInfo
	root  fs.FileInfo
}

func newGuard(paths []string) (*guard, error) {
	g := &guard{}
	for _, p := range paths {
		if p == "" {
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, err
		}
		g.paths = append(g.paths, p)
		g.dirs = append(g.dirs, st)
	}
	return g, nil
}

func (g *guard) isHidden(fi fs.FileInfo) bool {
	for _, d := range g.dirs {
		if os.SameFile(d, fi) {
			return true
		}
	}
	return false
}

func (g *guard) inside(f *os.File, stopAtRoot bool) (bool, error) {
	if len(g.dirs) == 0 {
		return false, nil
	}
	p, err := filepath.Abs(f.Name())
	if err != nil {
		return false, err
	}
	for range maxWalkUp {
		st, err := os.Stat(p)
		if err != nil {
			return false, err
		}
		if g.isHidden(st) {
			return true, nil
		}
		if stopAtRoot && g.root != nil && os.SameFile(st, g.root) {
			return false, nil
		}
		up := filepath.Dir(p)
		if up == p {
			return false, nil
		}
		p = up
	}
	return false, errTooDeep
}

var errTooDeep = errors.New("directory too deep")

func (g *guard) setRoot(f *os.File) (bool, error) {
	st, err := f.Stat()
	if err != nil {
		return false, err
	}
	g.root = st
	return g.inside(f, false)
}

func (g *guard) hiddenInfo(fi fs.FileInfo) bool { return fi.IsDir() && g.isHidden(fi) }

func (g *guard) entry(d *os.File, name string) (fs.FileInfo, bool, error) {
	p := filepath.Join(d.Name(), name)
	info, err := os.Lstat(p)
	if err != nil {
		return nil, false, err
	}
	hidden := g.hiddenInfo(info)
	if !hidden && info.Mode()&fs.ModeSymlink != 0 {
		if st, err := os.Stat(p); err == nil {
			hidden = g.hiddenInfo(st)
		}
	}
	return info, hidden, nil
}

func (g *guard) statAt(d dirRef, name string) (fs.FileMode, bool, error) {
	st, err := d.root.Lstat(d.rel + "/" + name)
	if err != nil {
		return 0, false, err
	}
	return st.Mode(), g.hiddenInfo(st), nil
}

func openAt(d dirRef, name string, flag int, perm fs.FileMode) (*os.File, error) {
	return d.root.OpenFile(d.rel+"/"+name, flag, perm)
}

func mkdirAt(d dirRef, name string, perm fs.FileMode) error {
	return d.root.Mkdir(d.rel+"/"+name, perm)
}

func renameAt(d dirRef, from, to string) error {
	return d.root.Rename(d.rel+"/"+from, d.rel+"/"+to)
}

func removeAt(d dirRef, name string) error { return d.root.Remove(d.rel + "/" + name) }
