package peer

import (
	"fmt"
	"os"
	"strings"

	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// sendBatch is how many outbox entries the sender reads per transaction.
const sendBatch = 512

// sendLoop walks the peer's outbox in order: first the replay the peer's
// resume asks for, then whatever is queued later, so nothing new overtakes
// the replay and per-thread order holds.
func (s *session) sendLoop() {
	n := s.n
	// Lines received before the resume (tolerated) are handled first.
	for _, f := range s.early {
		s.handle(f)
	}
	s.early = nil
	seen := map[string]string{}
	for th, id := range s.resume.Seen {
		seen[th] = strings.ToUpper(id)
	}
	hasBlob := s.hello.HasCap("blob")
	hasMirror := s.hello.HasCap("mirror")
	sig := n.outSignal(s.peer)
	files := map[string]*os.File{}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	var cursor uint64
	for {
		var outs []store.Out
		err := n.db.View(func(tx *store.Tx) error {
			var err error
			outs, err = tx.Outbox(s.peer, cursor, sendBatch)
			return err
		})
		if err != nil {
			n.log.Error("outbox read", "peer", s.peer.Short(), "err", err)
		}
		if len(outs) == 0 {
			select {
			case <-sig:
				continue
			case <-s.ctx.Done():
				return
			}
		}
		var drop []store.Out
		for _, o := range outs {
			cursor = o.Seq
			if id, ok := seen[o.Th]; ok && strings.ToUpper(o.ID) <= id {
				continue
			}
			if (o.Chunk != nil && !hasBlob) || (o.Mirror && !hasMirror) {
				drop = append(drop, o)
				continue
			}
			b := o.Raw
			if b == nil && o.Chunk == nil {
				n.log.Error("queued line no longer in its thread; dropped", "peer", s.peer.Short(), "th", o.Th, "id", o.ID)
				drop = append(drop, o)
				continue
			}
			if o.Chunk != nil {
				b, err = n.chunkLine(files, o)
				if err != nil {
					n.log.Error("blob chunk unreadable; dropped", "peer", s.peer.Short(), "ref", o.Chunk.Ref, "err", err)
					drop = append(drop, o)
					continue
				}
			}
			if err := s.wq.push(b); err != nil {
				return
			}
		}
		if len(drop) > 0 {
			peer := s.peer
			_ = n.commit.submit(&op{fn: func(tx *store.Tx) error {
				for _, o := range drop {
					if err := tx.DropOutbox(peer, o); err != nil {
						return err
					}
				}
				return nil
			}})
		}
	}
}

// chunkLine builds a chunk line from its blob file at send time.
func (n *Node) chunkLine(files map[string]*os.File, o store.Out) ([]byte, error) {
	c := o.Chunk
	f := files[c.File]
	if f == nil {
		var err error
		f, err = os.Open(n.db.Path(c.File))
		if err != nil {
			return nil, err
		}
		if len(files) > 8 {
			for k, old := range files {
				old.Close()
				delete(files, k)
			}
		}
		files[c.File] = f
	}
	data := make([]byte, c.Len)
	if _, err := f.ReadAt(data, c.Off); err != nil {
		return nil, fmt.Errorf("read %s at %d: %w", c.File, c.Off, err)
	}
	return wire.Encode(wire.NewChunk(o.ID, c.TS, o.Th, c.Ref, c.Off, data, c.End))
}
