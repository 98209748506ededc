package peer

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// op is one unit of work for the commit loop. pre runs before the
// transaction (blob file writes); its sync names a blob file to fsync before
// the commit. fn runs inside the shared transaction and must return an error
// only for a storage failure (a bad line is a result, not an error). done
// runs on the commit loop's goroutine after the commit and must not block.
type op struct {
	pre     func() (sync string, err error)
	sync    string          // a blob file written before the commit, to fsync before it
	written <-chan struct{} // closed once the bytes to sync are written (nil: already)
	hashed  <-chan struct{} // closed once work fn needs (a chunk's hash) is done
	size    int             // bytes this op holds (inbound budget; batch bound)
	src     *session        // the session whose line this is (nil: this node's own work)
	th      string          // a received line's thread (lanes.go)
	bulk    bool            // a received chunk line: the bulk lane (lanes.go)
	fn      func(tx *store.Tx) error
	done    func(err error)
	// what names an op nobody waits for (async): its failure is logged.
	what string
	// job, when set, replaces fn and done (one allocation per op on the
	// hot paths instead of several closures).
	job opJob
}

// opJob is an op's work as methods.
type opJob interface {
	run(tx *store.Tx) error
	finish(err error)
}

// exec runs the op's work inside the batch's transaction.
func (o *op) exec(tx *store.Tx) error {
	if o.job != nil {
		return o.job.run(tx)
	}
	return o.fn(tx)
}

// commitLoop groups operations from every session and API call into few
// transactions: one fsync for everything that arrived together.
type commitLoop struct {
	n      *Node
	ops    chan *op
	wg     sync.WaitGroup
	mu     sync.RWMutex // guards closed; held for reading while sending on ops
	closed bool

	// Used only on the loop's goroutine (inside op.fn): senders to wake and
	// events to publish once the current batch commits.
	wake   map[key.PublicKey]bool
	events []batchEvent
	lastID string // newest id this node made in the batch (meta last_id)
	// late: blob files written inside the batch's transaction (rare: see
	// storeChunk), fsynced before it commits.
	late map[string]bool
	// presence: the batch changed what this node's presence document
	// shows without an event that says so (a peer's record); the document
	// is rebuilt after the commit, so it sees it.
	presence bool
}

// syncBeforeCommit has the blob file rel fsynced before the current batch
// commits. Call it only from inside an op's fn.
func (c *commitLoop) syncBeforeCommit(rel string) {
	if c.late == nil {
		c.late = map[string]bool{}
	}
	c.late[rel] = true
}

// syncLate fsyncs the files syncBeforeCommit named (inside the transaction,
// before its commit; each transaction clears the set when it begins).
func (c *commitLoop) syncLate() error {
	for f := range c.late {
		if err := c.n.db.SyncBlob(f); err != nil {
			return err
		}
	}
	return nil
}

// noteID records an id this node created inside an op's fn, so the newest
// is stored once per batch and ids keep increasing across restarts.
func (c *commitLoop) noteID(id string) {
	if id > c.lastID {
		c.lastID = id
	}
}

// wakeAfter wakes k's sender after the current batch commits. Call it only
// from inside an op's fn.
func (c *commitLoop) wakeAfter(k key.PublicKey) { c.wake[k] = true }

// presenceAfter marks the current batch as changing the presence document.
// Call it only from inside an op's fn.
func (c *commitLoop) presenceAfter() { c.presence = true }

// batchEvent is an event of the current batch. Whether anyone hears of it
// is decided when it is published, after the commit: a subscriber that
// came while the batch was being stored did not find its lines in the
// store, and must hear of them.
type batchEvent struct {
	Event
	line outLine // an EventLine's line, made into Event.Line at publish time (seq 0: none)
}

// outLine is a line this node stored in one of its threads, for the
// EventLine made of it after the commit.
type outLine struct {
	peer key.PublicKey
	seq  uint64
	raw  []byte
	at   time.Time
}

// publishAfter publishes e after the current batch commits (dropped if the
// batch fails). Call it only from inside an op's fn.
func (c *commitLoop) publishAfter(e Event) {
	c.events = append(c.events, batchEvent{Event: e})
}

