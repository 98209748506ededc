package main

import (
	"fmt"
	"strings"
)

var cmdHelp = &command{
	name:    "help",
	usage:   "awp help [COMMAND]",
	summary: "prints this list, or one command's usage",
	run:     runHelp,
}

func runHelp(e *env, args []string) error {
	fs := newFlags("help")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	switch len(pos) {
	case 0:
		fmt.Fprint(e.stdout, topUsage())
		return nil
	case 1:
		c := lookup(pos[0])
		if c == nil {
			return usagef("unknown command %q", pos[0])
		}
		fmt.Fprintf(e.stdout, "usage: %s\n\n%s\n", c.usage, c.summary)
		return nil
	}
	return usagef("unexpected argument %q", pos[1])
}

// topUsage lists every command.
func topUsage() string {
	var b strings.Builder
	b.WriteString("usage: awp COMMAND [--data DIR] [FLAGS] [ARGS]\n\n")
	b.WriteString("The headless AWP peer and the command line of a running one.\n")
	b.WriteString("DIR defaults to $AWP_DATA, else the user config dir's awp/.\n\ncommands:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-8s %s\n", c.name, c.summary)
	}
	b.WriteString("\n`awp help COMMAND` or `awp COMMAND -h` shows a command's flags.\n")
	return b.String()
}
