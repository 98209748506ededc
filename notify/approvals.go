package notify

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/awp-tray/awp-tray/internal/visible"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/profile"
)

// Action keys of an approval notification.
const (
	actionAllow = "allow"
	actionDeny  = "deny"
)

// AllowOnce is the decision the "Allow once" action takes: the Approvals
// window's Allow once, by "notification". For == 0 lets the one request
// run; the action is offered only on requests where that is what it means
// (not on grant requests, where the node would sign the grant asked for).
func AllowOnce() peer.Decision { return peer.Decision{Allow: true, By: "notification"} }

// Deny is the decision the "Deny" action takes: the Approvals window's
// Deny, by "notification".
func Deny() peer.Decision { return peer.Decision{Allow: false, By: "notification"} }

// onApproval shows a request waiting for the person. Pausing does not hide
// it: an unseen request is denied at its deadline.
func (m *Manager) onApproval(req peer.ApprovalRequest) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed || req.ID == "" || m.approvals[req.ID] != nil {
		return
	}
	m.approvals[req.ID] = &approval{req: req}
	m.order = append(m.order, req.ID)
	m.promoteLocked()
}

// onApprovalDone withdraws a request decided elsewhere or timed out.
func (m *Manager) onApprovalDone(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	m.doneLocked(id)
}

// doneLocked forgets request id and lets a waiting one take its place.
func (m *Manager) doneLocked(id string) {
	a := m.approvals[id]
	if a == nil {
		return
	}
	m.withdrawLocked(&a.slot)
	delete(m.approvals, id)
	for i, x := range m.order {
		if x == id {
			m.order = append(m.order[:i], m.order[i+1:]...)
			break
		}
	}
	m.promoteLocked()
}

// promoteLocked shows the oldest requests not yet on screen, up to
// MaxApprovals at once. A request whose notification the person closed is
// not shown again.
func (m *Manager) promoteLocked() {
	alive := 0
	for _, a := range m.approvals {
		if a.alive() {
			alive++
		}
	}
	for _, id := range m.order {
		if alive >= m.rules.MaxApprovals {
			return
		}
		a := m.approvals[id]
		if a.alive() || a.closed {
			continue
		}
		m.showLocked(&a.slot, ref{kind: refApproval, approval: id}, approvalNotification(a.req, m.Self))
		if a.alive() {
			alive++
		}
	}
}

// approvalActionLocked returns what an action on request id's notification
// does: Allow once or Deny through Decide (then the notification goes),
// or open the Approvals window.
func (m *Manager) approvalActionLocked(id, key string) func() {
	var d peer.Decision
	switch key {
	case ActionDefault:
		if m.OpenApprovals == nil {
			return nil
		}
		return m.OpenApprovals
	case actionAllow:
		if a := m.approvals[id]; a == nil || !offersAllow(a.req, m.Self) {
			return nil // not offered for it: no action can allow it
		}
		d = AllowOnce()
	case actionDeny:
		d = Deny()
	default:
		return nil
	}
	if m.Decide == nil {
		return nil
	}
	return func() {
		if err := m.Decide(id, d); err != nil {
			m.log.Warn("notify: decide from notification", "approval", id, "allow", d.Allow, "err", err)
		}
		m.onApprovalDone(id) // decided, or no longer decidable: either way it is done here
	}
}

// approvalNotification is a request's notification. It offers "Allow
// once" only where allowing once means this one request (allowsOnce), and
// only when its body shows the request whole (approvalBody): one click must
// not allow what the person could not read. self is this node's key.
func approvalNotification(r peer.ApprovalRequest, self key.PublicKey) Notification {
	body, _ := approvalBody(r, self)
	actions := []Action{{Key: ActionDefault, Label: "Open Approvals"}}
	if offersAllow(r, self) {
		actions = append(actions, Action{Key: actionAllow, Label: "Allow once"})
	}
	actions = append(actions, Action{Key: actionDeny, Label: "Deny"})
	return Notification{
		Title:    approvalTitle(r),
		Body:     body,
		Actions:  actions,
		Urgency:  UrgencyCritical,
		Category: "x-awp.approval",
		Timeout:  -1,
	}
}

// offersAllow reports whether r's notification offers "Allow once": it
// shows r whole, and allowing once means this one request.
func offersAllow(r peer.ApprovalRequest, self key.PublicKey) bool {
	_, whole := approvalBody(r, self)
	return whole && allowsOnce(r)
}

