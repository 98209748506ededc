//go:build !linux

package profile

import (
	"errors"
	"os"
)

const bwrapSupported = false

type bwrapPlan struct {
	ws, cwd       string
	hidden        []string
	home, runtime string
	noNet         bool
}

func (p bwrapPlan) args(statusFD int) []string { return nil }

func realPath(p string) string { return p }

func dirPath(d *os.File) (string, error) { return "", errors.New("bubblewrap runs on Linux only") }
