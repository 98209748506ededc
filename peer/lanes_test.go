package peer

import (
	"slices"
	"testing"
)

// laneOrder records the order a laneQueue hands out its operations: each op's
// size is its number.
func laneOrder(q *laneQueue) (batches [][]int) {
	for q.n() > 0 {
		var b []int
		for _, o := range q.take(nil) {
			b = append(b, o.size)
		}
		batches = append(batches, b)
	}
	return batches
}

// TestLanesChatOvertakesChunks: a msg of another thread that arrives
// behind a blob's chunks is committed first, in a batch of its own; a msg
// of the blob's own thread keeps its place behind the chunks (the spec's
// order within a thread).
func TestLanesChatOvertakesChunks(t *testing.T) {
	s := &session{}
	var q laneQueue
	q.push(&op{src: s, th: "blob", bulk: true, size: 1})
	q.push(&op{src: s, th: "blob", bulk: true, size: 2})
	q.push(&op{src: s, th: "blob", size: 3}) // the blob thread's next line: behind its chunks
	q.push(&op{src: s, th: "chat", size: 4}) // another thread: ahead of them
	q.push(&op{src: nil, size: 5})           // this node's own work: ahead too
	q.push(&op{src: s, th: "blob", bulk: true, size: 6})
	got := laneOrder(&q)
	want := [][]int{{4, 5}, {1, 2, 3, 6}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("batches %v, want %v", got, want)
	}
	if len(q.waiting) != 0 {
		t.Fatalf("bulk counts left after the queue drained: %v", q.waiting)
	}
	// Once the blob thread's bulk lines are taken, its next line is no
	// longer held behind anything.
	q.push(&op{src: s, th: "blob", bulk: true, size: 7})
	if b := q.take(nil); len(b) != 1 || b[0].size != 7 {
		t.Fatalf("bulk batch %v", b)
	}
	q.push(&op{src: s, th: "blob", size: 8})
	q.push(&op{src: s, th: "other", bulk: true, size: 9})
	if got := laneOrder(&q); !slices.EqualFunc(got, [][]int{{8}, {9}}, slices.Equal) {
		t.Fatalf("after the chunks were taken: batches %v", got)
	}
}

// TestLanesBulkNotStarved: express lines keep coming while chunks wait;
// after maxExpressRun express batches a bulk one goes.
func TestLanesBulkNotStarved(t *testing.T) {
	s := &session{}
	var q laneQueue
	q.push(&op{src: s, th: "blob", bulk: true, size: -1})
	for i := range maxExpressRun + 1 {
		q.push(&op{src: s, th: "chat", size: i})
		b := q.take(nil)
		if len(b) != 1 {
			t.Fatalf("batch %d holds %d ops", i, len(b))
		}
		if i < maxExpressRun && b[0].size != i {
			t.Fatalf("batch %d: the express op %d waited", i, i)
		}
		if i == maxExpressRun && b[0].size != -1 {
			t.Fatalf("after %d express batches the chunk still waits (took %d)", maxExpressRun, b[0].size)
		}
	}
	if b := q.take(nil); len(b) != 1 || b[0].size != maxExpressRun {
		t.Fatalf("the express op after the bulk batch: %v", b)
	}
}

// TestLanesBulkBatchBound: a bulk batch holds at most maxBulkBatchBytes of
// chunks (at least one), in order.
func TestLanesBulkBatchBound(t *testing.T) {
	s := &session{}
	var q laneQueue
	const chunk = 512 << 10
	n := 3 * maxBulkBatchBytes / chunk
	for range n {
		q.push(&op{src: s, th: "blob", bulk: true, size: chunk})
	}
	total := 0
	for q.n() > 0 {
		b := q.take(nil)
		bytes := 0
		for _, o := range b {
			bytes += o.size
		}
		if bytes > maxBulkBatchBytes+chunk {
			t.Fatalf("a bulk batch of %d bytes, bound %d", bytes, maxBulkBatchBytes)
		}
		total += len(b)
	}
	if total != n {
		t.Fatalf("%d ops taken, %d pushed", total, n)
	}
}
