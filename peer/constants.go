package peer

import (
	"time"

	"github.com/awp-tray/awp-tray/peer/wire"
)

// The node's bounds and timings, by concern, each with its reason. The
// bounds on what peers can make this node hold (sessions, memory, disk,
// handshakes, requests, grants) are those of docs/protocol/choices.md
// "Bounds under attack"; the exported ones are stated there and checked
// by tests.

// Sessions: how many at once, and the memory each may hold. Together
// (MemoryBound, memory.go) they cap what peers can make this node hold,
// whatever they send and however many keys they make.
const (
	// MaxSessions bounds the authenticated sessions at once, and
	// MaxStrangerSessions those of keys that are neither trusted nor
	// dialed by this node: throwaway keys cannot take the room of known
	// peers. One more is refused with not_allowed after its handshake.
	MaxSessions         = 256
	MaxStrangerSessions = 192

	// MaxLineBufs bounds the sessions holding a long-line buffer
	// (wire.ReadBufMax, 2 MiB, and a chunk decode buffer) at once, and
	// MaxStrangerLineBufs those of strangers. A line longer than the
	// reader's 64 KiB buffer (readerBufSize) waits for one (the peer is
	// slowed by TCP). Each session holding a partial 1 MiB line used to
	// keep 2 MiB, and sessions were unlimited (300 of them: +630 MB).
	MaxLineBufs         = 32
	MaxStrangerLineBufs = 16
	// LongLineTimeout: a session holding a long-line buffer must finish a
	// line within this long of its previous one; one that is idle gives
	// the buffer back then, one in the middle of a line is closed.
	LongLineTimeout = 60 * time.Second
	// readerBufSize is the reader's own buffer: a longer line is a long
	// line (a chunk's, in practice), read into a long-line buffer and
	// decoded into a pooled chunk buffer.
	readerBufSize = 64 << 10
	// readBufsKept is how many long-line buffers the pool keeps unused
	// (bufIdle): a few sessions receiving blobs at once.
	readBufsKept = 8

	// maxErrQueue bounds the err lines waiting for a session's writer: a
	// peer that provokes errors and does not read them is closed past it
	// (its queue grew to 1 GB in 60 s).
	maxErrQueue = 256 << 10
	// maxPendingAcks bounds the threads with an ack waiting for a
	// session's writer; past it the peer is not reading and is closed (the
	// next session's resume tells it what is stored).
	maxPendingAcks = 4096
	// writeLimit bounds the content bytes queued for one session's writer.
	writeLimit = 4 << 20
	// writeShared bounds the content lines queued for all sessions'
	// writers together beyond writeFloor each: a session whose peer reads
	// slowly keeps its own writeLimit only while the node is under this.
	writeShared = 64 << 20
	writeFloor  = 64 << 10
	// writeTimeout is how long one flush may take before the session is
	// dropped: a peer that stopped reading does not hold its queue forever.
	writeTimeout = 2 * time.Minute
	// goodbyeTimeout is how long the one err line written before a
	// connection is closed (a refused session, a failed handshake) may
	// take: the peer may not be reading.
	goodbyeTimeout = time.Second
	// sharedRecheck is how often a sender waiting for the shared write
	// budget looks again whether its session closed.
	sharedRecheck = 50 * time.Millisecond

	// NodeMemoryBudget is the stated total MemoryBound stays under
	// (TestMemoryBoundStated): what no peer, and no set of throwaway
	// keys, can grow this node's memory past through sessions, lines,
	// queues and presence (beyond the node's own working memory and the
	// warm buffers). Handshakes before authentication and requests
	// waiting for approval have their own bounds (handshake slots,
	// MaxPendingTotal).
	NodeMemoryBudget = 512 << 20
)

// perSession is the memory a peer can make this node hold per session,
// beyond the shared budgets: the reader's small buffer (wire: 64 KiB,
// doubled once to 128 KiB before a long line needs the budget), the
// writer's buffer (64 KiB), err lines (maxErrQueue), pending acks
// (maxPendingAcks × ~128 B), content queued within writeFloor (beyond it,
// content counts in writeShared), goroutine stacks and bookkeeping
// (~64 KiB).
const perSession = 128<<10 + 64<<10 + maxErrQueue + maxPendingAcks*128 + writeFloor + 64<<10