// lineAfter publishes the EventLine of a line this node stored in its
// thread th with peer (an outbound line) after the current batch commits;
// its LineInfo is made only if someone listens then. Call it only from
// inside an op's fn.
func (c *commitLoop) lineAfter(peer key.PublicKey, th string, seq uint64, raw []byte, at time.Time) {
	c.events = append(c.events, batchEvent{Event: Event{Type: EventLine, Th: th}, line: outLine{peer: peer, seq: seq, raw: raw, at: at}})
}

func (c *commitLoop) init(n *Node) {
	c.n = n
	c.ops = make(chan *op, commitQueue)
	c.wake = map[key.PublicKey]bool{}
}

func (c *commitLoop) start() {
	c.wg.Add(1)
	go c.loop()
}

// submit hands o to the loop; it blocks while the loop is behind
// (backpressure) and fails with ErrClosed after stop.
func (c *commitLoop) submit(o *op) error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.closed {
		return ErrClosed
	}
	c.ops <- o
	return nil
}

// async submits fn without waiting for its commit; a failure is logged
// as storing what. After stop the write is dropped with the node.
func (c *commitLoop) async(what string, fn func(tx *store.Tx) error) {
	_ = c.submit(&op{fn: fn, what: what}) // ErrClosed: the node is closing
}

// run submits o and waits for its commit.
func (c *commitLoop) run(fn func(tx *store.Tx) error) error {
	ch := make(chan error, 1)
	if err := c.submit(&op{fn: fn, done: func(err error) { ch <- err }}); err != nil {
		return err
	}
	return <-ch
}

// stop lets the loop commit what it has and waits for it.
func (c *commitLoop) stop() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	close(c.ops)
	c.mu.Unlock()
	c.wg.Wait()
}

func (c *commitLoop) loop() {
	defer c.wg.Done()
	batch := make([]*op, 0, maxBatch)
	var q laneQueue
	open := true
	for {
		if q.n() == 0 {
			o, ok := <-c.ops
			if !ok {
				return
			}
			q.push(o)
		}
	drain:
		for open && q.n() < maxWaiting {
			select {
			case o, ok := <-c.ops:
				if !ok {
					open = false
					break drain
				}
				q.push(o)
			default:
				break drain
			}
		}
		batch = q.take(batch[:0])
		c.commit(batch)
		clear(batch)
		if !open && q.n() == 0 {
			return
		}
	}
}

// fairQueue holds the operations waiting for a batch, one queue per source
// (a session, or nil for this node's own work), and fills batches from the
// sources in turn, fairQuantum operations at a time: a peer that floods
// the node with lines fills at most its turns of each batch, so another
// peer's line waits for one batch, not for the whole flood (30,000 tiny
// chunks from one peer used to delay every other peer's acks by 36 s).
// Each source's operations stay in their order.
type fairQueue struct {
	queues map[*session]*srcQueue
	ring   []*srcQueue // sources with operations waiting, in turn order
	next   int         // whose turn starts the next batch
	n      int         // operations waiting in all
}

type srcQueue struct {
	src  *session
	ops  []*op
	head int
}

func (q *fairQueue) push(o *op) {
	if q.queues == nil {
		q.queues = map[*session]*srcQueue{}
	}
	sq := q.queues[o.src]
	if sq == nil {
		sq = &srcQueue{src: o.src}
		q.queues[o.src] = sq
	}
	if sq.head == len(sq.ops) {
		q.ring = append(q.ring, sq)
	}
	sq.ops = append(sq.ops, o)
	q.n++
}

