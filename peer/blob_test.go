package peer

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/awp-tray/awp-tray/peer/wire"
)

func TestBlobTransfer(t *testing.T) {
	a := newTestNode(t, "a")
	b := newTestNode(t, "b")
	connect(t, a, b)
	for _, size := range []int{0, 1, 512 << 10, 3<<20 + 17} {
		data := make([]byte, size)
		rand.Read(data)
		p := filepath.Join(t.TempDir(), "f.bin")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		r, err := a.Send(context.Background(), SendRequest{To: b.Key().String(), Parts: []json.RawMessage{wire.TextPart("file")}, Blobs: []BlobFile{{Path: p}}})
		if err != nil {
			t.Fatal(err)
		}
		ls, _ := a.Lines(r.Th, "")
		var m wire.Msg
		json.Unmarshal(ls[0].Line, &m)
		ref := m.DecodeParts()[1].Ref
		eventually(t, "blob complete", func() bool {
			bs, _ := b.Blobs()
			for _, x := range bs {
				if x.Ref == ref && x.Complete {
					return true
				}
			}
			return false
		})
		rc, info, err := b.OpenBlob(a.Key().String(), ref)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(rc)
		rc.Close()
		sum := sha256.Sum256(data)
		if len(got) != size || hex.EncodeToString(sum[:]) != info.Sha256 || string(got) != string(data) {
			t.Fatalf("size %d: got %d bytes, sha %s", size, len(got), info.Sha256)
		}
	}
}
