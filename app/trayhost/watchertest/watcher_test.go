package watchertest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

func TestRegisterItem(t *testing.T) {
	bus, err := StartBus(t.TempDir())
	if errors.Is(err, ErrNoDaemon) {
		t.Skip("dbus-daemon not installed")
	}
	if err != nil {
		t.Fatal(err)
	}
	defer bus.Close()
	w, err := Start(bus.Address)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := Start(bus.Address); err == nil {
		t.Fatal("a second watcher got the name")
	}

	item, err := dbus.Connect(bus.Address)
	if err != nil {
		t.Fatal(err)
	}
	defer item.Close()
	// fyne.io/systray registers with its object path.
	if err := item.Object(Name, Path).Call(iface+".RegisterStatusNotifierItem", 0, "/StatusNotifierItem").Err; err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	it, err := w.WaitItem(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := Item{Sender: item.Names()[0], Bus: item.Names()[0], Path: "/StatusNotifierItem"}
	if it != want {
		t.Errorf("item = %+v, want %+v", it, want)
	}
	v, err := item.Object(Name, Path).GetProperty(iface + ".RegisteredStatusNotifierItems")
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Value().([]string); len(got) != 1 || got[0] != want.Bus+"/StatusNotifierItem" {
		t.Errorf("RegisteredStatusNotifierItems = %v", got)
	}
	// A registration by bus name keeps the name.
	if err := item.Object(Name, Path).Call(iface+".RegisterStatusNotifierItem", 0, "org.example.Item").Err; err != nil {
		t.Fatal(err)
	}
	if it, _ := w.WaitItem(ctx); it.Bus != "org.example.Item" || it.Path != "/StatusNotifierItem" {
		t.Errorf("by name: %+v", it)
	}
	if n := len(w.Items()); n != 2 {
		t.Errorf("%d items, want 2", n)
	}
}
