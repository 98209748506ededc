package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/awp-tray/awp-tray/internal/bytesize"
	"github.com/awp-tray/awp-tray/peer/localapi"
	"github.com/awp-tray/awp-tray/peer/store"
)

// compactReport is how often `awp compact` reports its progress on stderr.
const compactReport = time.Second

// runCompact compacts DIR/awp.db (store.Compact). It refuses while a peer
// runs on DIR: the copy needs the store to itself, and a peer that must be
// stopped is clearer than a node stalled for the length of a copy. Progress
// goes to stderr; --json prints the result on stdout.
func runCompact(e *env, args []string) error {
	fs := newFlags("compact")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := fs.parseNoArgs(args); err != nil {
		return err
	}
	dir, err := e.dataDir(fs.data)
	if err != nil {
		return err
	}
	running := fmt.Errorf("a peer is running on %s: stop it first (compact needs the store to itself)", dir)
	// A running peer answers on its socket: say so before touching the
	// store (the store's lock is what really keeps the two apart).
	if answers(localapi.SocketPath(dir)) {
		return running
	}
	var last time.Time
	res, err := store.Compact(dir, func(p store.CompactProgress) {
		switch {
		case p.Keys == 0:
			fmt.Fprintf(e.stderr, "compacting %s/awp.db: %s, %d keys\n", dir, bytesize.Format(p.SrcBytes), p.TotalKeys)
			last = time.Now()
		case time.Since(last) >= compactReport || p.Keys == p.TotalKeys:
			pct := 100.0
			if p.TotalKeys > 0 {
				pct = 100 * float64(p.Keys) / float64(p.TotalKeys)
			}
			fmt.Fprintf(e.stderr, "  %3.0f%%  %d of %d keys, %s copied\n", pct, p.Keys, p.TotalKeys, bytesize.Format(p.Bytes))
			last = time.Now()
		}
	})
	switch {
	case errors.Is(err, store.ErrAlreadyRunning):
		return running
	case err != nil:
		return err
	}
	saved := 0.0
	if res.SrcBytes > 0 {
		saved = 100 * float64(res.SrcBytes-res.DstBytes) / float64(res.SrcBytes)
	}
	fmt.Fprintf(e.stderr, "done in %.1f s: %s -> %s (%.0f%% smaller)\n", res.Took.Seconds(),
		bytesize.Format(res.SrcBytes), bytesize.Format(res.DstBytes), saved)
	if *asJSON {
		return writeJSON(e.stdout, struct {
			Keys    int64   `json:"keys"`
			Before  int64   `json:"bytes_before"`
			After   int64   `json:"bytes_after"`
			Seconds float64 `json:"seconds"`
			DataDir string  `json:"data"`
		}{res.Keys, res.SrcBytes, res.DstBytes, res.Took.Seconds(), dir})
	}
	return nil
}
