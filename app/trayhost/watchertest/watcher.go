// Package watchertest is a minimal StatusNotifierWatcher and a private
// D-Bus session bus for tests: enough of a tray host for fyne.io/systray
// to register with, so smoke tests can read the tray's menu over
// com.canonical.dbusmenu without a desktop.
//
// It is for tests only.
package watchertest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/introspect"
	"github.com/godbus/dbus/v5/prop"
)

// Name and Path of the watcher, as trayhost and systray expect them.
const (
	Name  = "org.kde.StatusNotifierWatcher"
	Path  = dbus.ObjectPath("/StatusNotifierWatcher")
	iface = "org.kde.StatusNotifierWatcher"
)

// Item is one registered StatusNotifierItem.
type Item struct {
	Sender string          // the unique bus name that registered
	Bus    string          // the bus name the item lives on
	Path   dbus.ObjectPath // the item's object path
}

// Watcher answers as org.kde.StatusNotifierWatcher on a bus.
type Watcher struct {
	conn  *dbus.Conn
	props *prop.Properties
	reg   chan Item

	mu sync.Mutex
	// mu guards:
	items []Item
}

// Start connects to the bus at addr and claims the watcher's name.
func Start(addr string) (*Watcher, error) {
	conn, err := dbus.Connect(addr)
	if err != nil {
		return nil, fmt.Errorf("watchertest: connect: %w", err)
	}
	w := &Watcher{conn: conn, reg: make(chan Item, 16)}
	if err := conn.Export(w, Path, iface); err != nil {
		conn.Close()
		return nil, err
	}
	w.props, err = prop.Export(conn, Path, map[string]map[string]*prop.Prop{iface: {
		"RegisteredStatusNotifierItems":  {Value: []string{}, Emit: prop.EmitTrue},
		"IsStatusNotifierHostRegistered": {Value: true, Emit: prop.EmitTrue},
		"ProtocolVersion":                {Value: int32(0), Emit: prop.EmitTrue},
	}})
	if err != nil {
		conn.Close()
		return nil, err
	}
	node := &introspect.Node{Name: string(Path), Interfaces: []introspect.Interface{
		introspect.IntrospectData, prop.IntrospectData,
		{Name: iface, Methods: introspect.Methods(w), Properties: w.props.Introspection(iface)},
	}}
	if err := conn.Export(introspect.NewIntrospectable(node), Path, "org.freedesktop.DBus.Introspectable"); err != nil {
		conn.Close()
		return nil, err
	}
	reply, err := conn.RequestName(Name, dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		conn.Close()
		return nil, fmt.Errorf("watchertest: request name %s: reply %v, %v", Name, reply, err)
	}
	return w, nil
}

// RegisterStatusNotifierItem is the D-Bus method items call. service is
// an object path on the caller's connection (what fyne.io/systray sends)
// or a bus name (then the path is /StatusNotifierItem).
func (w *Watcher) RegisterStatusNotifierItem(sender dbus.Sender, service string) *dbus.Error {
	it := Item{Sender: string(sender), Bus: string(sender), Path: "/StatusNotifierItem"}
	if strings.HasPrefix(service, "/") {
		it.Path = dbus.ObjectPath(service)
	} else if service != "" {
		it.Bus = service
	}
	w.mu.Lock()
	w.items = append(w.items, it)
	names := make([]string, len(w.items))
	for i, x := range w.items {
		names[i] = x.Bus + string(x.Path)
	}
	w.mu.Unlock()
	w.props.SetMust(iface, "RegisteredStatusNotifierItems", names)
	_ = w.conn.Emit(Path, iface+".StatusNotifierItemRegistered", it.Bus+string(it.Path))
	select {
	case w.reg <- it:
	default:
	}
	return nil
}

// RegisterStatusNotifierHost is the D-Bus method hosts call; accepted and
// ignored.
func (w *Watcher) RegisterStatusNotifierHost(service string) *dbus.Error { return nil }

// Items lists the items registered so far.
func (w *Watcher) Items() []Item {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Item(nil), w.items...)
}

// WaitItem returns the next registration, or ctx's error.
func (w *Watcher) WaitItem(ctx context.Context) (Item, error) {
	select {
	case it := <-w.reg:
		return it, nil
	case <-ctx.Done():
		return Item{}, ctx.Err()
	}
}

// Conn is the watcher's bus connection, for calling the items it saw.
func (w *Watcher) Conn() *dbus.Conn { return w.conn }

// Close releases the name and the connection.
func (w *Watcher) Close() error { return w.conn.Close() }

// Bus is a private dbus-daemon.
type Bus struct {
	Address string
	cmd     *exec.Cmd
}

// ErrNoDaemon is returned by StartBus when dbus-daemon is not installed.
var ErrNoDaemon = errors.New("watchertest: dbus-daemon not found")

// BusConfig is a dbus-daemon config for a session bus that lets every
// connection of the user own and call any name and activates only the
// services in serviceDirs (none when there are none).
func BusConfig(serviceDirs ...string) string {
	var dirs strings.Builder
	for _, d := range serviceDirs {
		fmt.Fprintf(&dirs, "  <servicedir>%s</servicedir>\n", d)
	}
	return `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <keep_umask/>
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
` + dirs.String() + `  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`
}

// StartBus starts a private session bus listening in dir.
func StartBus(dir string) (*Bus, error) {
	daemon, err := exec.LookPath("dbus-daemon")
	if err != nil {
		return nil, ErrNoDaemon
	}
	// A config of its own, without the standard service directories: the
	// stock session config would start whatever desktop services the
	// machine has installed on first use (dunst for notifications, which
	// aborts without the test's display), so tests would depend on them.
	conf := filepath.Join(dir, "bus.conf")
	if err := os.WriteFile(conf, []byte(BusConfig()), 0o644); err != nil {
		return nil, err
	}
	sock := filepath.Join(dir, "bus")
	cmd := exec.Command(daemon, "--config-file="+conf, "--nofork", "--nopidfile", "--print-address=1", "--address=unix:path="+sock)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	lines := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(out)
		if s.Scan() {
			lines <- s.Text()
		}
		close(lines)
	}()
	select {
	case addr, ok := <-lines:
		if !ok || addr == "" {
			cmd.Process.Kill()
			cmd.Wait()
			return nil, errors.New("watchertest: dbus-daemon printed no address")
		}
		return &Bus{Address: addr, cmd: cmd}, nil
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		return nil, errors.New("watchertest: dbus-daemon did not start")
	}
}

// TestBus starts a private session bus for t, stopped when t ends; t is
// skipped when dbus-daemon is not installed.
func TestBus(t testing.TB) *Bus {
	t.Helper()
	bus, err := StartBus(t.TempDir())
	if errors.Is(err, ErrNoDaemon) {
		t.Skip("dbus-daemon not installed (apt-get install dbus)")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bus.Close() })
	return bus
}

// Close stops the daemon.
func (b *Bus) Close() error {
	_ = b.cmd.Process.Kill()
	_ = b.cmd.Wait()
	return nil
}
