package wg

import (
	"fmt"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestLinkWatch adds an address to the loopback interface and removes it
// again (as root; elsewhere the test says why it cannot and skips): each
// change, a burst of netlink messages, gives one call once it settled, and
// none comes after Close.
func TestLinkWatch(t *testing.T) {
	old := linkSettle
	linkSettle = 100 * time.Millisecond
	defer func() { linkSettle = old }()
	var calls atomic.Int32
	w, err := startLinkWatch(func() { calls.Add(1) })
	if err != nil {
		t.Fatalf("netlink: %v", err)
	}
	closed := false
	defer func() {
		if !closed {
			w.Close()
		}
	}()
	const addr = "127.77.0.1/32"
	ip := func(args ...string) error {
		out, err := exec.Command("ip", args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	if err := ip("addr", "add", addr, "dev", "lo"); err != nil {
		t.Skipf("cannot change an address here (needs root and iproute2): %v", err)
	}
	added := true
	defer func() {
		if added {
			ip("addr", "del", addr, "dev", "lo")
		}
	}()
	wait := func(want int32) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for calls.Load() < want {
			if time.Now().After(deadline) {
				t.Fatalf("%d calls after 10 s, want %d", calls.Load(), want)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	wait(1)
	time.Sleep(3 * linkSettle)
	if n := calls.Load(); n != 1 {
		t.Fatalf("one address added: %d calls, want 1 (a burst is one change)", n)
	}
	if err := ip("addr", "del", addr, "dev", "lo"); err != nil {
		t.Fatal(err)
	}
	added = false
	wait(2)
	w.Close()
	closed = true
	n := calls.Load()
	if err := ip("addr", "add", addr, "dev", "lo"); err == nil {
		ip("addr", "del", addr, "dev", "lo")
	}
	time.Sleep(3 * linkSettle)
	if calls.Load() != n {
		t.Fatalf("a call came after Close")
	}
}
