package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/awp-tray/awp-tray/peer/localapi"
)

// runList is the shape the listing commands share: no positional
// arguments, --json prints the JSON array, otherwise a table with header
// (tab-separated columns) and one row of cells per item. Each cell goes
// through terminalText: names, subjects and states come from peers, and a
// tab, newline or escape sequence in one must not move a column, forge a
// row or act on the terminal.
func runList[T any](e *env, args []string, name string, fetch func(*localapi.Client, context.Context) ([]T, error), header string, row func(T) []string) error {
	fs := newFlags(name)
	asJSON := fs.jsonFlag(false)
	items, err := askPeer(e, fs, args, name, fetch)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, items)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for _, it := range items {
		cells := row(it)
		for i, c := range cells {
			cells[i] = terminalText(c)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}
