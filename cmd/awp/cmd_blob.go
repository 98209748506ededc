package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/localapi"
)

var cmdBlobs = &command{
	name:    "blobs",
	usage:   "awp blobs [--data DIR] [--json]",
	summary: "lists blobs received and sent",
	run:     runBlobs,
}

var cmdBlob = &command{
	name:    "blob",
	usage:   "awp blob get [--data DIR] --from KEY [-o FILE] REF",
	summary: "writes a received blob to FILE (default stdout); exit 1 unless complete and intact",
	run:     runBlob,
}

func runBlobs(e *env, args []string) error {
	return runList(e, args, "blobs", (*localapi.Client).Blobs, "REF\tDIR\tFROM\tTH\tNAME\tSIZE\tSTATUS", func(b peer.BlobInfo) []string {
		return []string{b.Ref, b.Dir, shortKey(b.From), b.Th, dash(b.Name), strconv.FormatInt(b.Size, 10), blobStatus(b)}
	})
}

func blobStatus(b peer.BlobInfo) string {
	switch {
	case b.Corrupt:
		return "corrupt"
	case b.Complete:
		return "complete"
	}
	return fmt.Sprintf("%d/%d bytes", b.Received, b.Size)
}

func runBlob(e *env, args []string) error {
	if len(args) == 0 || args[0] != "get" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return flag.ErrHelp
		}
		return usagef("want `awp blob get`")
	}
	fs := newFlags("blob get")
	from := fs.String("from", "", "the sender's key (required)")
	out := fs.String("o", "", "write to FILE (default stdout)")
	pos, err := fs.parse(args[1:])
	if err != nil {
		return err
	}
	if *from == "" {
		return usagef("--from is required")
	}
	if err := checkKey("--from", *from); err != nil {
		return err
	}
	if err := nArgs(pos, 1, "REF"); err != nil {
		return err
	}
	c, err := e.client(fs)
	if err != nil {
		return err
	}
	rc, info, err := c.OpenBlob(e.ctx, *from, pos[0])
	if err != nil {
		return e.wrap("blob get", err)
	}
	defer rc.Close()
	if !info.Complete || info.Corrupt {
		return fmt.Errorf("blob %s from %s is %s", info.Ref, info.From, blobStatus(info))
	}
	if *out == "" {
		return e.wrap("blob get", copyChecked(e.stdout, rc, info))
	}
	return e.wrap("blob get", writeFileChecked(*out, rc, info))
}

// copyChecked copies the blob and fails unless the bytes match the
// announced size and digest.
func copyChecked(w io.Writer, r io.Reader, info peer.BlobInfo) error {
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(w, h), r)
	if err != nil {
		return fmt.Errorf("blob %s: %w", info.Ref, err)
	}
	if n != info.Size {
		return fmt.Errorf("blob %s: got %d bytes, want %d", info.Ref, n, info.Size)
	}
	if info.Sha256 != "" && hex.EncodeToString(h.Sum(nil)) != info.Sha256 {
		return fmt.Errorf("blob %s: sha256 mismatch", info.Ref)
	}
	return nil
}

// writeFileChecked writes the blob to a temporary file beside path and
// renames it into place only once it is checked: FILE never holds a
// partial or corrupt blob.
func writeFileChecked(path string, r io.Reader, info peer.BlobInfo) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), ".awp-blob-*")
	if err != nil {
		return fmt.Errorf("blob %s: %w", info.Ref, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := copyChecked(f, r, info); err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		return fmt.Errorf("blob %s: %w", info.Ref, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("blob %s: %w", info.Ref, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("blob %s: %w", info.Ref, err)
	}
	return nil
}
