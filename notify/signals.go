package notify

// What the notification server tells the Manager: an action invoked, a
// notification closed, the server gone.

// HandleSignal applies one Backend signal. Start's loop calls it; it is
// exported so that tests can apply a signal synchronously. Hooks run after
// the lock is released.
func (m *Manager) HandleSignal(s Signal) {
	m.init()
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	var hook func()
	switch s.Kind {
	case SignalAction:
		hook = m.actionLocked(s.ID, s.Action)
	case SignalClosed:
		m.closedLocked(s.ID, s.Reason)
	case SignalServerLost:
		m.serverLostLocked()
	case SignalServerReady:
		m.promoteLocked()
	}
	m.mu.Unlock()
	if hook != nil {
		hook()
	}
}

// actionLocked returns what invoking action key on notification id does.
func (m *Manager) actionLocked(id uint32, key string) func() {
	r, ok := m.byID[id]
	if !ok {
		return nil // another app's notification, or one we forgot
	}
	switch r.kind {
	case refThread:
		if key != ActionDefault {
			return nil
		}
		// A click means the person saw it, even where the server keeps
		// the notification up (dunstctl action).
		if t := m.threads[r.thread]; t != nil {
			m.withdrawLocked(&t.slot)
			m.seenLocked(t)
		}
		if m.OpenThread != nil {
			return func() { m.OpenThread(r.thread.th, r.thread.from) }
		}
	case refSummary:
		if key != ActionDefault {
			return nil
		}
		open := m.OpenThreads
		if t := m.newestLocked(); open == nil && t != nil && m.OpenThread != nil {
			k := t.key
			open = func() { m.OpenThread(k.th, k.from) }
		}
		m.withdrawLocked(&m.summary)
		m.summaryClosedLocked(true)
		return open
	case refApproval:
		return m.approvalActionLocked(r.approval, key)
	}
	return nil
}

// closedLocked forgets a notification the server closed. A dismissal means
// the person saw it: its messages are no longer new. An expiry does not.
func (m *Manager) closedLocked(id uint32, reason CloseReason) {
	r, ok := m.byID[id]
	if !ok {
		return
	}
	delete(m.byID, id)
	switch r.kind {
	case refThread:
		if t := m.threads[r.thread]; t != nil {
			t.slot = slot{}
			if reason == ClosedDismissed {
				m.seenLocked(t)
			}
		}
	case refSummary:
		m.summary = slot{}
		m.summaryClosedLocked(reason == ClosedDismissed)
	case refApproval:
		if a := m.approvals[r.approval]; a != nil {
			a.slot = slot{}
			a.closed = true
		}
		m.promoteLocked()
	}
}

// seenLocked marks t's messages as seen: the next one starts a new count.
func (m *Manager) seenLocked(t *thread) {
	t.pending = 0
	m.pruneLocked(t)
}

// summaryClosedLocked takes the threads out of a summary that is gone;
// seen: the person saw it (dismissed or clicked it).
func (m *Manager) summaryClosedLocked(seen bool) {
	for _, t := range m.threads {
		if t.summaried && seen {
			t.pending = 0
		}
		t.summaried = false
		m.pruneLocked(t)
	}
}

// serverLostLocked forgets every id of a server that went away. Nothing is
// withdrawn: a new server may reuse the ids.
func (m *Manager) serverLostLocked() {
	clear(m.byID)
	for _, t := range m.threads {
		t.slot = slot{}
	}
	m.summary = slot{}
	for _, a := range m.approvals {
		a.slot = slot{}
	}
}
