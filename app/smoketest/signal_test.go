//go:build smoke

package smoketest

import "syscall"

// sigterm asks the tray to quit; Fyne turns it into a clean Quit.
var sigterm = syscall.SIGTERM
