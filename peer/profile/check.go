package profile

import (
	"encoding/json"
	"errors"
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
	var hidden []string
	if dataDir != "" {
		hidden = []string{dataDir}
	}
	w, err := openWorkspace(root, hidden)
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
	// The data directory by the runner's own rule (Runner.Hidden): by
	// identity, on the way and at the end, links and all; and a link out
	// met after a directory a write would make.
	return w.reach(rel)
}

// DecodeWrite decodes an fs:write request's data as the runner does: the
// request and the bytes it would write. It fails (wrapping ErrBadRequest)
// where the runner fails.
func DecodeWrite(data json.RawMessage) (WriteRequest, []byte, error) {
	return decodeWrite(data)
}
