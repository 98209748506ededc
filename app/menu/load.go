package menu

import (
	"log/slog"

	"github.com/awp-tray/awp-tray/peer"
)

// Parts names the parts of a State that Load reads from the node.
type Parts uint8

const (
	PartThreads Parts = 1 << iota // the thread list and its unread counts
	PartPeers                     // the peers, and who is up
	PartPending                   // the requests waiting for a decision
	PartAll     = PartThreads | PartPeers | PartPending
)

// Source is what Load reads: the node's methods behind the menu
// (localapi.Backend has them).
type Source interface {
	Threads() ([]peer.ThreadInfo, error)
	Peers() ([]peer.PeerInfo, error)
	Pending() []peer.ApprovalRequest
}

// Read is what one Load read. The tray process and the windows each keep
// a State and bring it up to date with Load and Apply.
type Read struct {
	Parts   Parts
	Threads []peer.ThreadInfo
	Peers   []peer.PeerInfo
	Pending []peer.ApprovalRequest
	// ErrThreads and ErrPeers say why a part could not be read: Apply
	// then keeps what the State had, so a failed read never empties a
	// list a person is looking at.
	ErrThreads, ErrPeers error
}

// Load reads the parts named from src, and logs (to log, which may be
// nil) each part that could not be read.
func Load(src Source, parts Parts, log *slog.Logger) Read {
	r := Read{Parts: parts}
	if parts&PartThreads != 0 {
		r.Threads, r.ErrThreads = src.Threads()
		logErr(log, "threads", r.ErrThreads)
	}
	if parts&PartPeers != 0 {
		r.Peers, r.ErrPeers = src.Peers()
		logErr(log, "peers", r.ErrPeers)
	}
	if parts&PartPending != 0 {
		r.Pending = src.Pending()
	}
	return r
}

func logErr(log *slog.Logger, what string, err error) {
	if err != nil && log != nil {
		log.Error(what, "err", err)
	}
}

// Apply puts what r read into s, which is then Booted: the node answers.
// A part r did not read, or could not, keeps its value.
func (r Read) Apply(s *State) {
	s.Booted = true
	if r.Parts&PartThreads != 0 && r.ErrThreads == nil {
		s.Threads = r.Threads
	}
	if r.Parts&PartPeers != 0 && r.ErrPeers == nil {
		s.Peers = r.Peers
	}
	if r.Parts&PartPending != 0 {
		s.Pending = r.Pending
	}
}
