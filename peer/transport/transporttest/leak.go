package transporttest

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
	"time"
)

// leakWait bounds how long NoLeaks waits for goroutines to wind down after
// the test's other cleanups (some stacks finish their workers
// asynchronously after Close returns). It is a liveness bound, not a
// performance assertion.
var leakWait = 20 * time.Second

// ignoredFrames mark goroutines that belong to the runtime or the testing
// package, not to the code under test.
var ignoredFrames = []string{
	"testing.(*T).Run",
	"testing.(*M).",
	"testing.tRunner",
	"testing.runFuzzing",
	"runtime.goexit0",
	"os/signal.signal_recv",
	"os/signal.loop",
	"runtime.ensureSigM",
	"runtime/trace.",
}

// NoLeaks fails t if goroutines started during the test are still running
// once the test and its other cleanups have finished. Call it first in a
// test, so its cleanup runs last.
func NoLeaks(t testing.TB) {
	t.Helper()
	before := goroutines()
	t.Cleanup(func() {
		deadline := time.Now().Add(leakWait)
		for {
			extra := leaked(before)
			if len(extra) == 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("transporttest: %d goroutine(s) still running after Close:\n\n%s",
					len(extra), strings.Join(extra, "\n\n"))
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
}

// leaked returns the stacks of goroutines not in before, other than the
// calling one and the ignored ones.
func leaked(before map[string]bool) []string {
	var out []string
	now := goroutines()
	self := selfID()
	for id, stack := range stacks() {
		if before[id] || id == self || !now[id] || ignored(stack) {
			continue
		}
		out = append(out, stack)
	}
	return out
}

func ignored(stack string) bool {
	for _, f := range ignoredFrames {
		if strings.Contains(stack, f) {
			return true
		}
	}
	return false
}

// goroutines returns the ids of every goroutine.
func goroutines() map[string]bool {
	ids := make(map[string]bool)
	for id := range stacks() {
		ids[id] = true
	}
	return ids
}

// stacks maps goroutine id to its stack trace.
func stacks() map[string]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := make(map[string]string)
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		s := string(g)
		id, ok := goroutineID(s)
		if ok {
			out[id] = s
		}
	}
	return out
}

// goroutineID parses "goroutine 42 [running]:".
func goroutineID(stack string) (string, bool) {
	rest, ok := strings.CutPrefix(stack, "goroutine ")
	if !ok {
		return "", false
	}
	id, _, ok := strings.Cut(rest, " ")
	return id, ok
}

func selfID() string {
	buf := make([]byte, 64)
	n := runtime.Stack(buf, false)
	id, _ := goroutineID(string(buf[:n]))
	return id
}