// What this node keeps of a peer. A peer's name and about line are cut
// to MaxPeerName and MaxPeerAbout bytes (the protocol sets no bound, and
// a hello may hold 1 MiB of them, which every peer list, event and prompt
// would carry). Of its listen addresses it keeps the first MaxPeerListen,
// each at most MaxAddrLen bytes (a longer one is dropped, not cut: a cut
// address is wrong).
const (
	MaxPeerName   = 256
	MaxPeerAbout  = 1024
	MaxPeerListen = 16
	MaxAddrLen    = 512

	// lastSeenEvery is how stale a peer's stored last_seen may get before
	// a new session with it rewrites the record (when nothing else
	// changed): a reconnect within it costs no commit.
	lastSeenEvery = time.Minute
	// maxListenLines is how many listen lines of one session are taken
	// in; a peer sends one when the session starts and one each time its
	// person trusts this node again, so more are a flood (each stored one
	// costs a commit).
	maxListenLines = 8
)

// Handshakes (handshake.go, hsadmit.go). Every accepted connection holds
// a goroutine and a file descriptor until its handshake ends, and opening
// one costs the other side nothing: slots bound them, and the accept loop
// never waits for one (hsadmit.go says how a slot is freed).
const (
	// MaxHandshakes is how many accepted connections may be in their
	// handshake at once (goroutines and descriptors held before anyone
	// authenticated).
	MaxHandshakes = 64
	// MaxHandshakesPerSource is how many of them may come from one
	// source: one IPv4 address, one IPv6 /64 (what one host is usually
	// given), one tunnel peer. One host cannot take more than a quarter of
	// the slots, so one that reconnects as fast as it can only evicts its
	// own connections.
	MaxHandshakesPerSource = 16
	// HelloTimeout is how long an accepted connection may take to send its
	// hello. Each side sends its hello at once on connect
	// (docs/protocol/handshake.md), so a peer needs one trip; the rest of
	// defaultHandshakeTimeout is for auth and resume.
	HelloTimeout = 5 * time.Second
	// defaultHandshakeTimeout is how long a whole handshake may take
	// (docs/protocol/handshake.md).
	defaultHandshakeTimeout = 10 * time.Second
	// hsWarnEvery spaces the warning that connections are being evicted,
	// so a flood cannot flood the log.
	hsWarnEvery = time.Minute
	// hsDirectMax is the largest handshake line written directly (far
	// below any socket buffer, so the write cannot wait for the peer to
	// read).
	hsDirectMax = 8 << 10
	// maxEarlyLines and maxEarlyBytes bound the lines kept between a
	// peer's auth and its resume, until the session runs: in each of the
	// handshakes in flight, 64 lines of 1 MiB would be gigabytes.
	maxEarlyLines = 64
	maxEarlyBytes = 2 << 20
)

// Dialing and accepting (dial.go, node.go).
const (
	// minBackoff and maxBackoff bound the wait between redials of an
	// address (jittered, doubling after each failure).
	minBackoff = 100 * time.Millisecond
	maxBackoff = 30 * time.Second
	// dialTimeout bounds one dial (a tunnel's handshake included).
	dialTimeout = 15 * time.Second
	// stableSession: a session that lasted this long resets the backoff,
	// so a peer that restarts now and then is redialed at once.
	stableSession = 10 * time.Second
	// acceptBackoffMin and acceptBackoffMax bound the wait after a failed
	// accept (out of descriptors, say), so the loop does not spin.
	acceptBackoffMin = 5 * time.Millisecond
	acceptBackoffMax = time.Second
)

