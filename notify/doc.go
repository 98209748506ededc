// Package notify tells the person what needs them: unread threads and
// approvals waiting for a decision, as desktop notifications, without
// nagging.
//
// # Basics
//
// A Manager is the policy. The tray app feeds it the node's events
// (HandleEvent) and tells it when a thread was read (Read); the Manager
// decides what to show and talks to a Backend, the raw notification server.
// DBus is the Backend for org.freedesktop.Notifications on the session bus
// (Linux and the BSDs); it sends actions, replaces notifications in place
// (replaces_id) and reports ActionInvoked and NotificationClosed back as
// Signals. Where there is no such server, or it lacks the "actions"
// capability, the Manager calls its Fallback (the tray app passes Fyne's
// SendNotification): title and body only, never replaced, never withdrawn.
//
// The rules (what is notified, coalescing, suppression) are in
// docs/notify.md. In short: one notification per thread, replaced by newer
// messages and throttled; more than a few busy threads fold into one summary
// that is itself replaced; nothing for lines I sent, replayed lines, the
// thread in the focused window, or while paused; each pending approval gets
// Allow once, Deny and a default action that opens the Approvals window,
// and is withdrawn when decided elsewhere or timed out.
//
// # Caveats
//
// The Manager holds its lock while it calls the Backend, so a hung server
// delays events by at most the Backend's call timeout. Hooks (OpenThread,
// OpenApprovals, Decide) are called without the lock, on the signal loop's
// goroutine, so they may call back into the Manager.
//
// Notification ids belong to the server: after a server restart every id is
// forgotten (nothing is withdrawn, since a new server may have reused the
// id) and pending approvals are shown again.
//
// Package notify does not import Fyne; notifytest holds fakes of Backend,
// Notifier and Clock for other packages' tests.
//
// It owns when and how the person is notified. It must not import Fyne (the
// app passes Fallback), and decides nothing about approvals itself: actions
// call the Decide it is given.
package notify
