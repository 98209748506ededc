package peer

import (
	"encoding/json"
	"sync"

	"github.com/awp-tray/awp-tray/peer/grant"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// reqJob is one request part of a received msg, on its way to a worker.
type reqJob struct {
	s        *session
	m        *wire.Msg
	mime     string
	data     json.RawMessage
	attached []*grant.Grant // grants the request carries (profile requests)
	attErr   error          // why they could not be read
}

// reqQueue holds jobs per peer; pop takes the peers in turn.
type reqQueue struct {
	mu     sync.Mutex
	cond   sync.Cond
	peers  map[key.PublicKey][]*reqJob
	ring   []key.PublicKey // peers with queued jobs, in turn order
	total  int
	closed bool
}

// push queues j; false when the queue is closed or over a bound.
func (q *reqQueue) push(j *reqJob) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.cond.L == nil {
		q.cond.L = &q.mu
	}
	k := j.s.peer
	if q.closed || q.total >= MaxQueuedRequests || len(q.peers[k]) >= MaxQueuedPerPeer {
		return false
	}
	if q.peers == nil {
		q.peers = map[key.PublicKey][]*reqJob{}
	}
	if len(q.peers[k]) == 0 {
		q.ring = append(q.ring, k)
	}
	q.peers[k] = append(q.peers[k], j)
	q.total++
	q.cond.Signal()
	return true
}

// pop waits for a job; false once the queue is closed.
func (q *reqQueue) pop() (*reqJob, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.cond.L == nil {
		q.cond.L = &q.mu
	}
	for q.total == 0 && !q.closed {
		q.cond.Wait()
	}
	if q.closed {
		return nil, false
	}
	k := q.ring[0]
	q.ring = q.ring[1:]
	js := q.peers[k]
	j := js[0]
	js[0] = nil
	if len(js) == 1 {
		delete(q.peers, k)
	} else {
		q.peers[k] = js[1:]
		q.ring = append(q.ring, k) // its next job waits for the others' turn
	}
	q.total--
	return j, true
}

// close wakes the workers and makes push refuse; queued jobs are dropped.
func (q *reqQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.cond.L == nil {
		q.cond.L = &q.mu
	}
	q.closed = true
	q.peers, q.ring, q.total = nil, nil, 0
	q.cond.Broadcast()
}

// startRequestWorkers starts the pool; it ends when the node closes.
func (n *Node) startRequestWorkers() {
	n.wg.Add(RequestWorkers + 1)
	for range RequestWorkers {
		go func() {
			defer n.wg.Done()
			for {
				j, ok := n.reqs.pop()
				if !ok {
					return
				}
				n.handleRequest(j)
			}
		}()
	}
	go func() {
		defer n.wg.Done()
		<-n.ctx.Done()
		n.reqs.close()
	}()
}
