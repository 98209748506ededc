package keystore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/zalando/go-keyring"
)

// OSKeyring returns the Backend for the operating system's keyring, through
// go-keyring: the Secret Service over the D-Bus session bus on Linux and the
// BSDs, the login Keychain on macOS, the Credential Manager on Windows.
//
// Every call returns within timeout (DefaultTimeout when timeout <= 0), with
// an error wrapping ErrKeyringTimeout if the keyring has not answered by then.
// Calls run one at a time, process-wide: go-keyring cannot cancel a call, so
// one stuck on an unanswered unlock prompt makes later calls time out rather
// than pile up.
//
// With the Secret Service, each call first checks, on a private connection
// of its own, that there is a session bus and a Secret Service on it, so
// their absence gives a clear ErrNoKeyring. It never starts a bus: with
// DBUS_SESSION_BUS_ADDRESS unset and no /run/user/UID/bus, it reports
// ErrNoKeyring instead of running dbus-launch. Errors the service returns are
// mapped to ErrNotFound, ErrNoKeyring and ErrLocked where they mean that.
func OSKeyring(timeout time.Duration) Backend {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return osKeyring{timeout: timeout}
}

type osKeyring struct {
	timeout time.Duration
}

// keyringSem admits one go-keyring call at a time, process-wide: they all
// share go-keyring's one session bus connection, and a call that is stuck
// must not be joined by more.
var keyringSem = make(chan struct{}, 1)

// run runs fn, a go-keyring call, under keyringSem, the preflight check and
// the timeout.
func run[T any](o osKeyring, ctx context.Context, op string, fn func() (T, error)) (T, error) {
	return guarded(ctx, o.timeout, op, func(ctx context.Context) (T, error) {
		var zero T
		select {
		case keyringSem <- struct{}{}:
		case <-ctx.Done():
			return zero, ctx.Err() // guarded reports the timeout
		}
		defer func() { <-keyringSem }()
		if err := preflight(ctx, op); err != nil {
			return zero, err
		}
		v, err := fn()
		if err != nil {
			return zero, classify(op, err)
		}
		return v, nil
	})
}

// Get implements Backend.
func (o osKeyring) Get(ctx context.Context, service, account string) (string, error) {
	return run(o, ctx, "read the OS keyring", func() (string, error) {
		return keyring.Get(service, account)
	})
}

// Set implements Backend.
func (o osKeyring) Set(ctx context.Context, service, account, secret string) error {
	_, err := run(o, ctx, "write the OS keyring", func() (struct{}, error) {
		return struct{}{}, keyring.Set(service, account, secret)
	})
	return err
}

// Delete implements Backend.
func (o osKeyring) Delete(ctx context.Context, service, account string) error {
	_, err := run(o, ctx, "delete from the OS keyring", func() (struct{}, error) {
		return struct{}{}, keyring.Delete(service, account)
	})
	return err
}

const secretsName = "org.freedesktop.secrets"

// preflight checks that a session bus is reachable and has a Secret Service
// (running, or startable by the bus), so that go-keyring does not launch a
// bus of its own or fail with an opaque D-Bus error.
func preflight(ctx context.Context, op string) error {
	if !usesSecretService() {
		return nil
	}
	addr := os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	// NoAutoStartup: never run dbus-launch, which would start a bus nobody stops.
	conn, err := dbus.SessionBusPrivateNoAutoStartup(dbus.WithContext(ctx))
	if err == nil {
		defer conn.Close()
		if err = conn.Auth(nil); err == nil {
			err = conn.Hello()
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err() // guarded reports the timeout
		}
		if addr == "" || addr == "autolaunch:" {
			return hint(ErrNoKeyring, err, fmt.Sprintf(
				"keystore: %s: no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set), so no OS keyring; "+
					"run inside a desktop session (or under dbus-run-session with gnome-keyring), or %s", op, fileHint))
		}
		return hint(ErrNoKeyring, err, fmt.Sprintf(
			"keystore: %s: cannot connect to the D-Bus session bus at %s (%v); "+
				"check DBUS_SESSION_BUS_ADDRESS, or %s", op, addr, err, fileHint))
	}
	bus := conn.BusObject()
	var owned bool
	if err := bus.CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, secretsName).Store(&owned); err != nil {
		return classify(op, err)
	}
	if owned {
		return nil
	}
	var names []string
	if err := bus.CallWithContext(ctx, "org.freedesktop.DBus.ListActivatableNames", 0).Store(&names); err != nil {
		return classify(op, err)
	}
	if slices.Contains(names, secretsName) {
		return nil // the bus starts it on the first call
	}
	return noSecretService(op, nil)
}

func noSecretService(op string, cause error) error {
	return hint(ErrNoKeyring, cause, fmt.Sprintf(
		"keystore: %s: no Secret Service on the D-Bus session bus (%s); "+
			"start gnome-keyring-daemon (or KeePassXC's Secret Service), or %s", op, secretsName, fileHint))
}

// classify maps an error from go-keyring or D-Bus to one of ours.
func classify(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, keyring.ErrNotFound) {
		return fmt.Errorf("keystore: %s: %w", op, ErrNotFound)
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err // guarded reports it
	}
	if e := platformError(op, err); e != nil {
		return e
	}
	var name string
	var de dbus.Error
	var dp *dbus.Error
	switch {
	case errors.As(err, &de):
		name = de.Name
	case errors.As(err, &dp):
		name = dp.Name
	}
	switch name {
	case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
		"org.freedesktop.DBus.Error.Spawn.ChildExited", "org.freedesktop.DBus.Error.Spawn.ExecFailed":
		return noSecretService(op, err)
	case "org.freedesktop.Secret.Error.IsLocked":
		return locked(op, err)
	case "org.freedesktop.Secret.Error.NoSuchObject":
		return hint(ErrNoKeyring, err, fmt.Sprintf(
			"keystore: %s: the Secret Service has no default keyring (%v); "+
				"create one (e.g. in Seahorse), or %s", op, err, fileHint))
	}
	// go-keyring's own message when an unlock prompt was dismissed or failed.
	if strings.Contains(err.Error(), "failed to unlock") {
		return locked(op, err)
	}
	return fmt.Errorf("keystore: %s: %w", op, err)
}

func locked(op string, cause error) error {
	return hint(ErrLocked, cause, fmt.Sprintf(
		"keystore: %s: the OS keyring is locked and was not unlocked (prompt dismissed?); "+
			"unlock it (log in again, or use Seahorse) and retry, or %s", op, fileHint))
}
