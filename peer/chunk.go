package peer

import (
	"fmt"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// Receiving a blob (docs/protocol/blobs.md): the msg that announces it
// records it (announceBlobs), with its size counted against the sender's
// quota; its chunks follow in order of offset. A session's reader writes a
// chunk's bytes to the blob's file before the chunk's commit (chunkFile,
// rxBlobs; the chunk worker of rxchunk.go hashes them on the way), and the
// commit records them (storeChunk): the blob completes when its bytes
// match its sha256, and is marked corrupt otherwise. Sending and the API
// are blobs.go.

// announceBlobs records the blobs a received msg announces, so their chunks
// have somewhere to go. Each one's size counts in the sender's usage; the
// ones admit refused (in.refusedBlobs: ref → reason) are recorded corrupt
// with the reason, and answered too_large once for the msg.
func (n *Node) announceBlobs(tx *store.Tx, in *inLine, m *wire.Msg) error {
	peer, now := in.s.peer, in.now
	for _, p := range m.DecodeParts() {
		if p.K != wire.PartBlob || p.Ref == "" {
			continue
		}
		if _, ok := tx.Blob("in", peer, p.Ref); ok {
			continue
		}
		b := &store.Blob{Dir: "in", Peer: peer.String(), Ref: p.Ref, Th: m.Th, Name: p.Name, Mime: p.Mime,
			Size: p.Size, Sha256: p.Sha256, File: store.InBlobFile(peer, p.Ref), Created: now, Updated: now}
		why := in.refusedBlobs[p.Ref]
		if why == "" && p.Size > MaxBlobSize {
			why = store.ReasonTooLarge
		}
		if why != "" {
			b.Corrupt, b.Reason = true, why
			in.res.bad(wire.CodeTooLarge, "blob "+p.Ref+" refused: "+why)
		} else {
			b.Counted = true
			tx.AddUsage(peer, 0, p.Size)
		}
		if err := tx.PutBlob(b); err != nil {
			return err
		}
	}
	return nil
}

// storeChunk records a received chunk (lineHandlers). in.chunk says what
// the reader did with its bytes: whether they were written to the blob's
// file before the commit (a chunk that repeats bytes already received or
// on their way is not), their hash if it was computed ahead, and whether
// c.Data's buffer went back to the pool since.
func (n *Node) storeChunk(tx *store.Tx, in *inLine, c *wire.Chunk) error {
	peer, res, written := in.s.peer, &in.res, in.chunk.written
	b, ok := tx.Blob("in", peer, c.Ref)
	end := c.Off + int64(len(c.Data))
	if !ok {
		res.bad(wire.CodeBadRequest, "chunk for a blob no msg announced: "+c.Ref)
		in.unkept(store.InBlobFile(peer, c.Ref))
		return nil
	}
	wasCorrupt := b.Corrupt
	switch {
	case b.Complete && written:
		// Written into the file of a blob that completed while the chunk
		// was on its way (the reader could not tell): check the file again.
		if err := tx.Rewritten(b); err != nil {
			return err
		}
		if !b.Corrupt {
			return nil
		}
	case b.Corrupt:
		in.unkept(b.File)
		return nil
	case b.Complete:
		return nil
	case b.Size > MaxBlobSize:
		res.bad(wire.CodeTooLarge, "blob larger than this peer accepts")
		return nil
	case end > b.Size:
		if err := tx.MarkCorrupt(b, store.ReasonPastSize); err != nil {
			return err
		}
		res.bad(wire.CodeBadRequest, "chunk past the announced size")
	default:
		switch held := tx.BlobHolds(b, c.Off, end); {
		case written && held:
			// Written over bytes already hashed: the file decides at the end.
			if err := tx.Rewritten(b); err != nil {
				return err
			}
		case !written && !held:
			// The reader took it for a repeat of bytes on their way that
			// did not get stored after all (their line failed, or was a
			// duplicate): write them now, durable before this commit.
			if err := n.db.WriteBlobAt(b.File, c.Off, c.Data); err != nil {
				return err
			}
			n.commit.syncBeforeCommit(b.File)
		}
		data := c.Data
		if in.chunk.bufGone {
			data = nil
		}
		if err := tx.ApplyChunkHashed(b, c.Off, int64(len(c.Data)), data, c.End, in.now, in.chunk.pre); err != nil {
			return err
		}
		if b.Corrupt && b.Reason == store.ReasonFragmented {
			res.bad(wire.CodeBadRequest, fmt.Sprintf("blob %s: chunks out of order in more than %d pieces; marked corrupt", c.Ref, store.MaxBlobRanges))
		}
	}
	if b.Corrupt && !wasCorrupt {
		res.remove = append(res.remove, b.File) // nothing opens a corrupt blob's bytes
	}
	if err := tx.PutBlob(b); err != nil {
		return err
	}
	res.blob = blobInfo(b)
	return nil
}

// unkept notes that the reader may have written a chunk's bytes to file,
// which no blob keeps: none was announced (the reader took the chunk for
// one of a msg in the same batch), or it is corrupt (the commit that made
// it so, and removed its file, was on its way when the reader wrote, and
// that write made the file again). The file goes after the commit.
func (in *inLine) unkept(file string) {
	if in.chunk.written {
		in.res.remove = append(in.res.remove, file)
	}
}

// dupChunk handles a chunk whose line is a duplicate (already stored
// under its id) and whose bytes the reader wrote to the file anyway: over
// bytes the blob holds, the file decides the blob's sum
// (store.Tx.Rewritten); to a blob that keeps no file, the file goes.
func (n *Node) dupChunk(tx *store.Tx, in *inLine, c *wire.Chunk) error {
	peer := in.s.peer
	b, ok := tx.Blob("in", peer, c.Ref)
	switch {
	case !ok:
		in.unkept(store.InBlobFile(peer, c.Ref))
		return nil
	case b.Corrupt:
		in.unkept(b.File)
		return nil
	case !tx.BlobHolds(b, c.Off, c.Off+int64(len(c.Data))):
		return nil
	}
	if err := tx.Rewritten(b); err != nil {
		return err
	}
	return tx.PutBlob(b)
}

// chunkFile returns the blob file a chunk's bytes are to be written to
// before the commit ("" for none), and the blob's record as read now (nil
// if none yet). Bytes of a blob that is already complete or corrupt are
// not written, so a peer cannot change a finished blob, nor bytes the
// record already holds in order.
func (n *Node) chunkFile(peer key.PublicKey, c *wire.Chunk) (string, *store.Blob) {
	var b *store.Blob
	end := c.Off + int64(len(c.Data))
	var held bool
	_ = n.db.View(func(tx *store.Tx) error {
		if b, _ = tx.Blob("in", peer, c.Ref); b != nil {
			held = end > c.Off && tx.BlobHolds(b, c.Off, end)
		}
		return nil
	})
	if b != nil && (b.Complete || b.Corrupt || end > b.Size || held) {
		return "", b // storeInbound answers these
	}
	if b == nil && end > MaxBlobSize {
		return "", nil
	}
	// With no record yet, the msg announcing the blob is in this same batch:
	// the file name depends only on (peer, ref).
	return store.InBlobFile(peer, c.Ref), b
}

// rxBlobs is what one reader knows of the blobs whose chunks it is receiving,
// by ref: chunks come in order of off (docs/protocol/blobs.md), so after a
// blob's first chunk the reader knows where the next ones go without a look in
// the store, and which bytes are already on their way to the file: a chunk that
// repeats them is not written (one with other bytes would change the file
// behind the hash already taken; the commit answers the repeat). It holds at
// most maxRxBlobs blobs; a blob it forgot is looked up again, and a repeat it
// cannot see is caught at the commit (storeChunk: the file then decides the
// blob's sum).
type rxBlobs struct {
	m    map[string]*rxBlob
	tick uint64 // counts chunks, to find the blob least recently heard of
}

type rxBlob struct {
	file      string
	size      int64
	committed int64 // bytes the record held in order when it was read
	end       int64 // where the chunks handed on in order end
	used      uint64
}

// forget drops what rx knows of blob ref.
func (rx *rxBlobs) forget(ref string) { delete(rx.m, ref) }

// chunkFile is Node.chunkFile with what rx knows; looked says rec is the
// record as read now (false: rec is nil and nothing was read).
func (rx *rxBlobs) chunkFile(n *Node, peer key.PublicKey, c *wire.Chunk) (file string, rec *store.Blob, looked bool) {
	if rx.m == nil {
		rx.m = map[string]*rxBlob{}
	}
	rx.tick++
	end := c.Off + int64(len(c.Data))
	e := rx.m[c.Ref]
	switch {
	case e != nil && c.Off == e.end && end <= e.size:
		// The next chunk in order.
		e.end, e.used = end, rx.tick
		if end <= e.committed {
			return "", nil, false
		}
		return e.file, nil, false
	case e != nil && end <= e.end:
		// Bytes already on their way.
		e.used = rx.tick
		return "", nil, false
	}
	file, rec = n.chunkFile(peer, c)
	// Followed from here on: a blob's bytes from 0 to this chunk's end,
	// as far as they are held (the record's, in order) or on their way
	// (this reader's chain, or this chunk).
	follows := e != nil && c.Off == e.end
	starts := rec == nil && c.Off == 0 || rec != nil && !rec.Unordered && c.Off <= rec.Received
	if file == "" || (rec != nil && rec.Unordered) || !(follows || starts) {
		return file, rec, true
	}
	var size, committed int64 // a record not committed yet: size unknown, so the next chunk looks again
	if rec != nil {
		size, committed = rec.Size, rec.Received
	}
	if e == nil && len(rx.m) >= maxRxBlobs {
		var old string
		for ref, x := range rx.m {
			if old == "" || x.used < rx.m[old].used {
				old = ref
			}
		}
		delete(rx.m, old)
	}
	rx.m[c.Ref] = &rxBlob{file: file, size: size, committed: committed, end: end, used: rx.tick}
	return file, rec, true
}
