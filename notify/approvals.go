package notify

import (
	"github.com/awp-tray/awp-tray/peer"
)

// Action keys of an approval notification.
const (
	actionAllow = "allow"
	actionDeny  = "deny"
)

// AllowOnce is the decision the "Allow once" action takes: the Approvals
// window's Allow once, by "notification".
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
		m.showLocked(&a.slot, ref{kind: refApproval, approval: id}, approvalNotification(a.req))
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

// approvalNotification is a request's notification.
// It offers "Allow once" only when its body shows the request's data
// whole (approvalBody): one click must not allow what the person could
// not read.
func approvalNotification(r peer.ApprovalRequest) Notification {
	body, whole := approvalBody(r)
	actions := []Action{{Key: ActionDefault, Label: "Open Approvals"}}
	if whole {
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
