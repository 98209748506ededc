package instance

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// testAddr is a unique address per test: abstract on Linux, a file elsewhere.
func testAddr(t *testing.T) string {
	return Address(filepath.Join(t.TempDir(), "data"))
}

func TestAddressStable(t *testing.T) {
	a, b := Address("/x/data"), Address("/x/data")
	if a != b {
		t.Errorf("Address not stable: %q %q", a, b)
	}
	if Address("/x/data") == Address("/x/data2") {
		t.Error("two data dirs share an address")
	}
	if runtime.GOOS == "linux" && !strings.HasPrefix(a, "@dev.awp.tray.") {
		t.Errorf("Linux address %q is not abstract", a)
	}
	wd, _ := os.Getwd()
	if Address("rel") != Address(filepath.Join(wd, "rel")) {
		t.Error("relative and absolute forms of one dir differ")
	}
}

func TestSecondLaunchShowsFirst(t *testing.T) {
	addr := testAddr(t)
	first, err := Claim(addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	shown := make(chan struct{}, 4)
	served := make(chan error, 1)
	go func() { served <- first.Serve(func() { shown <- struct{}{} }) }()

	for i := 0; i < 2; i++ {
		second, err := Claim(addr, nil)
		if !errors.Is(err, ErrRunning) {
			t.Fatalf("launch %d: Claim = %v, %v; want ErrRunning", i+2, second, err)
		}
		// The answer comes after the callback ran, so the signal is already there.
		select {
		case <-shown:
		default:
			t.Fatalf("launch %d: ErrRunning returned before the first instance was asked to show", i+2)
		}
	}

	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve after Close = %v", err)
	}
	if err := first.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}

	// Once the first is gone, the next launch becomes the instance.
	again, err := Claim(addr, nil)
	if err != nil {
		t.Fatalf("Claim after Close: %v", err)
	}
	again.Close()
}

func TestUnknownRequest(t *testing.T) {
	addr := testAddr(t)
	first, err := Claim(addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	var called atomic.Bool
	go first.Serve(func() { called.Store(true) })
	// A raw client with a wrong request gets "unknown" and show is not called.
	err = askRaw(addr, "hello\n")
	if err == nil || !strings.Contains(err.Error(), "unknown") {
		t.Errorf("wrong request answered with %v", err)
	}
	if called.Load() {
		t.Error("show called for an unknown request")
	}
}

func TestStaleSocketFileIsReclaimed(t *testing.T) {
	// A socket file that nobody listens on (left by a crash) is removed.
	dir := t.TempDir()
	addr := filepath.Join(dir, "tray.sock")
	if err := os.WriteFile(addr, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	inst, err := Claim(addr, nil)
	if err != nil {
		t.Fatalf("Claim over a stale file: %v", err)
	}
	inst.Close()
}
