//go:build unix

package profile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// fileID is a file's identity: device and inode. Two names of one file —
// another spelling, a symbolic link, a bind mount, a hard link, a name
// that differs only in case on a case-insensitive file system — have the
// same fileID.
type fileID struct{ dev, ino uint64 }

func statID(st *unix.Stat_t) fileID { return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)} }

// guard knows the hidden directories (Runner.Hidden: the node's data
// directory) of one request by identity, so that no spelling of a path
// reaches them: every directory a request opens is walked up, by its
// descriptor, to the workspace root, and refused when one of the
// directories on the way is hidden.
type guard struct {
	paths     []string
	dirs      []fileID
	files     []fileID // regular files directly in a hidden directory (see hiddenFile)
	filesRead bool
	root      fileID
}

// newGuard stats the hidden directories. One that does not exist hides
// nothing; any other failure fails the request (a guard that cannot see
// the data directory must not guess).
func newGuard(paths []string) (*guard, error) {
	g := &guard{}
	for _, p := range paths {
		if p == "" {
			continue
		}
		var st unix.Stat_t
		if err := unix.Stat(p, &st); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue
			}
			return nil, fmt.Errorf("hidden directory %s: %w", p, err)
		}
		g.paths = append(g.paths, p)
		g.dirs = append(g.dirs, statID(&st))
	}
	return g, nil
}

func (g *guard) isHiddenDir(id fileID) bool {
	for _, d := range g.dirs {
		if d == id {
			return true
		}
	}
	return false
}

// hiddenFile says whether a regular file with identity id and nlink links
// is one of the files directly in a hidden directory (identity.key,
// awp.db…), reached through a hard link elsewhere in the workspace. Only
// files with more than one link can be: the others' one name is where it
// was found. The hidden directories are listed on first need, at most
// maxHiddenFiles entries each.
func (g *guard) hiddenFile(id fileID, nlink uint64) bool {
	if len(g.dirs) == 0 || nlink < 2 {
		return false
	}
	if !g.filesRead {
		g.filesRead = true
		for _, p := range g.paths {
			g.files = append(g.files, listFiles(p)...)
		}
	}
	for _, f := range g.files {
		if f == id {
			return true
		}
	}
	return false
}

func listFiles(dir string) []fileID {
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(maxHiddenFiles)
	var out []fileID
	_ = withFd(d, func(fd int) error {
		for _, n := range names {
			var st unix.Stat_t
			if unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
				out = append(out, statID(&st))
			}
		}
		return nil
	})
	return out
}

// inside says whether the open directory f is a hidden directory or lies
// inside one. It walks up through ".." by descriptor (never by name, so a
// rename or a symbolic link swapped meanwhile cannot mislead it) until the
// workspace root (when stopAtRoot) or the file system root.
func (g *guard) inside(f *os.File, stopAtRoot bool) (bool, error) {
	if len(g.dirs) == 0 {
		return false, nil
	}
	var hidden bool
	err := withFd(f, func(fd int) error {
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return err
		}
		cur := -1 // descriptor opened here, closed here; fd is the caller's
		defer func() {
			if cur >= 0 {
				unix.Close(cur)
			}
		}()
		at := fd
		for range maxWalkUp {
			id := statID(&st)
			if g.isHiddenDir(id) {
				hidden = true
				return nil
			}
			if stopAtRoot && id == g.root {
				return nil
			}
			up, err := unix.Openat(at, "..", oPath|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				return err
			}
			var pst unix.Stat_t
			if err := unix.Fstat(up, &pst); err != nil {
				unix.Close(up)
				return err
			}
			if statID(&pst) == id { // "/" is its own parent
				unix.Close(up)
				return nil
			}
			if cur >= 0 {
				unix.Close(cur)
			}
			cur, at, st = up, up, pst
		}
		return errTooDeep
	})
	return hidden, err
}

var errTooDeep = errors.New("directory too deep")

// withFd calls fn with f's descriptor, keeping f open meanwhile.
func withFd(f *os.File, fn func(fd int) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}

// setRoot records the workspace root's identity, where walks stop, and
// says whether the root itself is inside a hidden directory (then every
// request is refused).
func (g *guard) setRoot(f *os.File) (bool, error) {
	st, err := f.Stat()
	if err != nil {
		return false, err
	}
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		g.root = fileID{dev: uint64(s.Dev), ino: uint64(s.Ino)}
	}
	return g.inside(f, false)
}

