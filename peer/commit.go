package peer

import (
	"sync"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/store"
)

// maxBatch bounds how many operations share one transaction.
const maxBatch = 4096

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
	fn      func(tx *store.Tx) error
	done    func(err error)
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

// maxBatchBytes bounds the payload bytes one batch holds.
const maxBatchBytes = 32 << 20

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
	events []Event
	lastID string // newest id this node made in the batch (meta last_id)
	// late: blob files written inside the batch's transaction (rare: see
	// storeChunk), fsynced before it commits.
	late map[string]bool
	// presence: the batch changed what this node's presence document
	// shows; the document is rebuilt after the commit, so it sees it.
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

// presenceAfter marks the current batch as changing the presence document.
// Call it only from inside an op's fn.
func (c *commitLoop) presenceAfter() { c.presence = true }

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

// publishAfter publishes e after the current batch commits (dropped if the
// batch fails). Call it only from inside an op's fn.
func (c *commitLoop) publishAfter(e Event) {
	if !c.n.hasSubscribers() {
		// Nobody listens: only presence cares that something changed.
		switch e.Type {
		case EventLine, EventThread:
			c.presence = true
		}
		return
	}
	c.events = append(c.events, e)
}

func (c *commitLoop) init(n *Node) {
	c.n = n
	c.ops = make(chan *op, 8192)
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
	for {
		o, ok := <-c.ops
		if !ok {
			return
		}
		batch = append(batch[:0], o)
		bytes := o.size
	drain:
		for len(batch) < maxBatch && bytes < maxBatchBytes {
			select {
			case o, ok := <-c.ops:
				if !ok {
					break drain
				}
				batch = append(batch, o)
				bytes += o.size
			default:
				break drain
			}
		}
		c.commit(batch)
	}
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
				o.finish(err)
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
			o.finish(syncErr)
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
			o.finish(err)
		}
		return
	}
	c.after(err)
	for _, o := range ready {
		o.finish(err)
	}
}

// update runs ops in one transaction: their work, the fsyncs of blob
// files they wrote inside it (syncBeforeCommit), the newest id, then the
// commit.
func (c *commitLoop) update(ops []*op) error {
	c.events = c.events[:0]
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
		for _, e := range c.events {
			c.n.publish(e)
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
	c.events = c.events[:0]
}

func (o *op) finish(err error) {
	if o.job != nil {
		o.job.finish(err)
	} else if o.done != nil {
		o.done(err)
	}
}
