package peer

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer/transport/transporttest"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// TestCloseLeavesNoGoroutines runs a busy node pair over tcp and wg (msgs,
// a blob, presence, a pending approval) and checks that Close ends every
// goroutine the nodes started.
func TestCloseLeavesNoGoroutines(t *testing.T) {
	for _, binding := range []string{"tcp", "wg"} {
		t.Run(binding, func(t *testing.T) {
			transporttest.NoLeaks(t)
			a, b := pairOver(t, binding)
			r := sendText(t, a, b.Key(), "", "hi")
			p := filepath.Join(t.TempDir(), "f")
			os.WriteFile(p, make([]byte, 700<<10), 0o600)
			if _, err := a.Send(context.Background(), SendRequest{To: b.Key(), Th: r.Th, Parts: []json.RawMessage{wire.TextPart("f")}, Blobs: []BlobFile{{Path: p}}}); err != nil {
				t.Fatal(err)
			}
			// A request waiting for a decision when the node closes.
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				a.Request(ctx, b.Key(), "application/vnd.awp.exec+json", json.RawMessage(`{"cmd":"true"}`), "")
			}()
			testsync.Eventually(t, "approval pending", func() bool { return len(b.Pending()) == 1 })
			testsync.Eventually(t, "blob complete", func() bool {
				bs, _ := b.Blobs()
				return len(bs) == 1 && bs[0].Complete
			})
			b.publishPresence()
			a.Close()
			b.Close()
		})
	}
}

// TestWriteQueueGivesBackLines: the pooled chunk-line buffers of a session
// that ends with lines still queued go back to the pool (a warm one would
// otherwise be lost for good): those queued when the writer stops, and one
// pushed after the queue closed.
func TestWriteQueueGivesBackLines(t *testing.T) {
	lineBufs.Warm(maxLineBufs)
	before := lineBufs.Len()
	var q writeQueue
	q.init(writeLimit, nil)
	for range 3 {
		if err := q.pushLine(qline{b: append(getLineBuf(), "{}"...), pooled: true}); err != nil {
			t.Fatal(err)
		}
	}
	if got := lineBufs.Len(); got != before-3 {
		t.Fatalf("pool holds %d with three lines queued, want %d", got, before-3)
	}
	q.drop()
	if err := q.pushLine(qline{b: getLineBuf(), pooled: true}); err != errQueueClosed {
		t.Fatalf("push after drop: %v, want errQueueClosed", err)
	}
	if got := lineBufs.Len(); got != before {
		t.Fatalf("pool holds %d after the queue was dropped, want %d", got, before)
	}
}
