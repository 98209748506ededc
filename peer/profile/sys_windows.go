//go:build windows

package profile

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

const (
	oDirectory = 0
	oNonblock  = 0
)

// createNoWindow keeps a console program the tray app runs from opening a
// console window of its own (the tray app has none to share).
const createNoWindow = 0x08000000

// setGroup starts the child in a process group of its own (a Ctrl+C meant
// for awp's console does not reach it) and without a console window.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP | createNoWindow}
}

// killGroup kills the process and every process it started (taskkill /T
// follows the parent links); if taskkill cannot, the process alone.
func killGroup(pid int) error {
	tk := exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(pid))
	tk.SysProcAttr = &syscall.SysProcAttr{CreationFlags: createNoWindow}
	if tk.Run() == nil {
		return nil
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
