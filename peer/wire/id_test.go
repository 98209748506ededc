package wire

import (
	"encoding/binary"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestIDGenMonotonic(t *testing.T) {
	var g IDGen
	prev := g.New()
	for i := 0; i < 10000; i++ {
		id := g.New()
		if !ValidID(id) {
			t.Fatalf("invalid id %q", id)
		}
		if id <= prev {
			t.Fatalf("id %d: %s <= %s", i, id, prev)
		}
		prev = id
	}
}

// fakeClock returns the times of steps in order, then the last one forever.
type fakeClock struct {
	mu    sync.Mutex
	steps []time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.steps[0]
	if len(c.steps) > 1 {
		c.steps = c.steps[1:]
	}
	return t
}

func TestIDGenClockBackwards(t *testing.T) {
	base := time.Date(2026, 9, 25, 17, 3, 11, 0, time.UTC)
	var steps []time.Time
	for _, d := range []time.Duration{0, 0, 0, time.Millisecond, -time.Hour, -time.Hour, -24 * time.Hour, 2 * time.Millisecond, time.Millisecond, time.Second, time.Second, -time.Second} {
		steps = append(steps, base.Add(d))
	}
	c := &fakeClock{steps: steps}
	g := IDGen{Now: c.Now}
	var prev string
	for i := 0; i < len(steps)+5; i++ {
		id := g.New()
		if id <= prev {
			t.Fatalf("step %d: %s <= %s", i, id, prev)
		}
		prev = id
	}
}

func TestIDGenTimePrefix(t *testing.T) {
	// 1469918176385 ms is 01ARYZ6S41 in Crockford base32 (computed independently).
	g := IDGen{Now: func() time.Time { return time.UnixMilli(1469918176385) }}
	id := g.New()
	if !strings.HasPrefix(id, "01ARYZ6S41") {
		t.Fatalf("id %s, want prefix 01ARYZ6S41", id)
	}
	u, ok := decodeULID(id)
	if !ok || encodeULID(u) != id {
		t.Fatalf("decode/encode %s: %v %s", id, ok, encodeULID(u))
	}
	// Within one millisecond the random part counts up.
	next := g.New()
	if next[:10] != id[:10] || next <= id {
		t.Fatalf("same-ms id %s after %s", next, id)
	}
}

func TestIDGenObserve(t *testing.T) {
	now := time.Date(2026, 9, 25, 17, 3, 11, 0, time.UTC)
	g := IDGen{Now: func() time.Time { return now }}
	first := g.New()

	// An id from the future (e.g. written before the clock was set back).
	future := IDGen{Now: func() time.Time { return now.Add(time.Hour) }}
	f := future.New()
	g.Observe(f)
	if id := g.New(); id <= f {
		t.Fatalf("after Observe(%s): %s", f, id)
	}

	// Observing an older or invalid id changes nothing.
	before := g.New()
	g.Observe(first)
	g.Observe("not an id")
	g.Observe("8ZZZZZZZZZZZZZZZZZZZZZZZZZ")
	if id := g.New(); id <= before {
		t.Fatalf("Observe of an old or bad id moved the generator back: %s <= %s", id, before)
	}

	// A lowercase id is the same ULID.
	var h IDGen
	h.Now = g.Now
	h.Observe(strings.ToLower(f))
	if id := h.New(); id <= f {
		t.Fatalf("after Observe(lowercase %s): %s", f, id)
	}
}

// TestIDGenObserveAllOnes: an observed id whose random part is all ones must
// not make the next id wrap around to a smaller one.
func TestIDGenObserveAllOnes(t *testing.T) {
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	g := IDGen{Now: func() time.Time { return old }}
	g.New()
	top := "01J9ZX0000ZZZZZZZZZZZZZZZZ"
	g.Observe(top)
	id := g.New()
	if id <= top {
		t.Fatalf("after Observe(%s): %s", top, id)
	}
	if !strings.HasPrefix(id, "01J9ZX0001") {
		t.Errorf("after Observe(%s): %s, want the carry into the timestamp", top, id)
	}
}

// TestIDGenNotGuessable: within one millisecond (a frozen clock) each id
// is the last plus a random step, so a peer that sees two of them cannot
// tell the ids made between (an err to it, a request to another peer, an
// err to it: the request's id is not the gap's middle).
func TestIDGenNotGuessable(t *testing.T) {
	now := time.Date(2026, 9, 25, 17, 3, 11, 0, time.UTC)
	g := IDGen{Now: func() time.Time { return now }}
	prev, _ := decodeULID(g.New())
	steps := map[uint64]bool{}
	const n = 1000
	for range n {
		id := g.New()
		u, _ := decodeULID(id)
		if id[:10] != encodeULID(prev)[:10] {
			t.Fatalf("id %s left the millisecond", id)
		}
		step := binary.BigEndian.Uint64(u[8:]) - binary.BigEndian.Uint64(prev[8:])
		if step == 0 || step > 1<<32 {
			t.Fatalf("step %d", step)
		}
		steps[step] = true
		prev = u
	}
	if len(steps) < n-10 || steps[1] {
		t.Fatalf("%d distinct steps in %d (step 1 seen: %v): guessable", len(steps), n, steps[1])
	}
}

func TestIDGenConcurrent(t *testing.T) {
	var g IDGen
	const workers, per = 4, 2000
	ids := make(chan string, workers*per)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < per; i++ {
				ids <- g.New()
			}
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		if seen[id] {
			t.Fatalf("duplicate id %s", id)
		}
		seen[id] = true
	}
}

