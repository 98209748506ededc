package main

import (
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/awp-tray/awp-tray/peer"
)

// buildInfo is what `awp version --json` prints.
type buildInfo struct {
	Version  string `json:"version"`            // the software's version (peer.Version, also in presence)
	Commit   string `json:"commit,omitempty"`   // the git commit built, when go build recorded it
	Time     string `json:"time,omitempty"`     // that commit's time
	Modified bool   `json:"modified,omitempty"` // the tree had changes not committed
	Go       string `json:"go"`                 // the Go toolchain and platform
}

// readBuildInfo reads the version and what `go build` recorded of the
// checkout (vcs.revision, vcs.time, vcs.modified).
func readBuildInfo() buildInfo {
	b := buildInfo{Version: peer.Version, Go: runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// String is the one line `awp --version` prints.
func (b buildInfo) String() string {
	s := "awp " + b.Version
	var extra []string
	if b.Commit != "" {
		c := b.Commit[:min(12, len(b.Commit))]
		if b.Modified {
			c += "+modified"
		}
		extra = append(extra, "commit "+c)
	}
	if b.Time != "" {
		extra = append(extra, b.Time)
	}
	extra = append(extra, b.Go)
	return s + " (" + strings.Join(extra, ", ") + ")"
}

func runVersion(e *env, args []string) error {
	fs := newFlags("version")
	asJSON := fs.jsonFlag(false)
	if err := fs.parseNoArgs(args); err != nil {
		return err
	}
	b := readBuildInfo()
	return e.answer(*asJSON, b, b.String())
}
