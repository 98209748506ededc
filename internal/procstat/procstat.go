// Package procstat reads what Linux's /proc tells of processes, for the
// benchmarks and tests that measure them: which processes there are, and
// the fields of /proc/PID/status given in kB (VmRSS, resident memory now;
// VmHWM, its peak). It owns nothing else. Where there is no /proc, Pids
// finds none and StatusKiB fails.
package procstat

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Self is the pid that names this process (/proc/self).
const Self = 0

// Pids lists the processes in /proc.
func Pids() []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// StatusKiB reads field ("VmRSS", "VmHWM"…) of /proc/PID/status, which
// gives it in kB (KiB).
func StatusKiB(pid int, field string) (int64, error) {
	dir := "self"
	if pid != Self {
		dir = strconv.Itoa(pid)
	}
	b, err := os.ReadFile("/proc/" + dir + "/status")
	if err != nil {
		return 0, err
	}
	return ParseStatusKiB(string(b), field)
}

// ParseStatusKiB reads field from the text of a /proc/PID/status file.
func ParseStatusKiB(status, field string) (int64, error) {
	for _, l := range strings.Split(status, "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == field+":" {
			return strconv.ParseInt(f[1], 10, 64)
		}
	}
	return 0, fmt.Errorf("procstat: no %s in the status", field)
}
