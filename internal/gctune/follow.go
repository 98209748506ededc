package gctune

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// following is whether the memory limit is re-set after each collection
// (Node starts it; tests stop it).
var following atomic.Bool

// startFollow re-sets the memory limit after every collection from now on.
func startFollow() {
	if following.Swap(true) {
		return
	}
	arm()
}

// stopFollow ends startFollow's work after the next collection.
func stopFollow() { following.Store(false) }

// sentinel is a heap object whose only job is to become garbage: its
// cleanup runs after the collection that found it unreachable. It is
// larger than the tiny allocator's 16 bytes, whose blocks hold several
// objects and may keep a dead one's cleanup from running.
type sentinel struct{ _ [32]byte }

// arm makes a new sentinel whose cleanup sets the limit and arms the next.
func arm() {
	runtime.AddCleanup(new(sentinel), func(struct{}) {
		if !following.Load() {
			return
		}
		debug.SetMemoryLimit(limitFor(readMem()))
		arm()
	}, struct{}{})
}

// memNow is what limitFor needs: the heap the last collection found live,
// and the runtime's memory that is not heap (stacks, GC and span metadata,
// other runtime structures), as the memory limit counts it.
type memNow struct{ live, other int64 }

var (
	samplesMu sync.Mutex
	samples   = []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}
)

func readMem() memNow {
	samplesMu.Lock()
	defer samplesMu.Unlock()
	metrics.Read(samples)
	v := func(i int) int64 {
		if samples[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return int64(samples[i].Value.Uint64())
	}
	heap := v(2) + v(3) + v(4) + v(5)
	return memNow{live: v(0), other: max(v(1)-heap, 0)}
}

// limitFor is the memory limit for m: the live heap and the runtime's own
// memory plus Headroom or a quarter of the live heap (whichever is more),
// at least Floor and at most Limit.
func limitFor(m memNow) int64 {
	return min(Limit, max(Floor, m.other+m.live+max(Headroom, m.live/4)))
}
