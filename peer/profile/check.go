package profile

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Why CheckPath says a request's path would be refused, worded to follow
// "the path " in a prompt.
const (
	WhyOutside = "resolves outside the workspace"
	WhyDataDir = "is in this peer's data directory (its keys and store)"
	WhyNUL     = "holds a NUL character"
	WhyLoop    = "has too many levels of symbolic links"
)

// maxLinks bounds the symbolic links realIn follows for one path, as the
// kernel's ELOOP limit does (40 on Linux): a loop must not keep it busy.
const maxLinks = 40

// CheckPath says why a request naming path p (an fs path or an exec cwd)
// would be refused by a Runner whose Root is root, on a node whose data
// directory is dataDir, or "" when it would reach p. It applies the
// runner's rules to the file system as it is now: p's spelling as
// workspace.rel reads it (".." above the root, an absolute path elsewhere),
// symbolic links anywhere along the way, the last one too, resolved through
// an os.Root as the runner resolves them, and docs/protocol/profile.md's rule that the
// data directory is never reachable, even inside the workspace. It is for
// showing a person what will happen (the approval prompt); the runner
// checks again when the request runs, so a link changed in between does not
// lead out. A missing or unopenable root gives "" (the runner then fails
// every request alike, whatever the path).
func CheckPath(root, dataDir, p string) string {
	w, err := openWorkspace(root)
	if err != nil {
		return ""
	}
	defer w.close()
	if p == "" {
		p = "."
	}
	rel, e := w.rel(p)
	switch e {
	case "":
	case ErrNUL:
		return WhyNUL
	default:
		return WhyOutside
	}
	// Stat follows every link, the last one too: a replacing write goes
	// through a final link (resolveFinal), an append, a read and a cwd
	// open through it. A missing component is not a refusal (a write with
	// mkdir creates it).
	if _, err := w.root.Stat(rel); err != nil {
		switch {
		case isEscape(err):
			return WhyOutside
		case errors.Is(err, syscall.ELOOP):
			return WhyLoop
		}
	}
	if dataDir == "" {
		return ""
	}
	base, ok := realIn("/", absOr(root))
	if !ok {
		return ""
	}
	data, ok := realIn("/", absOr(dataDir))
	if !ok || !within(data, base) {
		return "" // the data directory is not in the workspace
	}
	target, ok := realIn(base, rel)
	switch {
	case !ok:
		return WhyLoop
	case !within(target, base):
		return WhyOutside // changed since the os.Root looked
	case within(target, data):
		return WhyDataDir
	}
	return ""
}

// DecodeWrite decodes an fs:write request's data as the runner does: the
// request and the bytes it would write. It fails (wrapping ErrBadRequest)
// where the runner fails.
func DecodeWrite(data json.RawMessage) (WriteRequest, []byte, error) {
	return decodeWrite(data)
}

// absOr is p made absolute, or p when that fails.
func absOr(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// within reports whether p is dir or beneath it (both clean and absolute).
func within(p, dir string) bool {
	if p == dir || dir == string(filepath.Separator) {
		return true
	}
	return strings.HasPrefix(p, dir+string(filepath.Separator))
}

// realIn resolves rel from the directory base (a real path) the way the
// kernel does, component by component: "." and ".." step as they say,
// symbolic links are followed (at most maxLinks; ok is false past that).
// From the first component that does not exist on, the rest is joined as
// written: what a write with mkdir would create holds no link. Each
// component costs one Lstat, so a long path costs linear time.
func realIn(base, rel string) (string, bool) {
	dest := base
	if filepath.IsAbs(rel) {
		dest = string(filepath.Separator)
	}
	links := 0
	missing := false
	for rel != "" {
		var comp string
		comp, rel, _ = strings.Cut(rel, string(filepath.Separator))
		switch comp {
		case "", ".":
			continue
		case "..":
			dest = filepath.Dir(dest)
			continue
		}
		next := filepath.Join(dest, comp)
		if missing {
			dest = next
			continue
		}
		fi, err := os.Lstat(next)
		switch {
		case err != nil:
			missing = true // errors.Is(err, fs.ErrNotExist), or not a directory, or too long
			dest = next
		case fi.Mode()&fs.ModeSymlink == 0:
			dest = next
		default:
			links++
			if links > maxLinks {
				return "", false
			}
			target, err := os.Readlink(next)
			if err != nil {
				missing = true
				dest = next
				continue
			}
			if filepath.IsAbs(target) {
				dest = string(filepath.Separator)
			}
			if rel != "" {
				target += string(filepath.Separator) + rel
			}
			rel = target
		}
	}
	return dest, true
}
