package main

import "syscall"

// childProcAttr makes a child die with the parent (no stray nodes left on
// a killed run).
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
