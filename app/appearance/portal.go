//go:build linux || freebsd || netbsd || openbsd || dragonfly

package appearance

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

// The settings portal's names.
const (
	portalName     = "org.freedesktop.portal.Desktop"
	portalPath     = dbus.ObjectPath("/org/freedesktop/portal/desktop")
	settingsIface  = "org.freedesktop.portal.Settings"
	appearanceNS   = "org.freedesktop.appearance"
	colorSchemeKey = "color-scheme"
)

// readTimeout bounds one read of the portal: the first call may start it
// (D-Bus activation), which takes a moment on a loaded login.
const readTimeout = 5 * time.Second

// watch connects to the session bus and follows the portal on it.
func watch(ctx context.Context, changed func(Scheme)) (Scheme, error) {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return NoPreference, fmt.Errorf("appearance: no session bus: %w", err)
	}
	return watchConn(ctx, conn, true, changed)
}

// watchConn follows the portal on conn: the SettingChanged signal for the
// color scheme, and the portal's name, so that a portal that starts (or
// restarts) after the tray is read again. closeConn: conn is watchConn's
// own, closed when ctx ends. The scheme returned is the portal's now, or
// NoPreference with the reason when it does not answer; the watch goes on
// either way until ctx ends.
func watchConn(ctx context.Context, conn *dbus.Conn, closeConn bool, changed func(Scheme)) (Scheme, error) {
	rules := [][]dbus.MatchOption{
		{dbus.WithMatchObjectPath(portalPath), dbus.WithMatchInterface(settingsIface), dbus.WithMatchMember("SettingChanged"),
			dbus.WithMatchArg(0, appearanceNS), dbus.WithMatchArg(1, colorSchemeKey)},
		{dbus.WithMatchSender("org.freedesktop.DBus"), dbus.WithMatchInterface("org.freedesktop.DBus"),
			dbus.WithMatchMember("NameOwnerChanged"), dbus.WithMatchArg(0, portalName)},
	}
	mctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	for _, r := range rules {
		if err := conn.AddMatchSignalContext(mctx, r...); err != nil {
			if closeConn {
				conn.Close()
			}
			return NoPreference, fmt.Errorf("appearance: add match: %w", err)
		}
	}
	sigs := make(chan *dbus.Signal, 16)
	conn.Signal(sigs)
	s, err := read(ctx, conn)
	f := &follower{last: s, changed: changed}
	go f.loop(ctx, conn, closeConn, sigs)
	return s, err
}

// follower calls changed when the scheme differs from the last one seen.
type follower struct {
	mu      sync.Mutex
	last    Scheme
	changed func(Scheme)
}

func (f *follower) set(s Scheme) {
	f.mu.Lock()
	same := s == f.last
	f.last = s
	f.mu.Unlock()
	if !same && f.changed != nil {
		f.changed(s)
	}
}

func (f *follower) loop(ctx context.Context, conn *dbus.Conn, closeConn bool, sigs chan *dbus.Signal) {
	defer func() {
		conn.RemoveSignal(sigs)
		if closeConn {
			conn.Close()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case sig, ok := <-sigs:
			if !ok {
				return // the connection closed
			}
			switch sig.Name {
			case settingsIface + ".SettingChanged":
				var ns, key string
				var v dbus.Variant
				if dbus.Store(sig.Body, &ns, &key, &v) != nil || ns != appearanceNS || key != colorSchemeKey {
					continue
				}
				if s, ok := schemeOf(v); ok {
					f.set(s)
				}
			case "org.freedesktop.DBus.NameOwnerChanged":
				var name, oldOwner, newOwner string
				if dbus.Store(sig.Body, &name, &oldOwner, &newOwner) != nil || name != portalName || newOwner == "" {
					continue
				}
				if s, err := read(ctx, conn); err == nil {
					f.set(s)
				}
			}
		}
	}
}

// read asks the portal for the color scheme: ReadOne (version 2 of the
// interface), else Read (version 1, which wraps the value in one more
// variant).
func read(ctx context.Context, conn *dbus.Conn) (Scheme, error) {
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	obj := conn.Object(portalName, portalPath)
	var v dbus.Variant
	err := obj.CallWithContext(ctx, settingsIface+".ReadOne", 0, appearanceNS, colorSchemeKey).Store(&v)
	var de dbus.Error
	if errors.As(err, &de) && de.Name == "org.freedesktop.DBus.Error.UnknownMethod" {
		err = obj.CallWithContext(ctx, settingsIface+".Read", 0, appearanceNS, colorSchemeKey).Store(&v)
	}
	if err != nil {
		return NoPreference, fmt.Errorf("appearance: settings portal: %w", err)
	}
	s, ok := schemeOf(v)
	if !ok {
		return NoPreference, fmt.Errorf("appearance: settings portal: color-scheme is %s, want a number 0–2", v.Signature())
	}
	return s, nil
}

// schemeOf reads a color-scheme value (a uint32, perhaps in nested
// variants); values other than 1 and 2 are no preference.
func schemeOf(v dbus.Variant) (Scheme, bool) {
	val := v.Value()
	for range 4 {
		inner, ok := val.(dbus.Variant)
		if !ok {
			break
		}
		val = inner.Value()
	}
	var n int64
	switch x := val.(type) {
	case uint32:
		n = int64(x)
	case int32:
		n = int64(x)
	case uint8:
		n = int64(x)
	default:
		return NoPreference, false
	}
	switch n {
	case 1:
		return Dark, true
	case 2:
		return Light, true
	}
	return NoPreference, true
}
