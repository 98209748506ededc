//go:build unix

package profile

import (
	"os/exec"
	"syscall"
)

// oDirectory makes an open fail unless the path is a directory.
const oDirectory = syscall.O_DIRECTORY

// oNonblock keeps an open of a FIFO or device from blocking.
const oNonblock = syscall.O_NONBLOCK

// setGroup puts the child in a process group of its own so a timeout can
// kill it with everything it started.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the process group led by pid.
func killGroup(pid int) error {
	return syscall.Kill(-pid, syscall.SIGKILL)
}
