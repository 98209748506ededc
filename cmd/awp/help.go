package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/awp-tray/awp-tray/internal/flaghelp"
)

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
			return usagef("unknown command %q%s", pos[0], suggest(pos[0]))
		}
		printHelp(e.stdout, c, flagsOf(c))
		return nil
	}
	return usagef("unexpected argument %q", pos[1])
}

// helpRequest is what parse returns for -h: flag.ErrHelp, with the flags
// of the command so that its help can list them.
type helpRequest struct{ fs *flagSet }

func (h *helpRequest) Error() string { return flag.ErrHelp.Error() }
func (h *helpRequest) Unwrap() error { return flag.ErrHelp }

// flagsOf returns the flags of c: it runs c with -h (every command parses
// its flags before it does anything else) and takes them from the answer.
// Nil when c has none to show.
func flagsOf(c *command) error {
	e := &env{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	args := []string{"-h"}
	if c.name == "blob" {
		args = []string{"get", "-h"}
	}
	return c.run(e, args)
}

// printHelp writes c's usage line, its summary and every flag with its
// description and default (err is the -h answer holding the flags).
func printHelp(w io.Writer, c *command, err error) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n", c.usage, c.summary)
	var h *helpRequest
	if !errors.As(err, &h) {
		return
	}
	flaghelp.Write(w, h.fs.FlagSet, metavar)
}

// metavar names a flag's value in help: what kind of thing it takes.
func metavar(f *flag.Flag) string {
	if m, ok := metavars[f.Name]; ok {
		return m
	}
	switch f.Value.(type) {
	case *durationValue:
		return "DURATION"
	}
	if strings.HasSuffix(f.Name, "-file") {
		return "FILE"
	}
	if strings.HasSuffix(f.Name, "-timeout") || f.Name == "offset" || f.Name == "length" {
		return "N"
	}
	return strings.ToUpper(f.Name)
}

// metavars are the value names of flags whose name does not say it.
var metavars = map[string]string{
	"data": "DIR", "workspace": "DIR", "cwd": "DIR",
	"to": "KEY", "from": "KEY", "on": "KEY", "trust": "KEY", "mirror-to": "KEY",
	"listen": "ADDR", "dial": "ADDR", "th": "TH", "re": "ID",
	"o": "FILE", "blob": "FILE", "grant": "FILE",
	"keyring": "keyring|file", "accept": "any|known|trusted", "presence": "full|peers|none",
	"approve": "deny|ask", "caps": "C[,C…]", "env": "K=V", "data-json": "JSON", "mime": "MIME",
	"tailcat-relay": "RELAY", "text": "TEXT", "lang": "LANG",
	"exec-sandbox": "auto|bwrap|none", "keep-threads": "DURATION|off", "keep-blobs": "DURATION|off",
	"harness": "NAME", "model": "NAME", "about": "TEXT", "note": "TEXT", "reason": "TEXT", "subject": "TEXT",
}

// topUsage lists every command.
func topUsage() string {
	var b strings.Builder
	b.WriteString("usage: awp COMMAND [--data DIR] [FLAGS] [ARGS]\n\n")
	b.WriteString("The headless AWP peer and the command line of a running one.\n")
	b.WriteString("DIR defaults to $AWP_DATA, else the user config dir's awp/; --data may also come\nbefore COMMAND (awp --data DIR threads).\n\ncommands:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-10s %s\n", c.name, c.summary)
	}
	b.WriteString("\n`awp help COMMAND` or `awp COMMAND -h` shows a command's flags; `awp --version` the version.\n")
	return b.String()
}

// suggest is ` (did you mean "X"?)` for the command nearest to name, or ""
// when none is near: the first command name starts with (two letters or
// more), else the nearest one at most a third of name's length of edits
// away (one at least: a typo or two swapped letters).
func suggest(name string) string {
	if len(name) >= 2 {
		for _, c := range commands {
			if strings.HasPrefix(c.name, name) {
				return fmt.Sprintf(" (did you mean %q?)", c.name)
			}
		}
	}
	best, bestD := "", max(1, len(name)/3)+1
	for _, c := range commands {
		if d := editDistance(name, c.name); d < bestD {
			best, bestD = c.name, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// editDistance is the number of single-byte insertions, deletions,
// substitutions and swaps of neighbours that turn a into b (the optimal
// string alignment distance; command names are ASCII).
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
