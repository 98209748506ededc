package transporttest

import (
	"fmt"
	"testing"
	"time"
)

// recorder is a testing.TB that keeps Cleanup funcs and failures.
type recorder struct {
	*testing.T
	cleanups []func()
	failed   string
}

func (r *recorder) Cleanup(f func())               { r.cleanups = append(r.cleanups, f) }
func (r *recorder) Errorf(format string, a ...any) { r.failed = fmt.Sprintf(format, a...) }

func (r *recorder) runCleanups() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

// TestNoLeaksDetects checks the checker: a goroutine left blocked fails it,
// and one that ends in time does not.
func TestNoLeaksDetects(t *testing.T) {
	defer func(d time.Duration) { leakWait = d }(leakWait)
	leakWait = 200 * time.Millisecond

	stop := make(chan struct{})
	r := &recorder{T: t}
	NoLeaks(r)
	go func() { <-stop }()
	r.runCleanups()
	close(stop)
	if r.failed == "" {
		t.Fatal("NoLeaks missed a blocked goroutine")
	}

	r = &recorder{T: t}
	NoLeaks(r)
	done := make(chan struct{})
	go func() { time.Sleep(20 * time.Millisecond); close(done) }()
	r.runCleanups()
	<-done
	if r.failed != "" {
		t.Fatalf("NoLeaks flagged a goroutine that ended: %s", r.failed)
	}
}
