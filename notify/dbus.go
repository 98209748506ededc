package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/godbus/dbus/v5"
)

// The org.freedesktop.Notifications names.
const (
	fdoName  = "org.freedesktop.Notifications"
	fdoPath  = dbus.ObjectPath("/org/freedesktop/Notifications")
	fdoIface = "org.freedesktop.Notifications"
)

// DBusConfig configures DBus. The zero value works.
type DBusConfig struct {
	// Conn is the session bus connection to use; nil: DBus opens a private
	// one with dbus.ConnectSessionBus and closes it on Close.
	Conn *dbus.Conn
	// CallTimeout bounds each method call; 0 means 5s.
	CallTimeout time.Duration
	// Logger receives debug logs; nil is silent.
	Logger *slog.Logger
}

// DBusBackend is the Backend for org.freedesktop.Notifications on the
// session bus. It follows the name's owner: when the server goes away it
// reports SignalServerLost, when one comes back SignalServerReady, and it
// asks the new server for its capabilities.
type DBusBackend struct {
	conn    *dbus.Conn
	ownConn bool
	timeout time.Duration
	log     *slog.Logger
	raw     chan *dbus.Signal
	out     chan Signal
	done    chan struct{}
	wg      sync.WaitGroup

	closed atomic.Bool // set by the first Close

	mu sync.Mutex
	// mu guards:
	caps []string // nil: not asked since the owner last changed
}

