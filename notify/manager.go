package notify

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

// Notifier is what the tray app holds: it feeds the node's events and says
// when the person read a thread. *Manager implements it; notifytest.Notifier
// records calls for other packages' tests.
type Notifier interface {
	// HandleEvent takes one event of Node.Subscribe.
	HandleEvent(ev peer.Event)
	// Read says the person has read thread th (from: the sharer of a
	// mirrored thread, the zero key for mine): its notification is withdrawn.
	Read(th string, from key.PublicKey)
}

// Rules are the coalescing thresholds. The zero value means the defaults.
type Rules struct {
	// SummaryAfter is how many threads may have a notification of their
	// own; one more busy thread folds them all into a summary. Default 3.
	SummaryAfter int
	// Window is how long after its newest message a thread counts as busy
	// even when its notification is gone. Default 1 minute.
	Window time.Duration
	// MinInterval is the least time between two updates of one
	// notification; updates in between are merged. Default 1s; negative:
	// no throttle.
	MinInterval time.Duration
	// MaxApprovals bounds approval notifications shown at once; the others
	// wait their turn. Default 5.
	MaxApprovals int
}

// withDefaults fills the zero fields.
func (r Rules) withDefaults() Rules {
	if r.SummaryAfter <= 0 {
		r.SummaryAfter = 3
	}
	if r.Window <= 0 {
		r.Window = time.Minute
	}
	if r.MinInterval == 0 {
		r.MinInterval = time.Second
	}
	if r.MaxApprovals <= 0 {
		r.MaxApprovals = 5
	}
	return r
}

// Manager decides what to notify and talks to the Backend. Set its fields,
// then call Start once (signals are handled from then on) and Close when
// done; HandleEvent and Read are safe for concurrent use.
type Manager struct {
	// Backend is the notification server; nil: Fallback only.
	Backend Backend
	// Fallback shows a plain notification (title and body, no actions,
	// never replaced). It is used when Backend is nil or lacks
	// CapActions. It is called with the Manager's lock held and must not
	// call back into the Manager. Nil: nothing is shown then.
	Fallback func(title, body string)

	// Self is my key: lines from it are never notified.
	Self key.PublicKey
	// Focused names the thread shown in a focused window, if any.
	Focused func() (th string, from key.PublicKey, ok bool)
	// Paused reports whether message notifications are paused.
	Paused func() bool
	// Lookup finds a thread (for its subject, peer name and unread count).
	// Optional; without it an EventThread cannot withdraw anything.
	Lookup func(th string, from key.PublicKey) (peer.ThreadInfo, bool)

	// OpenThread opens a thread window (a click on its notification).
	OpenThread func(th string, from key.PublicKey)
	// OpenThreads opens the threads list (a click on the summary); nil:
	// the newest thread of the summary is opened.
	OpenThreads func()
	// OpenApprovals opens the Approvals window (a click on a request).
	OpenApprovals func()
	// Decide takes a decision, as the Approvals window does (Node.Decide).
	Decide func(id string, d peer.Decision) error

	// Clock is the time source; nil: the wall clock.
	Clock Clock
	// Logger receives what went wrong; nil is silent.
	Logger *slog.Logger
	// Rules are the coalescing thresholds; zero: defaults.
	Rules Rules
	// AppName is sent as the application name; "" means "AWP".
	AppName string
	// Icon is an icon name or file:// URI for every notification.
	Icon string
	// DesktopEntry is the app's .desktop name, sent as a hint.
	DesktopEntry string

	initOnce sync.Once
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	log      *slog.Logger
	clock    Clock
	rules    Rules

	mu sync.Mutex
	// mu guards:
	started, closed bool
	threads         map[threadKey]*thread
	summary         slot
	approvals       map[string]*approval
	order           []string       // approval ids, oldest first
	byID            map[uint32]ref // server id → what it shows
	stopTimer       func() bool    // the pending flush; nil: none
	timerAt         time.Time
}

// threadKey names a thread: its id and, for a mirrored one, the sharer.
type threadKey struct {
	th   string
	from key.PublicKey
}

// slot is one notification the Manager may have on screen.
type slot struct {
	id       uint32    // the server's id; 0: nothing shown through the Backend
	fallback bool      // shown through Fallback: alive until withdrawn, never updated
	shownAt  time.Time // when it was last sent
	dirty    bool      // changed since shownAt; a flush will send it
}

func (s *slot) alive() bool { return s.id != 0 || s.fallback }

// thread is what the Manager remembers of a thread with new messages.
type thread struct {
	key       threadKey
	peerName  string
	subject   string
	text      string    // the newest text
	pending   int       // messages since the person last saw the thread
	newest    time.Time // when the newest of them arrived
	slot                // its own notification
	summaried bool      // counted in the summary shown now
}

// approval is one request waiting for the person.
type approval struct {
	req    peer.ApprovalRequest
	closed bool // the person (or the server) closed its notification
	slot
}

// refKind tells what a server id shows.
type refKind int

const (
	refThread refKind = iota + 1
	refSummary
	refApproval
)

// ref is what a server id shows.
type ref struct {
	kind     refKind
	thread   threadKey
	approval string
}

// init sets the defaults once, whichever method comes first.
func (m *Manager) init() {
	m.initOnce.Do(func() {
		m.ctx, m.cancel = context.WithCancel(context.Background())
		m.log = m.Logger
		if m.log == nil {
			m.log = slog.New(slog.DiscardHandler)
		}
		m.clock = m.Clock
		if m.clock == nil {
			m.clock = realClock{}
		}
		m.rules = m.Rules.withDefaults()
		if m.AppName == "" {
			m.AppName = "AWP"
		}
		m.threads = make(map[threadKey]*thread)
		m.approvals = make(map[string]*approval)
		m.byID = make(map[uint32]ref)
	})
}

