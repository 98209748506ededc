package peer

import (
	"encoding/hex"
	"fmt"
	"io"
	"mime"
	"os"
	"path/filepath"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

func blobInfo(b *store.Blob) *BlobInfo {
	bi := &BlobInfo{Ref: b.Ref, From: storedKey(b.Peer), Th: b.Th, Name: b.Name, Mime: b.Mime, Size: b.Size,
		Received: b.Received, Complete: b.Complete, Corrupt: b.Corrupt, Reason: b.Reason, Sha256: b.Sha256, Dir: b.Dir,
		ReceivedAt: wire.FormatTime(b.Updated)}
	if b.Dir == "out" {
		bi.Received = b.Size
	}
	return bi
}

// Blobs lists blobs received and sent.
func (n *Node) Blobs() ([]BlobInfo, error) {
	out := []BlobInfo{}
	err := n.db.View(func(tx *store.Tx) error {
		tx.Blobs(func(b *store.Blob) bool {
			out = append(out, *blobInfo(b))
			return true
		})
		return nil
	})
	return out, err
}

// OpenBlob opens a received blob's bytes; only a complete, intact blob opens.
// from is the sender's key (this node's own for a blob it sent).
func (n *Node) OpenBlob(from key.PublicKey, ref string) (io.ReadCloser, BlobInfo, error) {
	k := from
	if k.IsZero() {
		return nil, BlobInfo{}, fmt.Errorf("%w: no key", ErrBadKey)
	}
	var b *store.Blob
	_ = n.db.View(func(tx *store.Tx) error {
		var ok bool
		if b, ok = tx.Blob("in", k, ref); !ok {
			if k == n.pub {
				// My own sent blobs are addressed by my key.
				tx.Blobs(func(x *store.Blob) bool {
					if x.Dir == "out" && x.Ref == ref {
						b = x
						return false
					}
					return true
				})
			}
		}
		return nil
	})
	if b == nil {
		return nil, BlobInfo{}, fmt.Errorf("%w: %s from %s", ErrNoBlob, ref, k.Short())
	}
	info := blobInfo(b)
	if !b.Complete || b.Corrupt {
		return nil, *info, fmt.Errorf("%w: %s is %s", ErrNoBlob, ref, info.State())
	}
	f, err := os.Open(n.db.Path(b.File))
	if err != nil {
		return nil, *info, fmt.Errorf("peer: open blob: %w", err)
	}
	return f, *info, nil
}

// stagedBlob is a local file copied into the blob store before its msg commits.
type stagedBlob struct {
	ref, name, mime, sha string
	size                 int64
	file                 string
}

// stageBlob copies a local file into the data directory (so later changes to
// the original cannot corrupt what is sent), hashing and fsyncing it.
func (n *Node) stageBlob(bf BlobFile) (*stagedBlob, error) {
	src, err := os.Open(bf.Path)
	if err != nil {
		return nil, fmt.Errorf("peer: blob: %w", err)
	}
	defer src.Close()
	st, err := src.Stat()
	if err != nil {
		return nil, fmt.Errorf("peer: blob: %w", err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("peer: blob: %s is a directory", bf.Path)
	}
	ref := "blob_" + wire.NewNonce(12)
	rel := store.OutBlobFile(ref)
	abs := n.db.Path(rel)
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("peer: blob: %w", err)
	}
	dst, err := os.OpenFile(abs, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("peer: blob: %w", err)
	}
	name := bf.Name
	if name == "" {
		name = filepath.Base(bf.Path)
	}
	// The first lookup loads the system's MIME tables (a few ms): alongside
	// the copy, which waits for the disk.
	mimeType := make(chan string, 1)
	go func() { mimeType <- blobMime(bf.Mime, name) }()
	size, sum, err := store.CopySync(dst, src)
	mt := <-mimeType
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(abs)
		return nil, fmt.Errorf("peer: blob %s: %w", bf.Path, err)
	}
	return &stagedBlob{ref: ref, name: name, mime: mt, sha: hex.EncodeToString(sum[:]), size: size, file: rel}, nil
}

// blobMime is the MIME type given, else the one name's extension implies,
// else application/octet-stream.
func blobMime(given, name string) string {
	if given != "" {
		return given
	}
	if mt := mime.TypeByExtension(filepath.Ext(name)); mt != "" {
		return mt
	}
	return "application/octet-stream"
}

// queueBlob records a staged blob and queues its chunks after the msg that
// announces it (inside the msg's transaction).
func (n *Node) queueBlob(tx *store.Tx, to key.PublicKey, th string, sb *stagedBlob, now time.Time) error {
	b := &store.Blob{Dir: "out", Peer: to.String(), Ref: sb.ref, Th: th, Name: sb.name, Mime: sb.mime,
		Size: sb.size, Sha256: sb.sha, Received: sb.size, Complete: true, File: sb.file, Created: now, Updated: now}
	if err := tx.PutBlob(b); err != nil {
		return err
	}
	ts := wire.FormatTime(now)
	off := int64(0)
	for {
		l := min(int64(wire.MaxChunkData), sb.size-off)
		end := off+l >= sb.size
		o := store.Out{Th: th, ID: n.ids.New(), Chunk: &store.ChunkRef{TS: ts, Ref: sb.ref, File: sb.file, Off: off, Len: l, End: end}}
		n.commit.noteID(o.ID)
		if _, err := tx.AppendOutbox(to, o); err != nil {
			return err
		}
		off += l
		if end {
			return nil
		}
	}
}
