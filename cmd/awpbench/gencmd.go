package main

// The "gen" subcommand, and the gen.json beside the data directory it
// makes (read back by -scale-data).

import (
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
)

// genMain is the "gen" subcommand: it writes figure 5's data directory
// (or -quick's) to -data, for profiling and trying the store by hand; the
// identity's seed (hex, as `awpbench node --key` reads it) goes to
// DIR/gen.seed.
func genMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("awpbench gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("data", "", "data directory to create (must not hold a store)")
	quick := fs.Bool("quick", false, "-quick's sizes")
	spec := genFull
	fs.IntVar(&spec.Lines, "lines", 0, "lines (default figure 5's)")
	fs.IntVar(&spec.Threads, "threads", 0, "threads (default figure 5's)")
	fs.Int64Var(&spec.BlobBytes, "blob-bytes", -1, "bytes of blobs (default figure 5's)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *dir == "" {
		fmt.Fprintln(stderr, "awpbench gen: -data is required")
		return 2
	}
	base := genFull
	if *quick {
		base = genQuick
	}
	if spec.Lines == 0 {
		spec.Lines = base.Lines
	}
	if spec.Threads == 0 {
		spec.Threads = base.Threads
	}
	if spec.BlobBytes < 0 {
		spec.BlobBytes = base.BlobBytes
	}
	spec.Peers = base.Peers
	if _, err := os.Stat(filepath.Join(*dir, "awp.db")); err == nil {
		fmt.Fprintf(stderr, "awpbench gen: %s already holds a store\n", *dir)
		return 1
	}
	res, err := generate(*dir, spec, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "awpbench gen:", err)
		return 1
	}
	if err := os.WriteFile(filepath.Join(*dir, "gen.seed"), []byte(hex.EncodeToString(res.Key.Seed())+"\n"), 0o600); err != nil {
		fmt.Fprintln(stderr, "awpbench gen:", err)
		return 1
	}
	if err := writeGenInfo(*dir, res); err != nil {
		fmt.Fprintln(stderr, "awpbench gen:", err)
		return 1
	}
	fmt.Fprintf(stdout, "{\"largest\":%q,\"largest_lines\":%d,\"key\":%q}\n", res.Largest, res.LargestN, res.Key.Public().String())
	return 0
}

// genInfo is DIR/gen.json: what `awpbench -scale-data DIR` needs to know
// of a directory made by `awpbench gen` (its key is in DIR/gen.seed).
type genInfo struct {
	Largest   string  `json:"largest"`
	LargestN  int     `json:"largest_lines"`
	Lines     int     `json:"lines"`
	Threads   int     `json:"threads"`
	Blobs     int     `json:"blobs"`
	BlobBytes int64   `json:"blob_bytes"`
	TookS     float64 `json:"took_s"` // how long the generator took
}

func writeGenInfo(dir string, res genResult) error {
	b, err := json.Marshal(genInfo{Largest: res.Largest, LargestN: res.LargestN, Lines: res.Lines, Threads: res.Threads,
		Blobs: res.Blobs, BlobBytes: res.BlobBytes, TookS: res.Took.Seconds()})
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "gen.json"), b, 0o600)
}

// readGen loads a directory made by `awpbench gen`.
func readGen(dir string) (genResult, error) {
	var res genResult
	var gi genInfo
	b, err := os.ReadFile(filepath.Join(dir, "gen.json"))
	if err == nil {
		err = json.Unmarshal(b, &gi)
	}
	if err != nil {
		return res, fmt.Errorf("%s: not made by awpbench gen: %w", dir, err)
	}
	seed, err := os.ReadFile(filepath.Join(dir, "gen.seed"))
	if err != nil {
		return res, err
	}
	raw, err := hex.DecodeString(strings.TrimSpace(string(seed)))
	if err != nil {
		return res, err
	}
	if res.Key, err = key.FromSeed(raw); err != nil {
		return res, err
	}
	res.Largest, res.LargestN, res.Lines, res.Threads, res.Blobs, res.BlobBytes = gi.Largest, gi.LargestN, gi.Lines, gi.Threads, gi.Blobs, gi.BlobBytes
	res.Took = time.Duration(gi.TookS * float64(time.Second))
	if fi, err := os.Stat(filepath.Join(dir, "awp.db")); err == nil {
		res.DBBytes = fi.Size()
	}
	return res, nil
}