// allowsOnce reports whether AllowOnce lets r run once and grants nothing
// more: true for a request to run something here, false for a grant
// request (peer.Decision with For 0 signs the grant it asked for, for as
// long as it asked).
func allowsOnce(r peer.ApprovalRequest) bool { return r.Kind != peer.ApprovalGrantRequest }

// approvalTitle says who asks for what.
func approvalTitle(r peer.ApprovalRequest) string {
	who := clip(visible.String(r.FromName), maxName)
	if who == "" {
		who = key.ShortText(r.From.String())
	}
	if r.Kind == peer.ApprovalGrantRequest {
		return who + " asks for a grant"
	}
	return who + " asks to " + clip(strings.Join(r.Caps, ", "), maxName)
}

// maxContent is how many runes of what an fs:write would write its
// notification shows (quoted, escaped): the whole content when it fits,
// else its start.
const maxContent = 120

// approvalBody shows the request's data (command, path, and for a write
// what it writes), its reason and where a grant would apply. whole is
// false when the notification cannot show the data as it is: too long,
// more than one line, or with characters that do not show as themselves
// (escaped here), or a write whose content it cannot show (malformed);
// then the body says to read it in the Approvals window, and the
// notification offers no "Allow once" (approvalNotification). A write's
// content may be shown by its size and start: the body says which.
func approvalBody(r peer.ApprovalRequest, self key.PublicKey) (body string, whole bool) {
	if r.Kind == peer.ApprovalGrantRequest {
		return grantRequestBody(r, self), false
	}
	var lines []string
	whole = true
	if len(r.Detail) > 0 && string(r.Detail) != "null" {
		d, exact := visible.Request(r.Detail)
		shown := clip(d, maxText)
		whole = exact && shown == d
		lines = append(lines, shown)
		if slices.Contains(r.Caps, "fs:write") {
			w, ok := writeLine(r)
			lines = append(lines, w)
			whole = whole && ok
		}
	}
	if r.Reason != "" {
		lines = append(lines, "Reason: "+clip(visible.String(r.Reason), maxText))
	}
	if r.Sandbox == "none" {
		lines = append(lines, "Runs unsandboxed as you")
	}
	if len(lines) == 0 {
		lines = append(lines, "Waiting for your decision")
	}
	if !whole {
		lines = append(lines, "Open Approvals to read the whole request before allowing it.")
	}
	return strings.Join(lines, "\n"), whole
}

// writeLine says what an fs:write does to its path: append or replace,
// how many bytes, and the content (whole, or its start: "starting"),
// decoded as the node decodes it. ok is false when it could not be decoded
// (the node refuses it).
func writeLine(r peer.ApprovalRequest) (line string, ok bool) {
	req, content, err := profile.DecodeWrite(r.Detail)
	if err != nil {
		return "Malformed: the node will refuse it.", false
	}
	verb := "Replace the file with"
	if req.Append {
		verb = "Append"
	}
	size := fmt.Sprintf("%d bytes", len(content))
	if len(content) == 1 {
		size = "1 byte"
	}
	if req.Mkdir {
		size += " (creating missing directories)"
	}
	text, all := visible.Bytes(content, maxContent)
	if all {
		return fmt.Sprintf("%s %s: %s", verb, size, text), true
	}
	return fmt.Sprintf("%s %s, starting: %s", verb, size, text), true
}

// grantRequestBody shows what a grant request asks for: capabilities, for
// whom when not the asker, where, how long, why. It is decided in the
// Approvals window, where each choice says how long the grant lasts.
func grantRequestBody(r peer.ApprovalRequest, self key.PublicKey) string {
	lines := []string{"Capabilities: " + clip(strings.Join(r.Caps, ", "), maxText)}
	if !r.Sub.IsZero() && r.Sub != r.From {
		lines = append(lines, "For another key: "+key.ShortText(r.Sub.String()))
	}
	switch {
	case r.On == nil:
		lines = append(lines, "On: any peer that honors your grants")
	case len(r.On) == 1 && r.On[0] == self:
		lines = append(lines, "On: this peer")
	case len(r.On) == 1:
		lines = append(lines, "On: "+key.ShortText(r.On[0].String()))
	default:
		lines = append(lines, fmt.Sprintf("On: %d peers", len(r.On)))
	}
	if r.TTL > 0 {
		lines = append(lines, "How long: "+visible.Duration(time.Duration(r.TTL)*time.Second))
	} else {
		lines = append(lines, "How long: not said")
	}
	if r.Reason != "" {
		lines = append(lines, "Reason: "+clip(visible.String(r.Reason), maxText))
	}
	lines = append(lines, "Open Approvals to choose how long to grant it.")
	return strings.Join(lines, "\n")
}