// take appends waiting operations to batch, the sources in turn, until
// max operations or maxBytes bytes (at least one operation); with more
// than one source waiting, at most fairShare of each.
func (q *fairQueue) take(batch []*op, max, maxBytes int) []*op {
	bytes := 0
	share := max
	if len(q.ring) > 1 {
		share = fairShare
	}
	taken := map[*srcQueue]int{}
	for q.n > 0 && len(batch) < max && (bytes < maxBytes || len(batch) == 0) {
		if q.next >= len(q.ring) {
			q.next = 0
		}
		sq := q.ring[q.next]
		if taken[sq] >= share {
			// Its share is in: the batch is done once every source's is.
			full := true
			for _, o := range q.ring {
				full = full && taken[o] >= share
			}
			if full {
				break
			}
			q.next++
			continue
		}
		for k := 0; k < fairQuantum && taken[sq] < share && sq.head < len(sq.ops) && len(batch) < max && (bytes < maxBytes || len(batch) == 0); k++ {
			taken[sq]++
			o := sq.ops[sq.head]
			sq.ops[sq.head] = nil
			sq.head++
			q.n--
			batch = append(batch, o)
			bytes += o.size
		}
		if sq.head == len(sq.ops) {
			// Drained: out of the ring (its slot goes to the next source).
			sq.ops, sq.head = sq.ops[:0], 0
			q.ring = append(q.ring[:q.next], q.ring[q.next+1:]...)
			delete(q.queues, sq.src)
		} else {
			q.next++
		}
	}
	return batch
}

func (c *commitLoop) commit(batch []*op) {
	db := c.n.db
	ready := batch[:0:0]
	syncs := map[string]bool{}
	for _, o := range batch {
		if o.written != nil {
			<-o.written
		}
		if o.sync != "" {
			syncs[o.sync] = true
		}
		if o.pre != nil {
			f, err := o.pre()
			if err != nil {
				c.finish(o, err)
				continue
			}
			if f != "" {
				syncs[f] = true
			}
		}
		ready = append(ready, o)
	}
	var syncErr error
	for f := range syncs {
		if err := db.SyncBlob(f); err != nil {
			syncErr = err
		}
	}
	if syncErr != nil {
		for _, o := range ready {
			c.finish(o, syncErr)
		}
		return
	}
	for _, o := range ready {
		if o.hashed != nil {
			<-o.hashed
		}
	}
	clear(c.wake)
	err := c.update(ready)
	if err != nil && len(ready) > 1 {
		// One operation failed the whole batch: run each alone so the
		// others still commit.
		c.n.log.Warn("commit batch failed; retrying one by one", "ops", len(ready), "err", err)
		for i, o := range ready {
			err := c.update(ready[i : i+1])
			c.after(err)
			c.finish(o, err)
		}
		return
	}
	c.after(err)
	for _, o := range ready {
		c.finish(o, err)
	}
}

// update runs ops in one transaction: their work, the fsyncs of blob
// files they wrote inside it (syncBeforeCommit), the newest id, then the
// commit.
func (c *commitLoop) update(ops []*op) error {
	clear(c.events)
	c.events = c.events[:0]
	c.presence = false
	c.lastID = ""
	return c.n.db.Update(func(tx *store.Tx) error {
		clear(c.late)
		for _, o := range ops {
			if err := o.exec(tx); err != nil {
				return err
			}
		}
		if err := c.syncLate(); err != nil {
			return err
		}
		return c.putLastID(tx)
	})
}

func (c *commitLoop) putLastID(tx *store.Tx) error {
	if c.lastID == "" {
		return nil
	}
	return tx.PutMeta("last_id", []byte(c.lastID))
}

// after wakes senders and publishes events of a committed batch.
func (c *commitLoop) after(err error) {
	if err == nil {
		// Subscribers are counted now, after the commit (see batchEvent): one
		// that comes later finds the batch's lines in the store. publish
		// tells presence of a change even when nobody listens.
		for i := range c.events {
			e := &c.events[i]
			if l := e.line; l.seq != 0 {
				if !c.n.hasSubscribers() {
					c.n.presenceChanged()
					continue
				}
				e.Peer = l.peer
				e.Line = &LineInfo{Dir: "out", From: c.n.pub, Line: json.RawMessage(l.raw), Seq: l.seq, Stored: wire.FormatTime(l.at)}
			}
			c.n.publish(e.Event)
		}
		if c.presence {
			c.n.presenceChanged()
		}
	}
	c.presence = false
	for k := range c.wake {
		c.n.wakeSender(k)
	}
	clear(c.wake)
	clear(c.events) // drops the lines' bytes
	c.events = c.events[:0]
}

// finish tells o's submitter how its commit went.
func (c *commitLoop) finish(o *op, err error) {
	switch {
	case o.job != nil:
		o.job.finish(err)
	case o.done != nil:
		o.done(err)
	case err != nil && o.what != "":
		c.n.log.Error("store "+o.what, "err", err)
	}
}
