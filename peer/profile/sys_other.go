//go:build !unix && !windows

package profile

import (
	"os"
	"os/exec"
)

const (
	oDirectory = 0
	oNonblock  = 0
)

func setGroup(cmd *exec.Cmd) {}

// killGroup kills only the process itself: there are no process groups.
func killGroup(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