// Keepalive and probes (keepalive.go).
const (
	// defaultKeepaliveInterval: a session that sent nothing for this long
	// sends a keepalive line; defaultKeepaliveTimeout: one whose peer
	// announces keepalive but sent nothing for this long is dropped, so
	// a peer that vanished (a crash behind NAT) is redialed.
	defaultKeepaliveInterval = 30 * time.Second
	defaultKeepaliveTimeout  = 100 * time.Second
	// probeTimeout is how long a probed session has to show it is alive:
	// many round trips on any link people use, and short enough that a
	// peer back from a restart is connected again within 3 s.
	probeTimeout = 2 * time.Second
	// pongBurst and pongEvery bound the pongs one session sends: a few at
	// once (probes from both sides, for several reasons, can meet), then
	// one per pongEvery, so a peer that floods pings (and does not read)
	// cannot grow the queue ahead of content faster than that.
	pongBurst = 4
	pongEvery = 100 * time.Millisecond
	// maxPingID is the longest ping id answered (ours are ids, 26 bytes).
	maxPingID = 64
)

// Received lines on their way to the commit loop, and the loop's batches
// (receive.go, commit.go).
const (
	// maxInflight bounds the bytes of received lines waiting to be
	// committed: a fast sender waits for them (TCP backpressure).
	maxInflight = 24 << 20
	// opOverhead is what a received line costs in the in-flight budget
	// beyond its bytes (its op, job and decoded frame), so a flood of tiny
	// lines is bounded as well as one of large ones.
	opOverhead = 512
	// maxBatch bounds how many operations share one transaction, and
	// maxBatchBytes the payload bytes one batch holds.
	maxBatch      = 4096
	maxBatchBytes = 32 << 20
	// commitQueue is the commit loop's channel: submitters wait while it
	// is full (backpressure), the loop takes it whole (maxWaiting).
	commitQueue = 8192
	// maxWaiting bounds the operations the loop takes off its channel
	// ahead of the batch it builds, so it can choose among the sources
	// fairly: all of them in practice, since sessions' lines are bounded
	// by the in-flight budget (about 49,000 lines at most) and this node's
	// own operations by the goroutines waiting for them; a line left in
	// the channel behind a flood would wait for the flood.
	maxWaiting = 1 << 16
	// fairQuantum is how many operations of one source go into a batch
	// before the next source's turn, and fairShare the most one source
	// puts into a batch when others have operations waiting too: a batch
	// is committed whole, so a flood's part of it is what the others'
	// lines wait for.
	fairQuantum = 64
	fairShare   = maxBatch / 8
	// maxGates bounds the threads one session may have waiting for a line
	// to come again (admit.go); past it the session is closed (the next
	// one's resume replays them all).
	maxGates = 1024
)

// Sending (outbound.go).
const (
	// sendBatch is how many outbox entries the sender reads per
	// transaction.
	sendBatch = 512
	// retryMin, retryMax and retryDefault bound the delay before a line
	// the peer answered rate_limited or internal goes again: its
	// retry_ms within these bounds, retryDefault without one.
	retryMin     = 100 * time.Millisecond
	retryMax     = time.Minute
	retryDefault = time.Second
	// maxSendFiles is how many blob files one sender keeps open; past it
	// it closes them all (a session sends one blob at a time, in order).
	maxSendFiles = 8
	// readAheadSize is how much of a blob file one read takes (several
	// chunks: the staged copy is read around the page cache, and fewer,
	// larger reads keep the disk busy on a busy machine; see
	// store.CopySync); readAheadKept is how many such windows the pool
	// keeps unused (bufIdle).
	readAheadSize = 8 << 20
	readAheadKept = 8
	// maxLineBufs is how many chunk lines' buffers are kept: twice what a
	// write queue holds, and room for the lines being built and written.
	maxLineBufs = 2*writeLimit/wire.MaxLine + 8
)