// Start handles the Backend's signals (actions, closes, server restarts)
// until Close. It returns ErrStarted when called twice, ErrClosed after
// Close.
func (m *Manager) Start() error {
	m.init()
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.closed:
		return ErrClosed
	case m.started:
		return ErrStarted
	}
	m.started = true
	if m.Backend == nil {
		return nil
	}
	sigs := m.Backend.Signals()
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		for {
			select {
			case <-m.ctx.Done():
				return
			case s, ok := <-sigs:
				if !ok {
					m.log.Warn("notify: backend signals ended")
					return
				}
				m.HandleSignal(s)
			}
		}
	}()
	return nil
}

// Close stops the signal loop and withdraws every notification shown
// through the Backend (an approval left on screen could no longer be
// decided). It does not close the Backend. Close is idempotent.
func (m *Manager) Close() error {
	m.init()
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	if m.stopTimer != nil {
		m.stopTimer()
		m.stopTimer = nil
	}
	ids := make([]uint32, 0, len(m.byID))
	for id := range m.byID {
		ids = append(ids, id)
	}
	clear(m.byID)
	m.mu.Unlock()
	m.cancel()
	m.wg.Wait()
	if m.Backend != nil {
		for _, id := range ids {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			if err := m.Backend.Withdraw(ctx, id); err != nil {
				m.log.Debug("notify: withdraw on close", "id", id, "err", err)
			}
			cancel()
		}
	}
	return nil
}

// HandleEvent implements Notifier.
func (m *Manager) HandleEvent(ev peer.Event) {
	m.init()
	switch ev.Type {
	case peer.EventLine:
		m.onLine(ev)
	case peer.EventThread:
		m.onThread(ev)
	case peer.EventApproval:
		if ev.Approval != nil {
			m.onApproval(*ev.Approval)
		}
	case peer.EventApprovalDone:
		id := ev.Of
		if ev.Approval != nil {
			id = ev.Approval.ID
		}
		m.onApprovalDone(id)
	}
}

// Read implements Notifier.
func (m *Manager) Read(th string, from key.PublicKey) {
	m.init()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	m.readLocked(threadKey{th, from})
}

// showLocked sends n for s: a new notification, or an update of the one s
// shows. Through Fallback a slot is shown once and never updated.
func (m *Manager) showLocked(s *slot, r ref, n Notification) {
	now := m.clock.Now()
	if !m.actionsLocked() {
		if s.alive() {
			return
		}
		if m.Fallback != nil {
			m.Fallback(n.Title, n.Body)
		}
		*s = slot{fallback: true, shownAt: now}
		return
	}
	n.ReplacesID = s.id
	n.AppName, n.Icon, n.DesktopEntry = m.AppName, m.Icon, m.DesktopEntry
	id, err := m.Backend.Notify(m.ctx, n)
	if err != nil {
		m.log.Warn("notify: show", "title", n.Title, "err", err)
		return
	}
	if s.id != 0 && s.id != id {
		delete(m.byID, s.id) // the server gave a new id: the old one is gone
	}
	*s = slot{id: id, shownAt: now}
	m.byID[id] = r
}

// updateLocked shows s now, or marks it for the next flush when it was
// sent less than MinInterval ago.
func (m *Manager) updateLocked(s *slot, r ref, build func() Notification) {
	if s.fallback {
		return
	}
	if s.id != 0 && m.rules.MinInterval > 0 {
		due := s.shownAt.Add(m.rules.MinInterval)
		if m.clock.Now().Before(due) {
			s.dirty = true
			m.scheduleLocked(due)
			return
		}
	}
	m.showLocked(s, r, build())
}

// withdrawLocked closes what s shows.
func (m *Manager) withdrawLocked(s *slot) {
	id := s.id
	*s = slot{}
	if id == 0 {
		return
	}
	delete(m.byID, id)
	if err := m.Backend.Withdraw(m.ctx, id); err != nil {
		m.log.Debug("notify: withdraw", "id", id, "err", err)
	}
}

// actionsLocked reports whether the Backend can show actions.
func (m *Manager) actionsLocked() bool {
	if m.Backend == nil {
		return false
	}
	caps, err := m.Backend.Capabilities(m.ctx)
	if err != nil {
		m.log.Debug("notify: capabilities", "err", err)
		return false
	}
	return slices.Contains(caps, CapActions)
}

// scheduleLocked makes sure a flush runs at or before at.
func (m *Manager) scheduleLocked(at time.Time) {
	if m.stopTimer != nil && !m.timerAt.After(at) {
		return
	}
	if m.stopTimer != nil {
		m.stopTimer()
	}
	m.timerAt = at
	m.stopTimer = m.clock.AfterFunc(at.Sub(m.clock.Now()), m.flush)
}

// flush sends the updates the throttle held back.
func (m *Manager) flush() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stopTimer = nil
	if m.closed {
		return
	}
	for _, t := range m.threads {
		if t.dirty && t.id != 0 {
			m.updateLocked(&t.slot, ref{kind: refThread, thread: t.key}, func() Notification { return m.threadNotification(t) })
		}
	}
	if m.summary.dirty && m.summary.id != 0 {
		m.updateLocked(&m.summary, ref{kind: refSummary}, m.summaryNotificationLocked)
	}
}
