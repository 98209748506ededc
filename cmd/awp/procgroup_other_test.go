//go:build !unix

package main

import (
	"os/exec"
	"syscall"
)

// ownGroup: no process groups here.
func ownGroup(cmd *exec.Cmd) {}

// signalGroup kills the process itself (the only signal there is).
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) { _ = cmd.Process.Kill() }
