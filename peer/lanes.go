package peer

// A chat line that arrives behind a blob's chunks is committed ahead of
// them: the commit loop keeps two lanes. Chunk lines, and every line of a
// thread that has chunk lines waiting (so a thread's lines keep their
// order, as the spec requires), wait in the bulk lane; every other line,
// and this node's own work, in the express lane. A batch is taken from the
// express lane while it has operations waiting, so a msg waits for at
// most the batch being committed, not for the megabytes of chunks queued
// before it (a bulk batch waits for its chunks' writes and their fsync).
// Acks are cumulative per thread (ack.go), so lines of different threads
// may commit in any order.

// Bounds of the two lanes (commit.go's loop).
const (
	// maxExpressRun is how many express batches in a row may be committed
	// while the bulk lane waits: a peer that floods the node with short
	// lines slows another's blob by this much, it does not stop it.
	maxExpressRun = 8
	// maxBulkBatchBytes bounds the chunk bytes one bulk batch holds, so
	// what an express line may wait for (the bulk batch being committed:
	// its writes, their fsync, the transaction) stays short. Below a few
	// MiB the blob rate falls (each commit costs about a millisecond of
	// bbolt work besides the flush).
	maxBulkBatchBytes = 8 << 20
)

// laneQueue is the commit loop's queue: two fairQueues (each fair among
// sources, each source's operations in order) and the count of bulk-lane
// operations of each session's thread.
type laneQueue struct {
	express, bulk fairQueue
	waiting       map[laneThread]int // bulk-lane operations of a thread
	run           int                // express batches taken in a row while bulk waited
}

// laneThread names one thread of one session (a received line's thread).
type laneThread struct {
	src *session
	th  string
}

// n is how many operations wait in both lanes.
func (q *laneQueue) n() int { return q.express.n + q.bulk.n }

func (q *laneQueue) push(o *op) {
	t := laneThread{o.src, o.th}
	if o.src == nil || (!o.bulk && q.waiting[t] == 0) {
		q.express.push(o)
		return
	}
	if q.waiting == nil {
		q.waiting = map[laneThread]int{}
	}
	q.waiting[t]++
	q.bulk.push(o)
}

// take appends the next batch to batch: express operations while there
// are any (up to maxExpressRun batches in a row when bulk ones wait),
// else bulk ones up to maxBulkBatchBytes.
func (q *laneQueue) take(batch []*op) []*op {
	if q.express.n > 0 && (q.bulk.n == 0 || q.run < maxExpressRun) {
		if q.bulk.n > 0 {
			q.run++
		}
		return q.express.take(batch, maxBatch, maxBatchBytes)
	}
	q.run = 0
	start := len(batch)
	batch = q.bulk.take(batch, maxBatch, maxBulkBatchBytes)
	for _, o := range batch[start:] {
		t := laneThread{o.src, o.th}
		if q.waiting[t]--; q.waiting[t] == 0 {
			delete(q.waiting, t)
		}
	}
	return batch
}
