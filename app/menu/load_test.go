package menu

import (
	"bytes"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/awp-tray/awp-tray/peer"
)

// source is a Source that counts its calls and fails where told.
type source struct {
	threads        []peer.ThreadInfo
	peers          []peer.PeerInfo
	pending        []peer.ApprovalRequest
	errT, errP     error
	callsT, callsP int
	callsPending   int
}

func (s *source) Threads() ([]peer.ThreadInfo, error) { s.callsT++; return s.threads, s.errT }
func (s *source) Peers() ([]peer.PeerInfo, error)     { s.callsP++; return s.peers, s.errP }
func (s *source) Pending() []peer.ApprovalRequest     { s.callsPending++; return s.pending }

func TestLoadApply(t *testing.T) {
	old := State{
		Err:     "kept",
		Threads: []peer.ThreadInfo{{Th: "thr_old"}},
		Peers:   []peer.PeerInfo{{Key: aliceK, Name: "alice"}},
		Pending: []peer.ApprovalRequest{{ID: "apr_old"}},
		Self:    meK,
	}
	src := &source{
		threads: []peer.ThreadInfo{{Th: "thr_new", Unread: 2}},
		peers:   []peer.PeerInfo{{Key: bobK, Name: "bob", Up: true}},
		pending: []peer.ApprovalRequest{{ID: "apr_new"}},
	}

	t.Run("all parts", func(t *testing.T) {
		s := old
		Load(src, PartAll, nil).Apply(&s)
		want := old
		want.Booted, want.Threads, want.Peers, want.Pending = true, src.threads, src.peers, src.pending
		if !reflect.DeepEqual(s, want) {
			t.Fatalf("state = %+v, want %+v", s, want)
		}
	})

	t.Run("only the parts named are read and changed", func(t *testing.T) {
		*src = source{threads: src.threads, peers: src.peers, pending: src.pending}
		s := old
		r := Load(src, PartPending, nil)
		r.Apply(&s)
		if src.callsT != 0 || src.callsP != 0 || src.callsPending != 1 {
			t.Fatalf("calls: threads %d, peers %d, pending %d; want 0, 0, 1", src.callsT, src.callsP, src.callsPending)
		}
		if !s.Booted || !reflect.DeepEqual(s.Threads, old.Threads) || !reflect.DeepEqual(s.Peers, old.Peers) || !reflect.DeepEqual(s.Pending, src.pending) {
			t.Fatalf("state = %+v", s)
		}
	})

	t.Run("a part that fails keeps its value and is logged", func(t *testing.T) {
		src.errT, src.errP = errors.New("db: closed"), errors.New("peers: broken")
		var logs bytes.Buffer
		s := old
		r := Load(src, PartThreads|PartPeers, slog.New(slog.NewTextHandler(&logs, nil)))
		if r.ErrThreads != src.errT || r.ErrPeers != src.errP {
			t.Fatalf("errors = %v, %v", r.ErrThreads, r.ErrPeers)
		}
		r.Apply(&s)
		if !reflect.DeepEqual(s.Threads, old.Threads) || !reflect.DeepEqual(s.Peers, old.Peers) {
			t.Fatalf("a failed read changed the state: %+v", s)
		}
		if !s.Booted {
			t.Fatal("not Booted after a Load the node answered")
		}
		for _, w := range []string{"msg=threads err=\"db: closed\"", "msg=peers err=\"peers: broken\""} {
			if !strings.Contains(logs.String(), w) {
				t.Errorf("log lacks %s:\n%s", w, logs.String())
			}
		}
	})
}
