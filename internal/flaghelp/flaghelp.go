// Package flaghelp writes the flags of a command for -h, as awp and
// awp-tray show them: a line per flag, "--name VALUE" and its description
// with its default, aligned.
//
// It owns that layout only; each command names its values (metavar) and
// writes its own synopsis and summary. It must not import anything of
// this module's: awp builds without cgo, awp-tray with Fyne.
package flaghelp

import (
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
)

// Write writes a "flags:" heading and a line per flag of fs, in name
// order: its Synopsis and its Description. metavar names a flag's value.
func Write(w io.Writer, fs *flag.FlagSet, metavar func(*flag.Flag) string) {
	fmt.Fprint(w, "\nflags:\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fs.VisitAll(func(f *flag.Flag) {
		fmt.Fprintf(tw, "  %s\t%s\n", Synopsis(f, metavar), Description(f))
	})
	tw.Flush()
}

// Synopsis is "--name VALUE", VALUE being metavar(f). A boolean flag has
// no value ("--name"; "--name=true|false" when it defaults to true), and a
// one-letter flag takes one dash.
func Synopsis(f *flag.Flag, metavar func(*flag.Flag) string) string {
	dash := "--"
	if len(f.Name) == 1 {
		dash = "-"
	}
	if IsBool(f) {
		if f.DefValue == "true" {
			return dash + f.Name + "=true|false"
		}
		return dash + f.Name
	}
	return dash + f.Name + " " + metavar(f)
}

// Description is the flag's usage and, unless its default is the zero
// value, "(default D)" after it.
func Description(f *flag.Flag) string {
	switch f.DefValue {
	case "", "false", "0", "0s", "[]":
		return f.Usage
	}
	return f.Usage + " (default " + f.DefValue + ")"
}

// IsBool reports whether f is a boolean flag, which takes no value.
func IsBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