// DBus connects to the session bus and subscribes to the notification
// server's signals. It succeeds even when no server runs yet (the bus may
// start one on the first Notify); it fails when there is no session bus.
func DBus(cfg DBusConfig) (*DBusBackend, error) {
	b := &DBusBackend{
		conn:    cfg.Conn,
		timeout: cfg.CallTimeout,
		log:     cfg.Logger,
		raw:     make(chan *dbus.Signal, 256),
		out:     make(chan Signal, 256),
		done:    make(chan struct{}),
	}
	if b.timeout <= 0 {
		b.timeout = 5 * time.Second
	}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	if b.conn == nil {
		c, err := dbus.ConnectSessionBus()
		if err != nil {
			return nil, fmt.Errorf("notify: connect session bus: %w", err)
		}
		b.conn, b.ownConn = c, true
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	matches := [][]dbus.MatchOption{
		{dbus.WithMatchObjectPath(fdoPath), dbus.WithMatchInterface(fdoIface), dbus.WithMatchMember("ActionInvoked")},
		{dbus.WithMatchObjectPath(fdoPath), dbus.WithMatchInterface(fdoIface), dbus.WithMatchMember("NotificationClosed")},
		{dbus.WithMatchSender("org.freedesktop.DBus"), dbus.WithMatchInterface("org.freedesktop.DBus"),
			dbus.WithMatchMember("NameOwnerChanged"), dbus.WithMatchArg(0, fdoName)},
	}
	for _, m := range matches {
		if err := b.conn.AddMatchSignalContext(ctx, m...); err != nil {
			if b.ownConn {
				b.conn.Close()
			}
			return nil, fmt.Errorf("notify: add match: %w", err)
		}
	}
	b.conn.Signal(b.raw)
	b.wg.Add(1)
	go b.loop()
	return b, nil
}

// loop turns bus signals into Signals, in order.
func (b *DBusBackend) loop() {
	defer b.wg.Done()
	defer close(b.out)
	for {
		select {
		case <-b.done:
			return
		case s, ok := <-b.raw:
			if !ok {
				return
			}
			for _, out := range b.translate(s) {
				select {
				case b.out <- out:
				case <-b.done:
					return
				}
			}
		}
	}
}

// translate maps one bus signal to what it means for the Manager.
func (b *DBusBackend) translate(s *dbus.Signal) []Signal {
	switch s.Name {
	case fdoIface + ".ActionInvoked":
		var id uint32
		var key string
		if err := dbus.Store(s.Body, &id, &key); err != nil {
			b.log.Debug("notify: bad ActionInvoked", "err", err)
			return nil
		}
		return []Signal{{Kind: SignalAction, ID: id, Action: key}}
	case fdoIface + ".NotificationClosed":
		var id, reason uint32
		if err := dbus.Store(s.Body, &id, &reason); err != nil {
			b.log.Debug("notify: bad NotificationClosed", "err", err)
			return nil
		}
		return []Signal{{Kind: SignalClosed, ID: id, Reason: CloseReason(reason)}}
	case "org.freedesktop.DBus.NameOwnerChanged":
		var name, oldOwner, newOwner string
		if err := dbus.Store(s.Body, &name, &oldOwner, &newOwner); err != nil || name != fdoName {
			return nil
		}
		b.mu.Lock()
		b.caps = nil
		b.mu.Unlock()
		b.log.Debug("notify: server owner changed", "old", oldOwner, "new", newOwner)
		var out []Signal
		if oldOwner != "" {
			out = append(out, Signal{Kind: SignalServerLost})
		}
		if newOwner != "" {
			out = append(out, Signal{Kind: SignalServerReady})
		}
		return out
	}
	return nil
}

// Notify implements Backend.
func (b *DBusBackend) Notify(ctx context.Context, n Notification) (uint32, error) {
	caps, _ := b.Capabilities(ctx) // no caps: plain text is the safe guess
	body := n.Body
	if slices.Contains(caps, CapBodyMarkup) {
		body = escapeMarkup(body)
	}
	actions := make([]string, 0, 2*len(n.Actions))
	for _, a := range n.Actions {
		actions = append(actions, a.Key, a.Label)
	}
	hints := map[string]dbus.Variant{"urgency": dbus.MakeVariant(n.Urgency.spec())}
	if n.Category != "" {
		hints["category"] = dbus.MakeVariant(n.Category)
	}
	if n.DesktopEntry != "" {
		hints["desktop-entry"] = dbus.MakeVariant(n.DesktopEntry)
	}
	timeout := int32(-1)
	switch {
	case n.Timeout < 0:
		timeout = 0
	case n.Timeout > 0:
		timeout = int32(min(n.Timeout.Milliseconds(), 1<<31-1))
	}
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	var id uint32
	err := b.obj().CallWithContext(ctx, fdoIface+".Notify", 0,
		n.AppName, n.ReplacesID, n.Icon, n.Title, body, actions, hints, timeout).Store(&id)
	if err != nil {
		return 0, fmt.Errorf("notify: Notify: %w", err)
	}
	return id, nil
}

// Withdraw implements Backend.
func (b *DBusBackend) Withdraw(ctx context.Context, id uint32) error {
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	err := b.obj().CallWithContext(ctx, fdoIface+".CloseNotification", dbus.FlagNoAutoStart, id).Err
	var de dbus.Error
	if errors.As(err, &de) && de.Name == "org.freedesktop.DBus.Error.ServiceUnknown" {
		return nil // no server: nothing is shown
	}
	if err != nil {
		return fmt.Errorf("notify: CloseNotification %d: %w", id, err)
	}
	return nil
}

// Capabilities implements Backend; the answer is cached until the server's
// owner changes.
func (b *DBusBackend) Capabilities(ctx context.Context) ([]string, error) {
	b.mu.Lock()
	caps := b.caps
	b.mu.Unlock()
	if caps != nil {
		return caps, nil
	}
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	if err := b.obj().CallWithContext(ctx, fdoIface+".GetCapabilities", 0).Store(&caps); err != nil {
		return nil, fmt.Errorf("notify: GetCapabilities: %w", err)
	}
	if caps == nil {
		caps = []string{}
	}
	b.mu.Lock()
	b.caps = caps
	b.mu.Unlock()
	return caps, nil
}

// ServerInfo returns the server's name and version
// (GetServerInformation), without starting one.
func (b *DBusBackend) ServerInfo(ctx context.Context) (name, version string, err error) {
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	var vendor, spec string
	err = b.obj().CallWithContext(ctx, fdoIface+".GetServerInformation", dbus.FlagNoAutoStart).
		Store(&name, &vendor, &version, &spec)
	if err != nil {
		return "", "", fmt.Errorf("notify: GetServerInformation: %w", err)
	}
	return name, version, nil
}

// Signals implements Backend.
func (b *DBusBackend) Signals() <-chan Signal { return b.out }

// Close implements Backend: it stops the signal loop and, when DBus opened
// the connection, closes it.
func (b *DBusBackend) Close() error {
	if !b.closed.CompareAndSwap(false, true) {
		return nil
	}
	b.conn.RemoveSignal(b.raw)
	close(b.done)
	b.wg.Wait()
	if b.ownConn {
		if err := b.conn.Close(); err != nil {
			return fmt.Errorf("notify: close session bus: %w", err)
		}
	}
	return nil
}

func (b *DBusBackend) obj() dbus.BusObject { return b.conn.Object(fdoName, fdoPath) }

// spec maps an Urgency to the spec's byte (0 low, 1 normal, 2 critical).
func (u Urgency) spec() byte {
	switch u {
	case UrgencyLow:
		return 0
	case UrgencyCritical:
		return 2
	}
	return 1
}

// escapeMarkup escapes the characters the spec's body markup gives meaning.
func escapeMarkup(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
