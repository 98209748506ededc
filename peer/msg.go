package peer

import (
	"fmt"

	"github.com/awp-tray/awp-tray/peer/grant"
	"github.com/awp-tray/awp-tray/peer/profile"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// A received msg (docs/protocol/messages.md) is stored in its thread, the
// blobs it announces are recorded (chunk.go), and its data parts are looked
// at: grants are stored, profile requests and grant requests are set aside
// for the request workers (requests.go, grantrequest.go) and answers to
// this node's own requests go to whoever waits for them (requests.go). Sending a msg is
// send.go.

// msgThread is what a received msg changes in its thread's record, and
// what else it stores with it (lineHandlers: inThreadAs stores the line).
func (n *Node) msgThread(tx *store.Tx, in *inLine, m *wire.Msg, t *store.Thread) error {
	if t.Subject == "" && m.Subject != "" {
		t.Subject = m.Subject
	}
	if txt := previewText(m); txt != "" {
		t.LastText, t.LastFrom = txt, in.s.peerS
	}
	if err := n.announceBlobs(tx, in, m); err != nil {
		return err
	}
	return n.inspectMsg(tx, in, m)
}

// previewText returns the first text of a msg, for previews.
func previewText(m *wire.Msg) string {
	for _, p := range m.DecodeParts() {
		if (p.K == wire.PartText || p.K == wire.PartCode) && p.Text != "" {
			if len(p.Text) > previewBytes {
				return p.Text[:previewBytes]
			}
			return p.Text
		}
	}
	return ""
}

// inspectMsg looks at a received msg's data parts for grants, grant
// requests, profile requests and answers to this node's own requests.
// Requests go to the worker pool once the msg is committed (res.after),
// at most MaxRequestsPerMsg of them.
func (n *Node) inspectMsg(tx *store.Tx, in *inLine, m *wire.Msg) error {
	s := in.s
	var jobs []*reqJob
	over := 0
	room := newGrantRoom()
	for _, p := range m.DecodeParts() {
		if p.K != wire.PartData {
			continue
		}
		isReq := p.Mime == MimeGrantRequest || profile.Cap(p.Mime) != ""
		if isReq && len(jobs) == MaxRequestsPerMsg {
			over++
			continue
		}
		switch {
		case p.Mime == MimeGrant:
			if err := n.storeGrantRaw(tx, p.Data, in.now, room); err != nil {
				return err
			}
			if m.Re != "" {
				n.deliverAnswer(s.peer, m.Re, answer{mime: p.Mime, data: p.Data})
			}
		case p.Mime == MimeGrantDenied && m.Re != "":
			n.deliverAnswer(s.peer, m.Re, answer{mime: p.Mime, data: p.Data})
		case p.Mime == MimeGrantRequest:
			jobs = append(jobs, &reqJob{s: s, m: m, mime: p.Mime, data: p.Data})
		case profile.Cap(p.Mime) != "":
			j := &reqJob{s: s, m: m, mime: p.Mime, data: p.Data}
			// Grants attached to a request are stored like any other,
			// and handed to the check parsed.
			j.attached, j.attErr = grant.Attached(p.Data)
			for _, g := range j.attached {
				if !room.take() {
					break
				}
				if err := n.storeGrant(tx, g, in.now, room); err != nil {
					return err
				}
			}
			jobs = append(jobs, j)
		case isResultMime(p.Mime) && m.Re != "":
			n.deliverAnswer(s.peer, m.Re, answer{mime: p.Mime, data: p.Data})
		}
	}
	if len(jobs) > 0 || over > 0 {
		in.res.after = func() { n.queueRequests(s, m, jobs, over) }
	}
	return nil
}

// queueRequests hands a committed msg's requests to the workers (a full
// queue answers a request busy at once), and answers too_large for the
// over requests past MaxRequestsPerMsg.
func (n *Node) queueRequests(s *session, m *wire.Msg, jobs []*reqJob, over int) {
	if over > 0 {
		s.sendErr(wire.CodeTooLarge, fmt.Sprintf("%d more requests in this msg were not handled: at most %d requests per msg", over, MaxRequestsPerMsg), m.ID, m.Th)
	}
	for _, j := range jobs {
		if !n.reqs.push(j) {
			n.goTracked(func() { n.answerBusy(j) })
		}
	}
}
