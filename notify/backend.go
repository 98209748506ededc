package notify

import (
	"context"
	"time"
)

// Backend is a notification server: org.freedesktop.Notifications over
// D-Bus (DBus), or a fake in tests (notifytest.Backend). Methods are safe
// for concurrent use.
type Backend interface {
	// Notify shows n, or replaces the notification n.ReplacesID in place,
	// and returns the id the server gave it.
	Notify(ctx context.Context, n Notification) (uint32, error)
	// Withdraw closes notification id. Closing an id the server no longer
	// shows is not an error.
	Withdraw(ctx context.Context, id uint32) error
	// Capabilities lists what the server supports (CapActions,
	// CapBodyMarkup…).
	Capabilities(ctx context.Context) ([]string, error)
	// Signals delivers what the server reports, in order. It is closed by
	// Close.
	Signals() <-chan Signal
	// Close releases the backend; it is idempotent.
	Close() error
}

// Server capabilities the Manager looks at (Desktop Notifications spec).
const (
	CapActions    = "actions"     // the server shows actions and reports ActionInvoked
	CapBodyMarkup = "body-markup" // bodies are markup: text must be escaped
	CapPersistent = "persistence" // notifications stay in a history
)

// Notification is one desktop notification as sent to a Backend.
type Notification struct {
	ReplacesID   uint32        // 0: a new notification; else the one to replace
	AppName      string        // the sending application's name
	Icon         string        // icon name or file:// URI; may be empty
	Title        string        // the summary line
	Body         string        // plain text; the Backend escapes it when the server wants markup
	Actions      []Action      // empty: no actions
	Urgency      Urgency       // UrgencyNormal when zero
	Category     string        // spec category, e.g. "im.received"
	DesktopEntry string        // the app's .desktop name, without ".desktop"
	Timeout      time.Duration // 0: the server's default; negative: never expires
}

// Action is one button of a notification. The key ActionDefault is the
// default action, invoked by clicking the notification itself.
type Action struct {
	Key   string // reported back in Signal.Action
	Label string // shown to the person
}

// ActionDefault is the key of the default action (a click on the body).
const ActionDefault = "default"

// Urgency is how urgent a notification is. Its values are not the spec's
// bytes (there low is 0): here the zero value means normal.
type Urgency byte

// Urgency levels.
const (
	UrgencyNormal   Urgency = 0
	UrgencyLow      Urgency = 1
	UrgencyCritical Urgency = 2
)

// SignalKind tells what a Signal reports.
type SignalKind int

// Signal kinds.
const (
	// SignalAction: the person invoked Action on notification ID.
	SignalAction SignalKind = iota + 1
	// SignalClosed: notification ID was closed for Reason.
	SignalClosed
	// SignalServerLost: the server went away; every id it gave is void.
	SignalServerLost
	// SignalServerReady: a server (again) owns the name.
	SignalServerReady
)

// CloseReason is why a notification closed (Desktop Notifications spec).
type CloseReason uint32

// Close reasons.
const (
	ClosedExpired   CloseReason = 1 // it timed out
	ClosedDismissed CloseReason = 2 // the person dismissed it (or clicked it)
	ClosedByCall    CloseReason = 3 // CloseNotification (Withdraw)
	ClosedUndefined CloseReason = 4 // the server did not say
)

// Signal is one report from the server.
type Signal struct {
	Kind   SignalKind
	ID     uint32      // SignalAction, SignalClosed
	Action string      // SignalAction: the action's key
	Reason CloseReason // SignalClosed
}
