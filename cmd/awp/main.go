// Command awp is the headless AWP peer (`awp run`) and the command-line
// client of a running peer (the tray app's or `awp run`'s), which it
// drives over DATA/awp.sock. docs/protocol/cli.md is the contract; docs/cli.md
// records the defaults and choices.
//
// It owns the command line's surface (commands, flags, output, exit
// statuses, completion) and `awp run`'s wiring of a node. Commands other
// than id and run must reach the node only through the local API; it must
// not import Fyne (it builds with CGO_ENABLED=0).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runMain(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}
