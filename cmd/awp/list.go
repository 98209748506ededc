package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/awp-tray/awp-tray/peer/localapi"
)

// runList is the shape the listing commands share: no positional
// arguments, --json prints the JSON array, otherwise a table with header
// (tab-separated columns) and one row per item.
func runList[T any](e *env, args []string, name string, fetch func(*localapi.Client, context.Context) ([]T, error), header string, row func(T) string) error {
	fs := newFlags(name)
	asJSON := fs.Bool("json", false, "print a JSON array")
	c, err := e.clientNoArgs(fs, args)
	if err != nil {
		return err
	}
	items, err := fetch(c, e.ctx)
	if err != nil {
		return e.wrap(name, err)
	}
	if *asJSON {
		return writeJSON(e.stdout, items)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for _, it := range items {
		fmt.Fprintln(tw, row(it))
	}
	return tw.Flush()
}