// validCase is a text and whether a validator accepts it.
type validCase struct {
	s  string
	ok bool
}

// checkValid checks that valid (named name) accepts exactly the cases
// marked ok.
func checkValid(t *testing.T, name string, valid func(string) bool, cases []validCase) {
	t.Helper()
	for _, c := range cases {
		if got := valid(c.s); got != c.ok {
			t.Errorf("%s(%q) = %v, want %v", name, c.s, got, c.ok)
		}
	}
}

func TestValidID(t *testing.T) {
	checkValid(t, "ValidID", ValidID, []validCase{
		{"01J9ZX0000000000000000000A", true},
		{"01ARZ3NDEKTSV4RRFFQ69G5FAV", true},
		{"7ZZZZZZZZZZZZZZZZZZZZZZZZZ", true},
		{"00000000000000000000000000", true},
		{"01arz3ndektsv4rrffq69g5fav", true}, // Crockford is case-insensitive
		{"8ZZZZZZZZZZZZZZZZZZZZZZZZZ", false},
		{"", false},
		{"01J9ZX0000000000000000000", false},
		{"01J9ZX0000000000000000000AA", false},
		{"01J9ZX000000000000000000IA", false},
		{"01J9ZX000000000000000000LA", false},
		{"01J9ZX000000000000000000OA", false},
		{"01J9ZX000000000000000000UA", false},
		{"01J9ZX000000000000000000uA", false},
		{"01J9ZX00000000000000000-0A", false},
		{"01J9ZX00000000000000000 0A", false},
		{"01J9ZX0000000000000000000\u00e9"[:26], false},
	})
}

func TestValidThread(t *testing.T) {
	checkValid(t, "ValidThread", ValidThread, []validCase{
		{"thr_9k2", true},
		{"thr_a", true},
		{"thr_" + strings.Repeat("z", 32), true},
		{"thr_" + strings.Repeat("z", 33), false},
		{"thr_", false},
		{"thr", false},
		{"", false},
		{"THR_abc", false},
		{"thr_ABC", false},
		{"thr_a-b", false},
		{"thr_a_b", false},
		{"thr_a b", false},
		{"thr_\u00e9", false},
		{"xthr_abc", false},
	})
}

func TestNewThread(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		th := NewThread()
		if !ValidThread(th) || len(th) != len("thr_")+16 {
			t.Fatalf("NewThread() = %q", th)
		}
		if seen[th] {
			t.Fatalf("duplicate thread %s", th)
		}
		seen[th] = true
	}
}

func TestNewNonce(t *testing.T) {
	for _, n := range []int{16, 32} {
		s := NewNonce(n)
		b, err := b64url.DecodeString(s)
		if err != nil || len(b) != n || strings.ContainsAny(s, "=+/") {
			t.Errorf("NewNonce(%d) = %q (%d bytes, %v)", n, s, len(b), err)
		}
	}
	if a, b := NewNonce(16), NewNonce(16); a == b {
		t.Errorf("two equal nonces")
	}
}

func TestTime(t *testing.T) {
	loc := time.FixedZone("X", 5*3600+30*60)
	in := time.Date(2026, 9, 25, 22, 33, 11, 123456789, loc)
	s := FormatTime(in)
	if s != "2026-09-25T17:03:11.123Z" {
		t.Fatalf("FormatTime = %s", s)
	}
	got, err := ParseTime(s)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(in.Truncate(time.Millisecond)) || got.Location() != time.UTC {
		t.Errorf("ParseTime(%s) = %v", s, got)
	}
	if FormatTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) != "2026-01-02T03:04:05.000Z" {
		t.Errorf("FormatTime whole second = %s", FormatTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)))
	}

	for _, s := range []string{
		"2026-09-25T17:03:11Z",
		"2026-09-25T17:03:11.1Z",
		"2026-09-25T17:03:11.123456789Z",
	} {
		if _, err := ParseTime(s); err != nil {
			t.Errorf("ParseTime(%s) = %v", s, err)
		}
	}
	for _, s := range []string{
		"",
		"Z",
		"2026-09-25T17:03:11+00:00",
		"2026-09-25T17:03:11+01:00",
		"2026-09-25T17:03:11-00:00",
		"2026-09-25T17:03:11z",
		"2026-09-25T17:03:11",
		"2026-09-25 17:03:11Z",
		"2026-09-25T17:03Z",
		"2026-09-25Z",
		"2026-13-25T17:03:11Z",
		"2026-09-25T25:03:11Z",
		"2026-09-25T17:03:11+01:00Z",
		"1790352652876Z",
	} {
		if got, err := ParseTime(s); err == nil {
			t.Errorf("ParseTime(%q) = %v, want error", s, got)
		}
	}
}
