//go:build smoke

package smoketest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// cpuTicks is a process's user+system CPU time in clock ticks
// (/proc/PID/stat fields 14 and 15).
func cpuTicks(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // fields from 3 on
	u, _ := strconv.ParseInt(f[11], 10, 64)
	k, _ := strconv.ParseInt(f[12], 10, 64)
	return u + k, nil
}

// TestStartupAndIdle measures (and logs) the time from exec to the tray
// icon registered with the StatusNotifierWatcher, and the app's CPU use
// while idle (node up, no peer, no window) over $AWP_IDLE_SECONDS
// (default 60). It fails only if the tray never registers.
func TestStartupAndIdle(t *testing.T) {
	need(t, "Xvfb", "dbus-daemon")
	trayBin, _ := binaries(t)
	ctx := deadline(t)
	display, bus, w := desktop(t)
	start := time.Now()
	tr := startTray(t, trayBin, env(t, display, bus), "--data", filepath.Join(t.TempDir(), "data"))
	if _, err := w.WaitItem(ctx); err != nil {
		t.Fatalf("the tray never registered: %v", err)
	}
	t.Logf("BENCH start-to-tray-registered: %v", time.Since(start).Round(time.Millisecond))
	if err := tr.until(ctx, "the node ready", func() bool { return strings.Contains(tr.out.String(), "msg=ready") }); err != nil {
		t.Fatal(err)
	}
	t.Logf("BENCH start-to-node-ready: %v", time.Since(start).Round(time.Millisecond))
	secs := 60
	if v, err := strconv.Atoi(os.Getenv("AWP_IDLE_SECONDS")); err == nil && v > 0 {
		secs = v
	}
	time.Sleep(2 * time.Second) // settle after boot
	pid := tr.cmd.Process.Pid
	before, err := cpuTicks(pid)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	time.Sleep(time.Duration(secs) * time.Second)
	after, _ := cpuTicks(pid)
	el := time.Since(t0)
	const hz = 100 // USER_HZ on Linux
	cpu := time.Duration(after-before) * time.Second / hz
	t.Logf("BENCH idle-cpu over %v: %v CPU (%.2f%% of one core)", el.Round(time.Second), cpu, 100*cpu.Seconds()/el.Seconds())
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "VmRSS:") {
				t.Logf("BENCH idle RSS: %s", strings.TrimSpace(strings.TrimPrefix(l, "VmRSS:")))
			}
		}
	}
}
