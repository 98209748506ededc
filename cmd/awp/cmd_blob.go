package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/localapi"
)

func runBlobs(e *env, args []string) error {
	return runList(e, args, "blobs", (*localapi.Client).Blobs, "REF\tDIR\tFROM\tTH\tNAME\tSIZE\tSTATUS", func(b peer.BlobInfo) []string {
		return []string{b.Ref, b.Dir, shortKey(b.From), b.Th, dash(b.Name), strconv.FormatInt(b.Size, 10), b.State()}
	})
}

func runBlob(e *env, args []string) error {
	if len(args) == 0 || args[0] != "get" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			args = []string{"get", "-h"} // blob has one verb: show its flags
		} else {
			return usagef("want `awp blob get`")
		}
	}
	fs := newFlags("blob get")
	from := fs.String("from", "", "the sender (a key, a key prefix or a peer's name); needed only when peers sent blobs with the same REF")
	out := fs.String("o", "", "write to FILE (default stdout)")
	pos, err := fs.parse(args[1:])
	if err != nil {
		return err
	}
	if err := nArgs(pos, 1, "REF"); err != nil {
		return err
	}
	ref := pos[0]
	c, err := e.client(fs)
	if err != nil {
		return err
	}
	var sender key.PublicKey
	if *from != "" {
		sender, err = resolveKey(e.ctx, c, "--from", *from)
	} else {
		sender, err = blobSender(e, c, ref)
	}
	if err != nil {
		return err
	}
	rc, info, err := c.OpenBlob(e.ctx, sender, ref)
	if err != nil {
		return e.wrap("blob get", err)
	}
	defer rc.Close()
	if !info.Complete || info.Corrupt {
		return fmt.Errorf("blob %s from %s is %s", info.Ref, info.From, info.State())
	}
	if *out == "" {
		return e.wrap("blob get", copyChecked(e.stdout, rc, info))
	}
	return e.wrap("blob get", writeFileChecked(*out, rc, info))
}

// blobSender finds who sent the received blob ref, for a `blob get`
// without --from: refs are unique per sender, so one sender is the answer
// and several are bad usage (the message lists them).
func blobSender(e *env, c *localapi.Client, ref string) (key.PublicKey, error) {
	blobs, err := c.Blobs(e.ctx)
	if err != nil {
		return key.PublicKey{}, e.wrap("blob get", err)
	}
	var from []key.PublicKey
	for _, b := range blobs {
		if b.Ref == ref && b.Dir != "out" && !slices.Contains(from, b.From) {
			from = append(from, b.From)
		}
	}
	switch len(from) {
	case 0:
		return key.PublicKey{}, fmt.Errorf("no blob %s was received (`awp blobs` lists them)", ref)
	case 1:
		return from[0], nil
	}
	short := make([]string, len(from))
	for i, k := range from {
		short[i] = shortKey(k)
	}
	return key.PublicKey{}, usagef("%d peers sent a blob %s (%s): give --from", len(from), ref, strings.Join(short, ", "))
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
