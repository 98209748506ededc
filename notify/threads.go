package notify

import (
	"cmp"
	"slices"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

// onLine notifies a new inbound msg, unless the person should not hear of
// it: a line I sent, a replayed line, the thread in the focused window, or
// while paused.
func (m *Manager) onLine(ev peer.Event) {
	l := ev.Line
	if l == nil || ev.Replayed || l.Dir != "in" || (!m.Self.IsZero() && l.From == m.Self) {
		return
	}
	msg, ok := parseMsg(l.Line)
	if !ok || msg.machine() {
		return // state, chunk, profile requests and results show in the thread, not here
	}
	th := ev.Th
	if th == "" {
		th = msg.Th
	}
	k := threadKey{th, l.MirroredFrom}
	if m.Paused != nil && m.Paused() {
		return
	}
	if m.Focused != nil {
		if fth, ffrom, ok := m.Focused(); ok && fth == k.th && ffrom == k.from {
			return
		}
	}
	var info peer.ThreadInfo
	if m.Lookup != nil {
		info, _ = m.Lookup(k.th, k.from)
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	t := m.threads[k]
	if t == nil {
		t = &thread{key: k}
		m.threads[k] = t
	}
	t.peerName = firstOf(ev.PeerName, info.PeerName, t.peerName, key.ShortText(firstOf(ev.Peer.String(), l.From.String())))
	t.subject = firstOf(info.Subject, t.subject, msg.Subject) // the thread's first subject
	t.text = msg.preview()
	t.pending++
	t.newest = m.clock.Now()
	m.refreshLocked(t)
}

// refreshLocked shows t's news: in t's own notification, or folded into
// the summary when more than SummaryAfter threads are busy. Once the
// summary is up, every thread folds into it until it closes.
func (m *Manager) refreshLocked(t *thread) {
	if !m.summary.alive() && m.busyLocked() <= m.rules.SummaryAfter {
		m.updateLocked(&t.slot, ref{kind: refThread, thread: t.key}, func() Notification { return m.threadNotification(t) })
		return
	}
	for _, o := range m.threads {
		if o.pending > 0 {
			o.summaried = true
		}
		if o.alive() {
			m.withdrawLocked(&o.slot)
		}
	}
	m.updateLocked(&m.summary, ref{kind: refSummary}, m.summaryNotificationLocked)
}

// busyLocked counts the threads with new messages that are on screen or
// had a message within Window.
func (m *Manager) busyLocked() int {
	now := m.clock.Now()
	n := 0
	for _, t := range m.threads {
		if t.pending > 0 && (t.alive() || now.Sub(t.newest) <= m.rules.Window) {
			n++
		}
	}
	return n
}

// onThread withdraws the notifications of a thread that has no unread
// lines left (it was read in another window, or by `awp`).
func (m *Manager) onThread(ev peer.Event) {
	if m.Lookup == nil || ev.Th == "" {
		return
	}
	m.mu.Lock()
	var keys []threadKey
	for k := range m.threads {
		if k.th == ev.Th {
			keys = append(keys, k)
		}
	}
	m.mu.Unlock()
	for _, k := range keys {
		if info, ok := m.Lookup(k.th, k.from); ok && info.Unread == 0 {
			m.Read(k.th, k.from)
		}
	}
}

// readLocked withdraws a read thread's notification and takes it out of
// the summary.
func (m *Manager) readLocked(k threadKey) {
	t := m.threads[k]
	if t == nil {
		return
	}
	t.pending = 0
	m.withdrawLocked(&t.slot)
	delete(m.threads, k)
	if !t.summaried || !m.summary.alive() {
		return
	}
	if m.newestLocked() == nil {
		m.withdrawLocked(&m.summary)
		return
	}
	m.updateLocked(&m.summary, ref{kind: refSummary}, m.summaryNotificationLocked)
}

// pruneLocked forgets a thread with nothing new and nothing shown.
func (m *Manager) pruneLocked(t *thread) {
	if t.pending == 0 && !t.alive() && !t.summaried {
		delete(m.threads, t.key)
	}
}

// newestLocked is the summary's thread with the newest message.
func (m *Manager) newestLocked() *thread {
	var best *thread
	for _, t := range m.threads {
		if t.summaried && t.pending > 0 && (best == nil || t.newest.After(best.newest)) {
			best = t
		}
	}
	return best
}

// threadNotification is t's own notification.
func (m *Manager) threadNotification(t *thread) Notification {
	return Notification{
		Title:    threadTitle(t),
		Body:     threadBody(t),
		Actions:  []Action{{Key: ActionDefault, Label: "Open"}},
		Category: "im.received",
	}
}

// summaryNotificationLocked is the summary of every thread folded into it.
func (m *Manager) summaryNotificationLocked() Notification {
	msgs, threads := 0, 0
	var list []*thread
	for _, t := range m.threads {
		if t.summaried && t.pending > 0 {
			msgs += t.pending
			threads++
			list = append(list, t)
		}
	}
	sortNewest(list)
	return Notification{
		Title:    summaryTitle(msgs, threads),
		Body:     summaryBody(list, threads),
		Actions:  []Action{{Key: ActionDefault, Label: "Open"}},
		Category: "im.received",
	}
}

// firstOf returns the first non-empty string.
func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// sortNewest orders threads newest first (ties by id, so the text is
// stable).
func sortNewest(ts []*thread) {
	slices.SortFunc(ts, func(a, b *thread) int {
		if c := b.newest.Compare(a.newest); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.key.th, b.key.th), cmp.Compare(a.key.from.String(), b.key.from.String()))
	})
}