// hiddenInfo says whether fi, from Stat on a file opened relative to a
// checked directory, is a hidden directory or a hard link to a hidden
// file.
func (g *guard) hiddenInfo(fi fs.FileInfo) bool {
	s, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	id := fileID{dev: uint64(s.Dev), ino: uint64(s.Ino)}
	switch {
	case fi.IsDir():
		return g.isHiddenDir(id)
	case fi.Mode().IsRegular():
		return g.hiddenFile(id, uint64(s.Nlink))
	}
	return false
}

// entry describes the entry name of the open directory d for a listing
// (the entry itself: a link is not followed), and says whether it is
// hidden: a hidden directory, a hard link to a hidden file, or a symbolic
// link leading to either.
func (g *guard) entry(d *os.File, name string) (fs.FileInfo, bool, error) {
	var info statInfo
	hidden := false
	err := withFd(d, func(fd int) error {
		if err := unix.Fstatat(fd, name, &info.st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return err
		}
		info.name = name
		hidden = g.hiddenStat(&info.st)
		if !hidden && info.st.Mode&unix.S_IFMT == unix.S_IFLNK && len(g.dirs) > 0 {
			var t unix.Stat_t
			if unix.Fstatat(fd, name, &t, 0) == nil {
				hidden = g.hiddenStat(&t)
			}
		}
		return nil
	})
	return info, hidden, err
}

func (g *guard) hiddenStat(st *unix.Stat_t) bool {
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return g.isHiddenDir(statID(st))
	case unix.S_IFREG:
		return g.hiddenFile(statID(st), uint64(st.Nlink))
	}
	return false
}

// statInfo is an fs.FileInfo made from a unix.Stat_t.
type statInfo struct {
	name string
	st   unix.Stat_t
}

func (s statInfo) Name() string { return s.name }
func (s statInfo) Size() int64  { return s.st.Size }
func (s statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.st.Mode & 0o777)
	switch s.st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFREG:
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	default:
		m |= fs.ModeIrregular
	}
	return m
}
func (s statInfo) ModTime() time.Time {
	sec, nsec := s.st.Mtim.Unix()
	return time.Unix(sec, nsec)
}
func (s statInfo) IsDir() bool { return s.st.Mode&unix.S_IFMT == unix.S_IFDIR }
func (s statInfo) Sys() any    { return nil }

// The operations on a directory's entries, relative to its descriptor:
// the directory was opened through the os.Root and checked, and stays the
// one checked whatever happens to its name. The last component is never
// followed (O_NOFOLLOW): a link there was resolved before, so one found
// now was swapped in, and the call fails.

func openAt(d dirRef, name string, flag int, perm fs.FileMode) (*os.File, error) {
	var f *os.File
	err := withFd(d.f, func(fd int) error {
		nfd, err := unix.Openat(fd, name, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
		if err != nil {
			return &fs.PathError{Op: "open", Path: name, Err: err}
		}
		f = os.NewFile(uintptr(nfd), d.rel+"/"+name)
		return nil
	})
	return f, err
}

// statAt describes the entry name of d without following a link: its
// type and permission bits, and whether it is hidden (a hidden directory,
// or a hard link to a hidden file).
func (g *guard) statAt(d dirRef, name string) (fs.FileMode, bool, error) {
	var info statInfo
	err := withFd(d.f, func(fd int) error { return unix.Fstatat(fd, name, &info.st, unix.AT_SYMLINK_NOFOLLOW) })
	if err != nil {
		return 0, false, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	return info.Mode(), g.hiddenStat(&info.st), nil
}

func mkdirAt(d dirRef, name string, perm fs.FileMode) error {
	return withFd(d.f, func(fd int) error {
		if err := unix.Mkdirat(fd, name, uint32(perm.Perm())); err != nil {
			return &fs.PathError{Op: "mkdir", Path: name, Err: err}
		}
		return nil
	})
}

func renameAt(d dirRef, from, to string) error {
	return withFd(d.f, func(fd int) error {
		if err := unix.Renameat(fd, from, fd, to); err != nil {
			return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
		}
		return nil
	})
}

func removeAt(d dirRef, name string) error {
	return withFd(d.f, func(fd int) error { return unix.Unlinkat(fd, name, 0) })
}
