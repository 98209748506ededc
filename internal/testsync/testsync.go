// Package testsync holds helpers for tests of concurrent code: Buffer, a
// bytes.Buffer that a process's output or a logger may write to while the
// test reads it, and Eventually, which waits for a condition without
// asserting how long it takes.
package testsync

import (
	"bytes"
	"sync"
	"testing"
	"time"
)

// Buffer is a bytes.Buffer safe for concurrent use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
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
