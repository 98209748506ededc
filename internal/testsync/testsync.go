// Package testsync holds helpers for tests of concurrent code: Buffer, a
// bytes.Buffer that a process's output or a logger may write to while the
// test reads it or waits for a line in it, and Eventually, which waits for
// a condition. Neither asserts how long anything takes: their bounds only
// turn a hang into a failure.
package testsync

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// Buffer is a bytes.Buffer safe for concurrent use: a process's output or
// a logger writes to it while the test reads it, or waits for what it
// expects to appear in it.
type Buffer struct {
	mu    sync.Mutex // guards b and wrote
	b     bytes.Buffer
	wrote chan struct{} // holds a token after a write; made on first use
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.b.Write(p)
	select {
	case b.wroteLocked() <- struct{}{}:
	default:
	}
	return len(p), nil
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// WaitFor waits until what was written contains s; it fails the test if
// that has not happened after EventuallyWithin.
func (b *Buffer) WaitFor(t testing.TB, s string) {
	t.Helper()
	deadline := time.NewTimer(EventuallyWithin)
	defer deadline.Stop()
	for {
		b.mu.Lock()
		found, wrote := strings.Contains(b.b.String(), s), b.wroteLocked()
		b.mu.Unlock()
		if found {
			return
		}
		select {
		case <-wrote:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %q in:\n%s", s, b.String())
		}
	}
}

func (b *Buffer) wroteLocked() chan struct{} {
	if b.wrote == nil {
		b.wrote = make(chan struct{}, 1)
	}
	return b.wrote
}

// EventuallyWithin bounds how long Eventually waits: only a failure takes
// that long, so it is generous for loaded machines.
const EventuallyWithin = 30 * time.Second

// pollEvery is how often Eventually checks its condition.
const pollEvery = 5 * time.Millisecond

// Eventually polls cond until it holds; it fails the test, naming what,
// if cond still does not hold after EventuallyWithin.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(EventuallyWithin)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(pollEvery)
	}
}
