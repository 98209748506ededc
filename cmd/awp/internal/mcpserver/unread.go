package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// ThreadHead names a thread in an answer: awp_show's, and each thread of
// awp_inbox's and awp_wait's.
type ThreadHead struct {
	Th       string `json:"th"`
	Peer     string `json:"peer" jsonschema:"key of the other party"`
	PeerName string `json:"peer_name,omitempty"`
	Subject  string `json:"subject,omitempty"`
	Mine     string `json:"mine,omitempty" jsonschema:"the state this peer last declared in the thread"`
	Theirs   string `json:"theirs,omitempty" jsonschema:"the state the other party last declared"`
}

// threadHead is t's head.
func threadHead(t peer.ThreadInfo) ThreadHead {
	return ThreadHead{Th: t.Th, Peer: t.Peer.String(), PeerName: t.PeerName, Subject: t.Subject, Mine: t.Mine, Theirs: t.Theirs}
}

// ThreadLines is one thread and the lines an answer carries from it.
type ThreadLines struct {
	ThreadHead
	Lines   []Line `json:"lines"`
	Omitted int    `json:"omitted,omitempty" jsonschema:"earlier unread lines this answer leaves out (awp_show reads them)"`
}

// filter selects threads: by id th ("": any) and by other party from
// (the zero key: any).
type filter struct {
	th   string
	from key.PublicKey
}

func (f filter) match(th string, peerKey key.PublicKey) bool {
	return (f.th == "" || f.th == th) && (f.from.IsZero() || f.from == peerKey)
}

// matchEvent reports whether ev is a new inbound line f selects.
func (f filter) matchEvent(ev peer.Event) bool {
	return ev.Type == peer.EventLine && ev.Line != nil && ev.Line.Dir == "in" && !ev.Replayed &&
		ev.Line.MirroredFrom.IsZero() && f.match(ev.Th, ev.Peer)
}

// candidate is a thread with unread lines, as first listed, and its lines.
type candidate struct {
	t     peer.ThreadInfo
	lines []peer.LineInfo
	first uint64 // seq of its first unread line
}

// unread returns the unread inbound lines of the threads f selects, newest
// threads first, and unless peek marks those threads read. An answer
// holds at most MaxAnswerLines lines: threads past that stay unread (more
// is then true), and a thread with more keeps its newest lines, counting
// the rest in Omitted.
//
// The peer marks a whole thread read, so a line stored between reading
// the lines and marking would be marked without being handed out. After
// marking, unread reads the thread list again: a thread's Unread then
// counts the lines stored after the mark, which stay unread, and every
// line before them is handed out now.
func (s *Server) unread(ctx context.Context, f filter, peek bool) (out []ThreadLines, more bool, err error) {
	ths, err := call(s, ctx, s.c.Threads)
	if err != nil {
		return nil, false, err
	}
	var cands []*candidate
	budget := MaxAnswerLines
	for _, t := range ths {
		if !t.MirroredFrom.IsZero() || t.Unread == 0 || !f.match(t.Th, t.Peer) {
			continue
		}
		if budget <= 0 {
			more = true
			break
		}
		lines, err := call(s, ctx, func(ctx context.Context) ([]peer.LineInfo, error) { return s.c.Lines(ctx, t.Th, key.PublicKey{}) })
		if err != nil {
			return nil, false, err
		}
		c := &candidate{t: t, lines: lines, first: firstUnread(lines, uint64(t.Lines), t.Unread)}
		cands = append(cands, c)
		budget -= t.Unread
	}
	ends, err := s.markCandidates(ctx, cands, peek)
	if err != nil {
		return nil, false, err
	}
	budget = MaxAnswerLines
	for i, c := range cands {
		tl := ThreadLines{ThreadHead: threadHead(c.t), Lines: []Line{}}
		names := func(k key.PublicKey) string {
			if k == c.t.Peer {
				return c.t.PeerName
			}
			return ""
		}
		for _, li := range c.lines {
			if li.Dir == "in" && li.Seq >= c.first && li.Seq < ends[i] {
				tl.Lines = append(tl.Lines, lineView(c.t.Th, li, names, false))
			}
		}
		if n := len(tl.Lines); n > budget {
			keep := max(budget, 1) // a marked thread shows at least its newest line
			tl.Omitted = n - keep
			tl.Lines = tl.Lines[n-keep:]
		}
		budget -= len(tl.Lines)
		if len(tl.Lines) > 0 || tl.Omitted > 0 {
			out = append(out, tl)
		}
	}
	return out, more, nil
}

// markCandidates marks the candidates' threads read (unless peek) and
// returns, for each, the seq at which its lines stop being handed out: the
// first line still unread after the marking (a line that came meanwhile
// stays unread, and is not shown), or no end with peek.
func (s *Server) markCandidates(ctx context.Context, cands []*candidate, peek bool) ([]uint64, error) {
	ends := make([]uint64, len(cands)) // a line at or past its end is not handed out
	for i := range ends {
		ends[i] = ^uint64(0)
	}
	if !peek && len(cands) > 0 {
		for _, c := range cands {
			th := c.t.Th
			if err := call0(s, ctx, func(ctx context.Context) error { return s.c.MarkRead(ctx, th, key.PublicKey{}) }); err != nil {
				return nil, err
			}
		}
		after, err := call(s, ctx, s.c.Threads)
		if err != nil {
			return nil, err
		}
		now := map[string]peer.ThreadInfo{}
		for _, t := range after {
			if t.MirroredFrom.IsZero() {
				now[t.Th] = t
			}
		}
		for i, c := range cands {
			t2, ok := now[c.t.Th]
			if !ok {
				continue
			}
			if last := uint64(t2.Lines); len(c.lines) == 0 || c.lines[len(c.lines)-1].Seq < last {
				th := c.t.Th
				lines, err := call(s, ctx, func(ctx context.Context) ([]peer.LineInfo, error) { return s.c.Lines(ctx, th, key.PublicKey{}) })
				if err != nil {
					return nil, err
				}
				c.lines = lines
			}
			ends[i] = firstUnread(c.lines, uint64(t2.Lines), t2.Unread)
		}
	}
	return ends, nil
}

// firstUnread returns the seq of the first unread line of a thread whose
// newest line was last and whose unread count was unread at that moment:
// the unread lines are its last unread inbound lines up to last (state
// lines do not count: the peer shows them as a state, not as something
// to read). With none unread it is last+1.
func firstUnread(lines []peer.LineInfo, last uint64, unread int) uint64 {
	if unread <= 0 {
		return last + 1
	}
	n := 0
	for i := len(lines) - 1; i >= 0; i-- {
		li := lines[i]
		if li.Seq > last || li.Dir != "in" || isState(li.Line) {
			continue
		}
		n++
		if n == unread {
			return li.Seq
		}
	}
	return 0 // more unread than inbound lines: hand them all out
}

// isState reports whether a stored line is a state line.
func isState(line []byte) bool {
	var h struct {
		T string `json:"t"`
	}
	return json.Unmarshal(line, &h) == nil && h.T == wire.TypeState
}