// Blobs received (chunk.go, rxchunk.go).
const (
	// MaxBlobSize is the largest blob this node accepts (too_large above
	// it).
	MaxBlobSize = 64 << 30
	// maxRxBlobs is how many blobs one reader follows the chunks of (a
	// blob it forgot is looked up in the store again).
	maxRxBlobs = 16
	// rxWriters is how many goroutines write one session's chunks: more
	// than one keeps the disk busy while a direct write waits.
	rxWriters = 2
	// rxQueue is how many chunks wait for a session's writers and hasher
	// (each holds at most a chunk's buffer, within maxInflight).
	rxQueue = 64
	// maxHashTails bounds the blobs whose chains a worker remembers.
	maxHashTails = 64
	// maxWriteRun bounds the bytes one write system call takes from the
	// queue.
	maxWriteRun = 8 << 20
	// bufIdle is how long unused pooled chunk and line buffers are kept.
	bufIdle = 10 * time.Second
)

// Disk (disk.go, admit.go). A peer's bytes are stored only within its
// quota and only while the disk keeps a reserve free, so no peer, and no
// set of throwaway keys, can fill the disk: this node's own sends (`awp
// send`, the tray) can use the reserve, and other peers keep room when
// strangers are refused.
const (
	// QuotaKnown is the most a known peer (knownPeer: trusted, dialed,
	// added from an invite, introduced by a trusted key, or given a grant
	// here) may have stored here: its lines plus the announced sizes of
	// its blobs that are kept (Usage). Past it a blob is refused and a
	// line answered too_large.
	QuotaKnown = 256 << 30
	// QuotaStranger is the same for any other key: anyone can make keys,
	// so a stranger gets less.
	QuotaStranger = 4 << 30

	// No peer's bytes are stored while the free space would fall below
	// MinFree or 1/MinFreeDiv of the file system, whichever is less: the
	// line is answered rate_limited and comes again later.
	MinFree    = 1 << 30
	MinFreeDiv = 20
	// A stranger's bytes need MinFreeStranger or 1/MinFreeStrangerDiv of
	// the file system free, whichever is less: throwaway keys together
	// cannot take the room known peers' lines need. 4 GiB, one stranger's
	// quota: 16 GiB refused a stranger's chat line on a laptop whose
	// 250 GB disk had 14 GB free, which no person expects.
	MinFreeStranger    = 4 << 30
	MinFreeStrangerDiv = 5

	// RetryRefused is the retry_ms of a line refused rate_limited (no room
	// on the disk, or a line before it in its thread was not stored).
	RetryRefused = 10 * time.Second

	// IncompleteBlobAge: a received blob that got no chunk for this long
	// is dropped (marked corrupt, "incomplete for too long", its file
	// removed and its quota given back). IncompleteBlobAgeLowDisk is the
	// age while the disk is below the reserve.
	IncompleteBlobAge        = 72 * time.Hour
	IncompleteBlobAgeLowDisk = time.Hour

	// BlobFileIdle: a blob file no chunk was written to for this long is
	// closed (store.MaxOpenBlobFiles bounds how many stay open at all).
	BlobFileIdle = time.Minute
	// sweepEvery is how often the node closes idle blob files, and
	// expireEvery how often it looks for incomplete blobs to expire.
	sweepEvery  = time.Minute
	expireEvery = 10 * time.Minute
	// orphanAge: a file in blobs/in that no kept blob owns is removed once
	// it is this old (younger ones may belong to a msg still on its way to
	// its commit, whose chunks are written first).
	orphanAge = time.Hour
	// The free space is read again after diskRecheck, or after
	// diskRecheckBytes were admitted since: checking each line costs no
	// system call.
	diskRecheck      = 100 * time.Millisecond
	diskRecheckBytes = 8 << 20
)

