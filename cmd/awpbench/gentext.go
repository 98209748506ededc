package main

// The content of a generated data directory: how lines spread over
// threads, and the text of its lines.

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/awp-tray/awp-tray/peer/wire"
)

// threadSizes splits lines over threads by a power law (thread i gets a
// share of 1/(i+1)^0.8): months of agent work have a few long threads and
// many short ones. Every thread has at least 2 lines.
func threadSizes(lines, threads int) []int {
	const s = 0.8
	w := make([]float64, threads)
	sum := 0.0
	for i := range w {
		w[i] = 1 / math.Pow(float64(i+1), s)
		sum += w[i]
	}
	sizes := make([]int, threads)
	left := lines
	for i := range sizes {
		sizes[i] = max(2, int(float64(lines)*w[i]/sum))
		left -= sizes[i]
	}
	for i := 0; left > 0; i = (i + 1) % threads {
		sizes[i]++
		left--
	}
	for i := threads - 1; left < 0 && i >= 0; i-- {
		if sizes[i] > 2 {
			sizes[i]--
			left++
			i++
		}
	}
	return sizes
}

// pickWeighted picks an index at random, each in proportion to its weight.
func pickWeighted(rng *rand.Rand, w []int) int {
	total := 0
	for _, x := range w {
		total += x
	}
	r := rng.IntN(total)
	for i, x := range w {
		if r < x {
			return i
		}
		r -= x
	}
	return len(w) - 1
}

// msgLine and stateLine build content lines as a node writes them.
func msgLine(id string, ts time.Time, th, subject string, parts []json.RawMessage) []byte {
	b := make([]byte, 0, 256)
	b = append(b, `{"t":"msg","id":"`...)
	b = append(b, id...)
	b = append(b, `","ts":"`...)
	b = append(b, wire.FormatTime(ts)...)
	b = append(b, `","th":"`...)
	b = append(b, th...)
	b = append(b, '"')
	if subject != "" {
		s, _ := json.Marshal(subject)
		b = append(b, `,"subject":`...)
		b = append(b, s...)
	}
	b = append(b, `,"parts":[`...)
	for i, p := range parts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, p...)
	}
	return append(b, "]}"...)
}

func stateLine(id string, ts time.Time, th, state string) []byte {
	return fmt.Appendf(nil, `{"t":"state","id":"%s","ts":"%s","th":"%s","state":"%s"}`, id, wire.FormatTime(ts), th, state)
}

var subjects = []string{
	"Build release artifacts", "Flaky test in the retry queue", "Review: storage compaction",
	"Bump the Go toolchain", "Investigate slow start on laptops", "Port the tray icon to dark mode",
	"Benchmark the blob path", "Triage nightly failures", "Refactor the commit loop", "Write the migration",
}

var words = []string{"the", "build", "passes", "now", "test", "fails", "on", "retry", "queue", "after",
	"merge", "I", "pushed", "a", "fix", "for", "flaky", "timeout", "please", "review", "branch",
	"feature", "looks", "good", "to", "me", "running", "benchmarks", "again", "with", "profiles",
	"store", "compaction", "is", "done", "see", "log", "attached", "waiting", "CI", "green"}

// sentence is 20 to 300 bytes of text.
func sentence(rng *rand.Rand) string {
	n := 20 + int(math.Pow(rng.Float64(), 2)*280)
	b := make([]byte, 0, n+16)
	for len(b) < n {
		if len(b) > 0 {
			b = append(b, ' ')
		}
		b = append(b, words[rng.IntN(len(words))]...)
	}
	return string(b)
}

const base32Lower = "0123456789abcdefghjkmnpqrstvwxyz"

func randBase32(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = base32Lower[rng.IntN(len(base32Lower))]
	}
	return string(b)
}
