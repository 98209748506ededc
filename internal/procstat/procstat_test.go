package procstat

import (
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestParseStatusKiB(t *testing.T) {
	s := "Name:\tx\nVmPeak:\t  99999 kB\nVmHWM:\t   20480 kB\nVmRSS:\t 1 kB\n"
	if got, err := ParseStatusKiB(s, "VmHWM"); err != nil || got != 20480 {
		t.Errorf("VmHWM = %d, %v; want 20480", got, err)
	}
	if got, err := ParseStatusKiB(s, "VmRSS"); err != nil || got != 1 {
		t.Errorf("VmRSS = %d, %v; want 1", got, err)
	}
	if got, err := ParseStatusKiB(s, "VmSwap"); err == nil {
		t.Errorf("VmSwap = %d, want an error: the status has none", got)
	}
	if got, err := ParseStatusKiB("VmRSS:\t x kB\n", "VmRSS"); err == nil {
		t.Errorf("VmRSS x = %d, want an error", got)
	}
}

// TestThisProcess reads this process's figures from the real /proc.
func TestThisProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("no /proc")
	}
	if !slices.Contains(Pids(), os.Getpid()) {
		t.Errorf("Pids() lacks this process (%d)", os.Getpid())
	}
	self, err := StatusKiB(Self, "VmRSS")
	if err != nil || self <= 0 {
		t.Fatalf("StatusKiB(Self, VmRSS) = %d, %v", self, err)
	}
	byPid, err := StatusKiB(os.Getpid(), "VmHWM")
	if err != nil || byPid < self { // the peak is never below what was resident before
		t.Errorf("StatusKiB(pid, VmHWM) = %d, %v; VmRSS was %d before", byPid, err, self)
	}
}

// FuzzParseStatusKiB: any text gives a figure or an error, never a panic,
// and a figure comes from a line that names the field.
func FuzzParseStatusKiB(f *testing.F) {
	f.Add("Name:\tx\nVmHWM:\t   20480 kB\nVmRSS:\t 1 kB\n", "VmRSS")
	f.Add("VmRSS:\n", "VmRSS")
	f.Add("VmRSS: -5 kB", "VmRSS")
	f.Fuzz(func(t *testing.T, status, field string) {
		got, err := ParseStatusKiB(status, field)
		if err == nil && !strings.Contains(status, field+":") {
			t.Fatalf("%s = %d from a status that does not name it: %q", field, got, status)
		}
	})
}
