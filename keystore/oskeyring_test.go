package keystore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/zalando/go-keyring"
)

// With DBUS_SESSION_BUS_ADDRESS naming a socket that does not exist, the
// real OSKeyring says so at once: a clear ErrNoKeyring, not a hang.
func TestOSKeyringNoSessionBus(t *testing.T) {
	if !usesSecretService() {
		t.Skip("no Secret Service on this platform")
	}
	sock := filepath.Join(t.TempDir(), "no-such-bus")
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+sock)
	s, err := Open(Options{DataDir: t.TempDir(), Backend: OSKeyring(time.Minute), Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = s.LoadOrCreate(context.Background())
	if !errors.Is(err, ErrNoKeyring) {
		t.Fatalf("LoadOrCreate: %v, want ErrNoKeyring", err)
	}
	for _, want := range []string{"cannot connect to the D-Bus session bus", sock, "--keyring file"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if errors.Is(err, ErrKeyringTimeout) {
		t.Error("reported as a timeout")
	}
}

// With DBUS_SESSION_BUS_ADDRESS unset (and no per-user bus to find), it says
// there is no session bus, and does not start one with dbus-launch.
func TestOSKeyringBusUnset(t *testing.T) {
	if !usesSecretService() {
		t.Skip("no Secret Service on this platform")
	}
	if u, err := user.Current(); err == nil {
		for _, f := range []string{"bus", "dbus-session"} {
			if _, err := os.Stat(filepath.Join("/run/user", u.Uid, f)); err == nil {
				t.Skipf("a per-user session bus exists (/run/user/%s/%s), so the bus is found without the variable", u.Uid, f)
			}
		}
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	_, err := OSKeyring(time.Minute).Get(context.Background(), Service, t.TempDir())
	if !errors.Is(err, ErrNoKeyring) || !strings.Contains(err.Error(), "DBUS_SESSION_BUS_ADDRESS is not set") {
		t.Fatalf("Get: %v, want ErrNoKeyring saying the variable is not set", err)
	}
	if v := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); v != "" {
		t.Fatalf("a session bus was launched: DBUS_SESSION_BUS_ADDRESS=%s", v)
	}
}

// A bus that accepts the connection and then never answers: the real
// OSKeyring returns ErrKeyringTimeout within its timeout.
func TestOSKeyringTimeout(t *testing.T) {
	if !usesSecretService() {
		t.Skip("no Secret Service on this platform")
	}
	sock := filepath.Join(t.TempDir(), "bus")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c // hold it open, say nothing
		}
	}()
	t.Cleanup(func() {
		l.Close()
		for c := range accepted {
			c.Close()
		}
	})
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+sock)
	_, err = OSKeyring(100*time.Millisecond).Get(context.Background(), Service, t.TempDir())
	if !errors.Is(err, ErrKeyringTimeout) {
		t.Fatalf("Get from a silent bus: %v, want ErrKeyringTimeout", err)
	}
	if !strings.Contains(err.Error(), "did not answer within 100ms") || !strings.Contains(err.Error(), "--keyring file") {
		t.Errorf("error does not say what happened and what to do: %v", err)
	}
}

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		err  error
		want error
		text string
	}{
		{keyring.ErrNotFound, ErrNotFound, ""},
		{dbus.Error{Name: "org.freedesktop.DBus.Error.ServiceUnknown"}, ErrNoKeyring, "no Secret Service"},
		{&dbus.Error{Name: "org.freedesktop.DBus.Error.ServiceUnknown"}, ErrNoKeyring, "gnome-keyring-daemon"},
		{dbus.Error{Name: "org.freedesktop.Secret.Error.IsLocked"}, ErrLocked, "locked"},
		{fmt.Errorf("failed to unlock correct collection '/org/freedesktop/secrets/aliases/default'"), ErrLocked, "unlock it"},
		{dbus.Error{Name: "org.freedesktop.Secret.Error.NoSuchObject"}, ErrNoKeyring, "no default keyring"},
	} {
		got := classify("read the OS keyring", c.err)
		if !errors.Is(got, c.want) || !strings.Contains(got.Error(), c.text) {
			t.Errorf("classify(%v) = %v, want %v mentioning %q", c.err, got, c.want, c.text)
		}
		if c.want != ErrNotFound && !strings.Contains(got.Error(), "--keyring file") {
			t.Errorf("classify(%v) = %v: no hint to use the key file", c.err, got)
		}
		var de dbus.Error
		var dp *dbus.Error
		if c.want != ErrNotFound && !errors.Is(got, c.err) && !errors.As(got, &de) && !errors.As(got, &dp) {
			t.Errorf("classify(%v) does not wrap the cause", c.err)
		}
	}
	other := errors.New("dbus: strange")
	if got := classify("x", other); !errors.Is(got, other) || errors.Is(got, ErrNoKeyring) || errors.Is(got, ErrLocked) {
		t.Errorf("classify of an unknown error = %v", got)
	}
}
