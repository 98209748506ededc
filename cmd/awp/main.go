// Command awp is the headless AWP peer (`awp run`) and the command-line
// client of a running peer (the tray app's or `awp run`'s), which it
// drives over DATA/awp.sock. ../shared/CLI.md is the contract; docs/cli.md
// records the defaults and choices.
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