// Requests, approvals and grants (requests.go, grantrequest.go,
// approvals.go, grantstore.go). Requests found in received msgs (profile requests and
// grant requests) are bounded three ways, so that a peer, or many
// throwaway keys, cannot turn one cheap line into unbounded work: per
// msg, waiting for a worker, and waiting for a person.
const (
	// MaxRequestsPerMsg is how many request parts of one msg are handled.
	// A msg carrying more gets one `err too_large` (re the msg) for the
	// rest, which are not handled: answers to a msg's requests all carry
	// the msg's id, so a requester cannot tell more apart anyway, and
	// `awp request` sends one per msg.
	MaxRequestsPerMsg = 8

	// RequestWorkers is how many requests are checked (expiry, grants)
	// at once. The check is short (the grant index is in memory); what
	// waits (for a person, for a command) does so after it, bounded by
	// the approval slots and the runner's limits.
	RequestWorkers = 4

	// MaxQueuedRequests and MaxQueuedPerPeer bound the requests waiting
	// for a worker, in all and from one peer. Workers take the peers'
	// queues in turn, so a peer with many queued requests delays another
	// peer's by at most one check per waiting peer. A request over either
	// bound is answered at once as busy: a result with "error" (a profile
	// request; docs/protocol/profile.md: a request that cannot run still
	// gets a result) or a grant-denied (a grant request).
	MaxQueuedRequests = 1024
	MaxQueuedPerPeer  = 64

	// MaxPendingPerPeer and MaxPendingTotal bound the requests waiting
	// for a person at once, from one peer and in all. Each waits up to
	// Config.ApprovalTimeout on a goroutine and holds its request (up to a
	// line, 1 MiB): without a bound a peer could send requests until the
	// node runs out of memory, and bury the person in prompts. A request
	// over the bound is refused at once (forbidden), unseen.
	//
	// Strangers (keys that are not known peers: see Node.knownPeer) have
	// a budget of their own inside the total: MaxPendingStrangers in all
	// and MaxPendingPerStranger each. Throwaway keys are free, so a
	// per-key bound alone does not stop a flood from taking every slot (8
	// keys × 8 requests did, for 5 minutes); this way a stranger's flood
	// leaves the other MaxPendingTotal - MaxPendingStrangers slots to the
	// peers the person knows.
	MaxPendingPerPeer     = 8
	MaxPendingTotal       = 64
	MaxPendingStrangers   = 16
	MaxPendingPerStranger = 4
	// defaultApprovalTimeout is how long a request waits for a decision
	// (Config.ApprovalTimeout): long enough to come back to the desk.
	defaultApprovalTimeout = 5 * time.Minute

	// DefaultGrantTTL is the lifetime of the grant issued for a grant
	// request with no "ttl" (or 0), and MaxGrantTTL the longest one may
	// ask for, or a person may approve. A request asking for more (or a
	// negative ttl) is invalid and denied unseen: the person approves what
	// the prompt shows, which is what is issued.
	DefaultGrantTTL = time.Hour
	MaxGrantTTL     = 30 * 24 * time.Hour

	// MaxLooseGrants bounds the received grants kept that are neither
	// from this node, nor from a key it trusts, nor for this node from a
	// peer it knows (see knownPeer): say a grant from an introduced
	// issuer, kept so a later request need not attach it, or one a
	// stranger signed for this node. Such a grant is stored only while
	// fewer than this many grants are held. Anyone can sign grants with
	// throwaway keys, so without a bound a peer could grow the store and
	// the index without end.
	MaxLooseGrants = 4096
	// MaxGrantsPerLine bounds the grants one received line may have
	// stored (its grant parts, the grants its requests carry, an
	// introduce line's grant): each costs a signature check inside the
	// commit loop, which every peer's lines wait for. A real msg carries
	// one or two; the rest of a line over the bound is not stored (a
	// request can still attach them).
	MaxGrantsPerLine = 64
)

// Presence: this node's own document (presence.go), kept well under
// presence.MaxDocBytes (about 1000 × 200 B of peers and 50 × 600 B of
// threads) whatever peers named themselves or their threads.
const (
	maxDocPeers     = 1000
	maxDocThreads   = 50  // the newest, with presence full
	docNameBytes    = 128 // a peer's name, a state
	docSubjectBytes = 256 // a thread's subject
	// maxSentCounts bounds the documents PresenceSent counts lines for
	// (tests and benchmarks): the counts start over past it.
	maxSentCounts = 10000
)

// Events and previews.
const (
	// defaultEventBuffer is a subscriber's buffer when it asks for none:
	// a burst of lines while the UI is busy, without a drop.
	defaultEventBuffer = 256
	// previewBytes is how much of a msg's first text the thread keeps for
	// previews (ThreadInfo.LastText).
	previewBytes = 200
)
