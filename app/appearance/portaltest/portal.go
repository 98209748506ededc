// Package portaltest serves a fake freedesktop settings portal
// (org.freedesktop.portal.Settings) on a test session bus: the color scheme
// a desktop answers, through version 2's ReadOne or only version 1's Read,
// and the SettingChanged signals it sends when the person switches.
//
// It is for tests only.
package portaltest

import (
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"
)

// The portal's bus name, object and interface, and the setting it answers.
const (
	Name      = "org.freedesktop.portal.Desktop"
	Path      = dbus.ObjectPath("/org/freedesktop/portal/desktop")
	Iface     = "org.freedesktop.portal.Settings"
	Namespace = "org.freedesktop.appearance"
	Key       = "color-scheme"
)

// Portal is a running fake portal.
type Portal struct {
	conn *dbus.Conn

	mu     sync.Mutex // guards scheme
	scheme uint32
}

// Serve starts a version 2 portal (ReadOne) answering scheme on a
// connection of its own to the bus at addr; it ends with the test.
func Serve(t testing.TB, addr string, scheme uint32) *Portal {
	t.Helper()
	p := &Portal{scheme: scheme}
	p.serve(t, addr, v2{p})
	return p
}

// ServeV1 is Serve for a version 1 portal: only Read, which wraps the
// value in a second variant.
func ServeV1(t testing.TB, addr string, scheme uint32) *Portal {
	t.Helper()
	p := &Portal{scheme: scheme}
	p.serve(t, addr, v1{p})
	return p
}

// serve exports impl and takes the portal's name.
func (p *Portal) serve(t testing.TB, addr string, impl any) {
	t.Helper()
	c, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	p.conn = c
	if err := c.Export(impl, Path, Iface); err != nil {
		t.Fatal(err)
	}
	if r, err := c.RequestName(Name, dbus.NameFlagDoNotQueue); err != nil || r != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("request name: %v %v", r, err)
	}
}

// Conn is the portal's connection to the bus.
func (p *Portal) Conn() *dbus.Conn { return p.conn }

// Set changes the scheme and signals it, as a desktop does when the person
// switches between light and dark.
func (p *Portal) Set(t testing.TB, scheme uint32) {
	t.Helper()
	p.mu.Lock()
	p.scheme = scheme
	p.mu.Unlock()
	p.Emit(t, Namespace, Key, scheme)
}

// Emit sends SettingChanged for ns and key with value v, and changes
// nothing the portal answers.
func (p *Portal) Emit(t testing.TB, ns, key string, v uint32) {
	t.Helper()
	if err := p.conn.Emit(Path, Iface+".SettingChanged", ns, key, dbus.MakeVariant(v)); err != nil {
		t.Fatal(err)
	}
}

// value answers a read of ns and key: the scheme, or NotFound.
func (p *Portal) value(ns, key string) (dbus.Variant, *dbus.Error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ns != Namespace || key != Key {
		return dbus.Variant{}, dbus.NewError("org.freedesktop.portal.Error.NotFound", []any{"no such setting"})
	}
	return dbus.MakeVariant(p.scheme), nil
}

// v2 is the interface as version 2 exports it.
type v2 struct{ *Portal }

func (p v2) ReadOne(ns, key string) (dbus.Variant, *dbus.Error) { return p.value(ns, key) }

// v1 is the interface as version 1 exports it.
type v1 struct{ *Portal }

func (p v1) Read(ns, key string) (dbus.Variant, *dbus.Error) {
	v, err := p.value(ns, key)
	return dbus.MakeVariant(v), err
}
